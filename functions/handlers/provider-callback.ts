import { lifecycle } from '#app-context/lifecycle';
import { successEnvelope } from '#contract/envelope';
import type { ProviderCallbackAnswer } from '#contract/provider-callbacks';
import { receiveProviderCallback } from '#domain/tasks/callbacks';
import { jsonResponse } from '#http/envelope';
import { publicHandler } from '#http/public-handler';
import { pathParameter } from '#http/request';
import { spec } from './provider-callback.spec';

/**
 * POST /api/v1/provider-callbacks/{provider}/{account_id}/{task_id}?token=... (public: no API
 * key; the URL's token and the provider's signature are the credentials). The raw body is what the signature covers, so it is
 * read as received, never parsed first. A verified callback is answered 200 whatever became of
 * it, so the provider does not retry; a forged, stale or unreadable one gets 4xx.
 */
export const handler = publicHandler(spec, async (event) => {
  const raw = event.body ?? '';
  const body = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  const token = event.queryStringParameters?.token;
  const headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  const result = await receiveProviderCallback(
    lifecycle(),
    {
      provider: pathParameter(event, 'provider'),
      accountId: pathParameter(event, 'account_id'),
      taskId: pathParameter(event, 'task_id'),
      ...(token !== undefined && { token }),
    },
    { body, headers, query: event.queryStringParameters ?? {} },
  );
  return jsonResponse(200, successEnvelope({ received: true, result } satisfies ProviderCallbackAnswer));
});
