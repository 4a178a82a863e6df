import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { EVENT_RETENTION_SECONDS, type FeedEvent } from '#domain/webhooks/events-feed';
import { type EventFeedStore } from '#domain/webhooks/ports';
import type { EventType } from '#domain/webhooks/webhooks';
import type { Db } from './dynamo-client';
import { accountPartition, eventFeedCounterKey, feedEventKey, feedPositionKey } from './keys';
import { AGAIN, withRetries } from './retry';
import { TABLE_DEFINITION } from './table-definition';
import { transact, TransactionRefused, type NamedPart } from './transaction';

const LAST_POSITION = 'last_position';

/**
 * The events feed on DynamoDB (docs/decisions.md, "Events feed: positions, not timestamps").
 * Each event takes the next position from the scope's counter item in one transaction with the
 * event's own item, on the condition that the counter has not moved since it was read. So
 * positions have no gaps and commit in their own order: position n+1 cannot commit before n.
 * A reader first reads the counter, then one range of lsi1 up to it: everything in that range
 * has committed, and anything committing later lands beyond it.
 */
export class DynamoEventFeedStore implements EventFeedStore {
  constructor(private readonly db: Db) {}

  async append(accountId: string, event: Omit<FeedEvent, 'position'>, after?: number): Promise<boolean> {
    let known: number | undefined = after;
    if (known === undefined) {
      // Both at once: most repeats (an announcement retried by the sweeper) stop at the first read,
      // before they contend for a position; the others append after the position the second read.
      const [existing, first] = await Promise.all([this.get(accountId, event.eventId), this.lastPosition(accountId)]);
      if (existing) return false;
      known = first;
    }
    return withRetries('feed append', async () => {
      const seen = known ?? (await this.lastPosition(accountId));
      known = undefined;
      try {
        await transact(this.db, feedAppendParts(this.db, accountId, event, seen));
        return true;
      } catch (error) {
        const refused = feedRefusal(error, seen);
        if (refused === undefined) throw error;
        if (refused === 'exists') return false; // a repeat got there first
        if (typeof refused === 'number') known = refused;
        return AGAIN;
      }
    });
  }

  /** The last position taken (strongly consistent): what an append made next starts after. */
  lastPosition(accountId: string): Promise<number> {
    return readFeedPosition(this.db, accountId);
  }

  async after(accountId: string, after: number, limit: number): Promise<{ events: FeedEvent[]; last: number }> {
    const last = await this.lastPosition(accountId);
    if (last <= after) return { events: [], last };
    const { lsi1, partitionKey } = TABLE_DEFINITION;
    // One range read of at most `limit` items however deep `after` is (expired events are simply absent).
    const { Items } = await this.db.doc.send(
      new QueryCommand({
        TableName: this.db.tableName,
        IndexName: lsi1.indexName,
        KeyConditionExpression: `${partitionKey} = :pk AND ${lsi1.sortKey} BETWEEN :from AND :to`,
        ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':from': feedPositionKey(after + 1), ':to': feedPositionKey(last) },
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return { events: (Items ?? []).map(fromEventItem), last };
  }

  async get(accountId: string, eventId: string): Promise<FeedEvent | undefined> {
    const { Item } = await this.db.doc.send(
      new GetCommand({ TableName: this.db.tableName, Key: feedEventKey(accountId, eventId), ConsistentRead: true }),
    );
    return Item ? fromEventItem(Item) : undefined;
  }
}

/** The last position a feed took (strongly consistent): every event up to it has committed. */
export async function readFeedPosition(db: Db, accountId: string): Promise<number> {
  const { Item } = await db.doc.send(
    new GetCommand({
      TableName: db.tableName,
      Key: eventFeedCounterKey(accountId),
      ConsistentRead: true,
      ProjectionExpression: '#last',
      ExpressionAttributeNames: { '#last': LAST_POSITION },
    }),
  );
  return Number(Item?.[LAST_POSITION] ?? 0);
}

/**
 * The two parts that append an event after position `seen`: the counter moves from `seen` to the
 * next position, and the event takes it, unless its id is there already. Also the parts of a
 * task's announce that writes its ending's entry (tasks/transition.ts), so a task leaves the
 * outbox exactly when its event is in the feed.
 */
export function feedAppendParts(db: Db, accountId: string, event: FeedAppend, seen: number): NamedPart<FeedPart>[] {
  return [
    [
      'counter',
      {
        Update: {
          TableName: db.tableName,
          Key: eventFeedCounterKey(accountId),
          UpdateExpression: 'SET #last = :next',
          ConditionExpression: seen === 0 ? 'attribute_not_exists(#last) OR #last = :seen' : '#last = :seen',
          ExpressionAttributeNames: { '#last': LAST_POSITION },
          ExpressionAttributeValues: { ':seen': seen, ':next': seen + 1 },
        },
      },
    ],
    [
      'event',
      {
        Put: {
          TableName: db.tableName,
          Item: toEventItem(accountId, { ...event, position: seen + 1 }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
  ];
}

export type FeedPart = 'counter' | 'event';

/** An event as appended (its type as the domain of its writer names it: a task ending's is a string there). */
type FeedAppend = Omit<FeedEvent, 'position' | 'type'> & { type: string };

/**
 * Why a transaction with the feed's parts was refused: 'exists' (the event is there already),
 * the position another append left (no read needed for the next try), 'again' for a conflict
 * or a counter that did not say; undefined when the feed's parts are not why (or not a refusal).
 */
export function feedRefusal(error: unknown, seen: number): 'exists' | number | 'again' | undefined {
  if (!(error instanceof TransactionRefused)) return undefined;
  const refused = error as TransactionRefused<FeedPart | string>;
  if (refused.failed('event')) return 'exists';
  if (refused.failed('counter')) {
    const moved = refused.old('counter')?.[LAST_POSITION];
    return typeof moved === 'number' && moved !== seen ? moved : 'again';
  }
  return refused.conflict ? 'again' : undefined;
}

function toEventItem(accountId: string, event: FeedAppend & { position: number }): Record<string, unknown> {
  return {
    ...feedEventKey(accountId, event.eventId),
    lsi1sk: feedPositionKey(event.position),
    type: 'event',
    event_id: event.eventId,
    event_type: event.type,
    payload: event.payload,
    created_at: event.createdAt,
    position: event.position,
    expires_at: Math.floor(Date.parse(event.createdAt) / 1000) + EVENT_RETENTION_SECONDS,
  };
}

function fromEventItem(item: Record<string, unknown>): FeedEvent {
  return {
    eventId: String(item.event_id),
    type: item.event_type as EventType,
    payload: String(item.payload),
    createdAt: String(item.created_at),
    position: Number(item.position),
  };
}
