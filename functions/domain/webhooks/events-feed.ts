import { createHash } from 'node:crypto';
import { ValidationError } from '../shared/errors';
import type { EventType, WebhookEvent } from './webhooks';
import type { EventFeedStore } from './ports';

/**
 * The events feed (GET /events): every task ending of a scope, in the order the scope's feed
 * took them, kept 30 days, read with a cursor. Each event holds the body its webhooks carry.
 */
export interface FeedEvent {
  eventId: string;
  type: EventType;
  /** The exact body webhooks send for it (the contract's wire format, rendered once). */
  payload: string;
  createdAt: string;
  /** Its place in the scope's feed: 1, 2, ... in the order appends committed, without gaps. */
  position: number;
}

/** How long the feed keeps an event (DynamoDB TTL deletes it after that). */
export const EVENT_RETENTION_SECONDS = 30 * 24 * 60 * 60;
export const EVENTS_PAGE = { defaultLimit: 50, maxLimit: 100 } as const;

/** Adds an ending to its scope's feed, once however often it is announced. */
export async function appendToFeed(feed: EventFeedStore, accountId: string, event: WebhookEvent, payload: string, after?: number): Promise<void> {
  await feed.append(accountId, { eventId: event.id, type: event.type, payload, createdAt: event.createdAt }, after);
}

export interface EventsPage {
  events: FeedEvent[];
  hasMore: boolean;
  /** Where the next read starts: after the last event returned, or where this one started. */
  nextAfter: string;
}

/** GET /events: a page after the cursor (from the oldest kept event without one). */
export async function listEvents(feed: EventFeedStore, accountId: string, after: string | undefined, limit: number): Promise<EventsPage> {
  const from = after === undefined ? 0 : positionOf(after, accountId);
  const { events, last } = await feed.after(accountId, from, limit);
  // No event returned: those up to `last` all expired, so the next read starts past them.
  const reached = events.length > 0 ? events[events.length - 1]!.position : Math.max(from, last);
  return { events, hasMore: reached < last, nextAfter: cursorOf(reached, accountId) };
}

/*
 * A cursor is opaque to clients: base64url of "<position>.<tag>", where the tag is a hash of
 * the scope it belongs to, so a cursor given to another scope (another account, or the other
 * mode) is refused rather than read as a position in someone else's feed.
 */
const CURSOR = /^(\d{1,15})\.([0-9a-f]{12})$/;

const partitionTag = (accountId: string): string => createHash('sha256').update(`events-cursor:${accountId}`).digest('hex').slice(0, 12);

export const cursorOf = (position: number, accountId: string): string =>
  Buffer.from(`${position}.${partitionTag(accountId)}`).toString('base64url');

function positionOf(cursor: string, accountId: string): number {
  const match = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? CURSOR.exec(Buffer.from(cursor, 'base64url').toString('latin1')) : null;
  if (!match) throw new ValidationError('after: not a cursor from this feed; pass the next_after of an earlier page, or leave it out.', 'after');
  if (match[2] !== partitionTag(accountId)) {
    throw new ValidationError("after: this cursor belongs to another account's or mode's feed.", 'after');
  }
  return Number(match[1]);
}
