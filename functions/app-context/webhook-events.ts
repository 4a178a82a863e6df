import type { Db } from '#adapters/dynamodb/dynamo-client';
import { DynamoDeliveryStore } from '#adapters/dynamodb/delivery-repository';
import { DynamoEventFeedStore } from '#adapters/dynamodb/event-feed-repository';
import { DynamoWebhookStore } from '#adapters/dynamodb/webhook-repository';
import type { EventsConfig } from '#config/service';
import { renderEvent } from '#contract/events';
import type { DeliveryDeps, DeliveryMessage } from '#domain/webhooks/deliveries';
import { appEventsConfig } from './config';
import { lazyMessageQueue } from './queues';
import { appDb } from './stores';

/**
 * What publishing an event needs: add a task's ending to the events feed, record a delivery per interested endpoint and queue it. Kept
 * apart from the delivery side (the HTTP sender, its SSRF-safe fetcher, the destination rules)
 * so the functions that only publish (every task transition) do not bundle those.
 */
export type EventPublishing = Pick<DeliveryDeps, 'webhooks' | 'deliveries' | 'queue' | 'render' | 'feed'>;

export function buildEventPublishing(config: EventsConfig, db: Db): EventPublishing {
  const { queueUrl } = config.webhooks;
  return {
    webhooks: new DynamoWebhookStore(db),
    deliveries: new DynamoDeliveryStore(db),
    feed: new DynamoEventFeedStore(db),
    queue: lazyMessageQueue<DeliveryMessage>('webhook-deliveries', queueUrl, config.region),
    render: renderEvent,
  };
}

let current: EventPublishing | undefined;

export function webhookEvents(): EventPublishing {
  current ??= buildEventPublishing(appEventsConfig(), appDb());
  return current;
}
