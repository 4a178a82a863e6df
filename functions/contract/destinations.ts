import * as z from 'zod';
import type { DeliveryRequest } from '#domain/tasks/destinations';
import type { Delivery } from '#domain/tasks/destinations';
import { DELIVERY_STATUSES } from '#domain/tasks/destinations';
import { timestamp } from './fields';

/**
 * Your storage in the start bodies and the views (CONTRACT.md, "Your storage"). The header rules
 * and the address rules are the domain's (destinations.ts), so their messages name the header.
 */
export const outputDestination = z
  .object(
    {
      url: z.string({ error: 'must be an https URL' }).max(8192, 'must be at most 8192 characters'),
      headers: z.record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object of string values' }).optional(),
    },
    { error: 'must be an object { url, headers? }' },
  )
  .meta({
    id: 'OutputDestination',
    description:
      'Where the output is PUT once stored: an https presigned PUT URL (S3, R2, GCS) or an Azure SAS URL, and at most 10 extra headers to send (e.g. `x-ms-blob-type: BlockBlob` for Azure; `content-type` when you signed one). Private, loopback and metadata addresses are refused. See docs/storage.md.',
  });

/** The three start fields; video starts also take `thumbnail_destination`. */
export const deliveryFields = {
  output_destination: outputDestination.optional(),
  keep_output: z
    .boolean({ error: 'must be true or false' })
    .meta({ description: 'With `output_destination`: `false` deletes our copy once it is delivered (default `true`).' })
    .optional(),
};

export const thumbnailDestinationField = {
  thumbnail_destination: outputDestination
    .meta({ description: "Video starts only: where the video's thumbnail (a JPEG) is PUT, like `output_destination`." })
    .optional(),
};

type DestinationBody = z.infer<typeof outputDestination>;

/** The request's delivery fields as the domain takes them (each only when given). */
export function deliveryRequestOf(body: { output_destination?: DestinationBody; thumbnail_destination?: DestinationBody; keep_output?: boolean }): DeliveryRequest {
  const { output_destination: output, thumbnail_destination: thumbnail } = body;
  return {
    ...((output || thumbnail) && {
      destination: {
        // A thumbnail destination alone is refused by the domain (images) or needs the output's.
        output: { url: output?.url ?? '', headers: output?.headers ?? {} },
        ...(thumbnail && { thumbnail: { url: thumbnail.url, headers: thumbnail.headers ?? {} } }),
      },
    }),
    ...(body.keep_output === false && { keepOutput: false }),
  };
}

export const deliveryView = z
  .object({
    status: z.enum(DELIVERY_STATUSES).meta({ description: '`pending` until the PUT succeeds (`delivered`) or is given up (`failed`, with a `video.delivery_failed` / `image.delivery_failed` event).' }),
    attempts: z.number().int().min(0).meta({ description: 'PUT attempts made so far.' }),
    last_error: z.string().nullable().meta({ description: 'Why the last attempt did not deliver (e.g. `HTTP 403 (AccessDenied)`), null when none failed. Never contains the URL.' }),
    delivered_at: timestamp('When the output was delivered.').nullable(),
  })
  .nullable()
  .meta({ id: 'OutputDelivery', description: 'The delivery to `output_destination` (null when the start named none). Delivery never changes the charge.' });

export const deliveryOf = (delivery: Delivery | undefined): z.infer<typeof deliveryView> =>
  delivery ? { status: delivery.status, attempts: delivery.attempts, last_error: delivery.lastError ?? null, delivered_at: delivery.deliveredAt ?? null } : null;
