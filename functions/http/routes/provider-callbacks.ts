import { ok } from '#contract/examples';
import { providerCallbackParams, providerCallbackQuery } from '#contract/params';
import { providerCallbackResponse } from '#contract/provider-callbacks';
import type { RouteDoc } from '../route';
import { json } from './operation-doc';

/** Called by the generation provider, not by API clients: its signature is the credential. */
export const PROVIDER_CALLBACK_DOCS: RouteDoc[] = [
  {
    handler: 'provider-callback',
    doc: {
      operationId: 'receiveProviderCallback',
      summary: 'Provider callback (internal)',
      description:
        "Where the generation provider reports a job's progress and end; you never call it. No API key: the URL carries a token that binds it to its task, and the request must carry the provider's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with a timestamp within 5 minutes. A token that is not the task's, a forged or a stale callback: 401; an unreadable one: 400; an unknown task: 404. Each changes nothing. A message already received (same `webhook-id`) is answered 200 `duplicate` and changes nothing.",
      tag: 'Internal',
      request: { params: providerCallbackParams, query: providerCallbackQuery },
      success: {
        description: 'Received (the provider does not retry).',
        ...json(providerCallbackResponse, ok({ received: true, result: 'applied' })),
      },
      errors: [400, 401, 404, 500],
      errorNotes: {
        401: { description: "The URL's token is not the task's, or the signature is missing, does not verify, or is older than 5 minutes.", example: 'The callback signature is missing or does not verify.' },
        404: { description: 'No such task, or no such provider.', example: 'No task "vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ" awaits a callback here.' },
      },
      curl: `curl -s -X POST "{BASE}/provider-callbacks/simulated/$ACCOUNT_ID/$VIDEO_ID?token=<token>" -H "webhook-id: msg_1" -H "webhook-timestamp: $(date +%s)" -H "webhook-signature: v1,<signature>" -H "Content-Type: application/json" -d '{"id":"sim_01M7ZNHRE3YZJA4Y3XQS4DQDGQ","status":"processing"}'`,
    },
  },
];
