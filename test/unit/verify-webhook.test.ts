import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '#client';

/** The client's verifyWebhook against signatures made by the standardwebhooks library (what we send with). */
const secret = `whsec_${Buffer.from('a secret of twenty four!').toString('base64')}`;
const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', created_at: '2026-11-21T17:00:00.000Z', data: { webhook_id: 'whk_1' } });
const at = new Date('2026-11-21T17:00:00.000Z');

function signed(overrides: { secret?: string; body?: string; at?: Date } = {}) {
  const when = overrides.at ?? at;
  return {
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(when.getTime() / 1000)),
    'webhook-signature': new Webhook(overrides.secret ?? secret).sign('evt_1', when, overrides.body ?? body),
  };
}

describe('verifyWebhook', () => {
  it('accepts what standardwebhooks signed, from a plain object or Headers, and returns the event', async () => {
    await expect(verifyWebhook(body, signed(), secret, at)).resolves.toMatchObject({ id: 'evt_1', type: 'webhook.test' });
    await expect(verifyWebhook(body, new Headers(signed()), secret, new Date(at.getTime() + 60_000))).resolves.toMatchObject({ id: 'evt_1' });
  });

  it('accepts any one of several signatures (secret rotation)', async () => {
    const headers = signed();
    const other = signed({ secret: `whsec_${Buffer.from('another secret, older!!!').toString('base64')}` });
    headers['webhook-signature'] = `${other['webhook-signature']} ${headers['webhook-signature']}`;
    await expect(verifyWebhook(body, headers, secret, at)).resolves.toMatchObject({ id: 'evt_1' });
  });

  it.each([
    ['a wrong secret', () => verifyWebhook(body, signed({ secret: `whsec_${Buffer.from('not the right secret....').toString('base64')}` }), secret, at), /No webhook-signature matches/],
    ['a tampered body', () => verifyWebhook(body.replace('whk_1', 'whk_2'), signed(), secret, at), /No webhook-signature matches/],
    ['a stale timestamp', () => verifyWebhook(body, signed({ at: new Date(at.getTime() - 6 * 60_000) }), secret, at), /more than 5 minutes/],
    ['missing headers', () => verifyWebhook(body, { 'webhook-id': 'evt_1' }, secret, at), /Missing/],
    ['a signature of another version', () => verifyWebhook(body, { ...signed(), 'webhook-signature': signed()['webhook-signature'].replace('v1,', 'v2,') }, secret, at), /No webhook-signature/],
  ])('refuses %s', async (_label, verify, message) => {
    const error = await verify().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect((error as Error).message).toMatch(message);
  });
});
