import { DynamoEventFeedStore } from '#adapters/dynamodb/event-feed-repository';
import type { LocalStack } from '#bin/local-stack/stack';
import { cursorOf } from '#domain/webhooks/events-feed';
import { newEventId } from '#domain/shared/ids';
import { load, ms, newApiKey, percentile, type Figures } from './load';

/** Events in the feed: a page 5,000 deep must cost what page 1 costs (one counter read, one range of `limit`). */
const DEPTH = 5_000;
const LIMIT = 50;

/**
 * GET /events?limit=50 from the start vs after a cursor 5,000 events deep. The feed is filled
 * through the store (appends as task endings make them, about 1 KB each), not by ending 5,050 tasks.
 */
export async function eventsFeedFigures(stack: LocalStack, line: (label: string, figures: Figures) => string): Promise<void> {
  console.log(`== events feed: page 1 vs a page ${DEPTH.toLocaleString('en')} events deep (limit ${LIMIT}) ==`);
  const { accountId, apiKey } = await newApiKey(stack, 0, 1_000_000);
  const feed = new DynamoEventFeedStore(stack.context.db);
  const payload = JSON.stringify({ data: { prompt: 'x'.repeat(900) } });
  const began = performance.now();
  for (let i = 0; i < DEPTH + LIMIT; i += 1) {
    await feed.append(accountId, { eventId: newEventId(), type: 'video.completed', payload, createdAt: new Date().toISOString() });
  }
  console.log(`filled ${DEPTH + LIMIT} events in ${((performance.now() - began) / 1000).toFixed(1)} s`);
  const get = (pathname: string) => async () => {
    const response = await fetch(`${stack.baseUrl}${pathname}`, { headers: { Authorization: `Bearer ${apiKey}` } });
    await response.arrayBuffer();
    return response.status;
  };
  await load(20, 1, get(`/events?limit=${LIMIT}`)); // warm
  const top = await load(200, 1, get(`/events?limit=${LIMIT}`));
  const deep = await load(200, 1, get(`/events?limit=${LIMIT}&after=${cursorOf(DEPTH, accountId)}`));
  console.log(line(`GET /events?limit=${LIMIT} (c=1)`, top));
  console.log(line(`GET /events after ${DEPTH} (c=1)`, deep));
  const ratio = percentile(deep.latencies, 50) / percentile(top.latencies, 50);
  console.log(`events deep/top p50: ${ms(percentile(deep.latencies, 50))} / ${ms(percentile(top.latencies, 50))} = ${ratio.toFixed(2)} (target <= 1.5)`);
}
