import { stores } from '../app-context/stores';
import { webhooks } from '../app-context/webhooks';
import { createdWebhookView, parseCreateWebhook } from '../contract/webhooks';
import { getCallerAccount } from '../domain/get-account';
import { createWebhook } from '../domain/webhooks';
import { httpHandler } from '../http/http-handler';

/** POST /api/v1/webhooks: register an endpoint; its signing secret is in this answer only. */
export const handler = httpHandler(
  async ({ principal, body }) => {
    // The endpoint count lives on the scope's account item: a test key's first use opens it.
    await getCallerAccount(stores().accounts, principal.accountId);
    return createdWebhookView(await createWebhook(webhooks(), principal.accountId, parseCreateWebhook(body)));
  },
  { jsonBody: true },
);
