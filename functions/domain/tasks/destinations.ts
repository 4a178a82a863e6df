/**
 * Your storage (CONTRACT.md, "Your storage"; docs/storage.md): a start may name a presigned PUT
 * URL (S3, R2, GCS) or an Azure SAS URL that takes the output once it is stored, and for a video
 * one for its thumbnail. The URL is a credential: it is stored on the task until the delivery
 * ends, never shown in a view, an event or a log.
 */
export interface Destination {
  url: string;
  /** Extra headers the PUT carries (lower-case names), e.g. `x-ms-blob-type`; at most 10. */
  headers: Readonly<Record<string, string>>;
}

export interface Destinations {
  output: Destination;
  /** Video starts only. */
  thumbnail?: Destination;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Where a delivery stands (the view's `delivery`); absent on a task without a destination. */
export interface Delivery {
  status: DeliveryStatus;
  /** PUT attempts made so far (an attempt counts once, whatever the number of parts it sent). */
  attempts: number;
  /** Why the last attempt did not deliver, in words that never contain the URL. */
  lastError?: string;
  deliveredAt?: string;
  /** When the next attempt is due (pending only). */
  nextAttemptAt?: string;
  /** Until when one worker holds the attempt now being made (pending only). */
  claimedUntil?: string;
  /** The parts already delivered by an earlier attempt (a retry sends only the rest). */
  partsDone?: readonly DeliveryPart[];
  /** Failed, and its `*.delivery_failed` event not published yet (the delivery worker publishes it). */
  eventOwed?: true;
  /** The `*.delivery_failed` event's id, made when the delivery is given up (a repeat publishes the same event). */
  eventId?: string;
}

export type DeliveryPart = 'output' | 'thumbnail';

/** What a start asks for its outputs; each field only when given, so older requests hash as before. */
export interface DeliveryRequest {
  destination?: Destinations;
  /** `keep_output: false`: our copy is deleted once delivered. Absent: kept (the default). */
  keepOutput?: false;
}
