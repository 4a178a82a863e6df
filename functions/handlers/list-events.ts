import { rateLimiter } from '#app-context/rate-limiter';
import { webhookEvents } from '#app-context/webhook-events';
import { eventPageView, eventsQuery } from '#contract/events';
import { listEvents } from '#domain/webhooks/events-feed';
import { httpHandler } from '#http/http-handler';
import { spec } from './list-events.spec';

/** GET /api/v1/events: the caller's task endings, oldest first, after a cursor. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    const { after, limit } = eventsQuery.parse(event.queryStringParameters ?? {});
    return eventPageView(await listEvents(webhookEvents().feed, principal.partitionId, after, limit));
  },
  { rateLimiter },
);
