import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { createS3Client } from '#adapters/s3/s3-client';
import type { LocalStack } from '#bin/local-stack/stack';
import { createApiKey, grantCredits, setAccess } from '#domain/accounts/account-admin';
import { call, get, post, startTestApi, waitForFinal, type Json } from '#test-support/local-api';
import { newAccount } from '#test-support/accounts';
import { signedInHolder } from '#test-support/identity';
import { pollUntil } from '#test-support/wait';

/**
 * Output retention (CONTRACT.md, "Retention and deletion") on the local stack: PATCH /account
 * (sessions of an owner or admin), `expires_at` on views, and the expiry, which runs in the
 * sweeper. A day is RETENTION_DAY_SECONDS (2 s here) and the sweeper runs every second, so a
 * one-day retention expires a task within the test; the test waits on conditions, never sleeps.
 */
jest.setTimeout(90_000);

const DAY_SECONDS = 2;
let stack: LocalStack;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated', RETENTION_DAY_SECONDS: String(DAY_SECONDS), SWEEP_INTERVAL_SECONDS: '1' });
});
afterAll(async () => {
  await stack.stop();
});

const patch = (token: string, body: unknown) =>
  call<Json>(stack.baseUrl, '/account', { method: 'PATCH', key: token, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

/** A signed-in owner (its account opened by the first sign-in) with a live key, credits and paid access. */
async function owner() {
  const holder = await signedInHolder(stack);
  const account = (await get(stack, holder.accessToken, '/account')).body.data!;
  const accountId = account.account_id as string;
  await grantCredits(stack.context, accountId, 500, 'retention test');
  await setAccess(stack.context, accountId, { paidAccess: true, subscriptionStatus: 'active' });
  const { apiKey } = await createApiKey(stack.context, accountId, { rateLimit: 1000 });
  return { session: holder.accessToken, key: apiKey, accountId };
}

async function objectExists(key: string): Promise<boolean> {
  const s3 = createS3Client({ region: 'local', endpoint: stack.s3Endpoint });
  try {
    await s3.send(new HeadObjectCommand({ Bucket: stack.context.storage.bucket, Key: key }));
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'NotFound' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw error;
  } finally {
    s3.destroy();
  }
}

describe('PATCH /account { output_retention_days }', () => {
  it('is for sessions: an API key gets 403, nothing changes', async () => {
    const { key, session } = await owner();
    const reply = await patch(key, { output_retention_days: 30 });
    expect([reply.status, reply.body.error?.code]).toEqual([403, 'forbidden']);
    expect((await get(stack, session, '/account')).body.data).toMatchObject({ output_retention_days: null });
  });

  it.each([
    [{ output_retention_days: 0 }],
    [{ output_retention_days: 3651 }],
    [{ output_retention_days: 1.5 }],
    [{ output_retention_days: '30' }],
    [{}],
  ])('refuses %j with a 400 naming the field', async (body) => {
    const { session } = await owner();
    const reply = await patch(session, body);
    expect([reply.status, reply.body.error?.code]).toEqual([400, 'validation_error']);
    expect(reply.body.error?.message).toContain('output_retention_days');
  });

  it('sets it (1 to 3650), GET /account shows it, null keeps outputs for good again', async () => {
    const { session, key } = await owner();
    for (const days of [1, 3650, 30]) {
      const reply = await patch(session, { output_retention_days: days });
      expect([reply.status, reply.body.data?.output_retention_days]).toEqual([200, days]);
    }
    // Keys read it too (GET /account is for both).
    expect((await get(stack, key, '/account')).body.data).toMatchObject({ output_retention_days: 30 });
    expect((await patch(session, { output_retention_days: null })).body.data).toMatchObject({ output_retention_days: null });
    expect((await get(stack, session, '/account')).body.data).toMatchObject({ output_retention_days: null });
  });
});

describe('expiry', () => {
  it('shows expires_at = completed_at + the retention, and deletes the outputs after it: view and objects agree at every poll', async () => {
    // A control: another account's image, completed first, with no retention.
    const other = await newAccount(stack);
    const control = (await waitForFinal<Json>(stack, other.key, `/images/${(await post(stack, other.key, '/generate-image', { prompt: 'a lighthouse' })).body.data!.image_id}`)).body.data!;
    expect(control).toMatchObject({ status: 'completed', expires_at: null });
    const { session, key } = await owner();
    const started = await post(stack, key, '/generate', { prompt: 'a kite over the dunes', duration: 3, resolution: '480p' });
    const id = started.body.data!.video_id as string;
    const done = (await waitForFinal<Json>(stack, key, `/videos/${id}`)).body.data!;
    expect(done).toMatchObject({ status: 'completed', expires_at: null, output_deleted_at: null });
    const objects = [`videos/${id}.mp4`, `videos/${id}.jpg`];

    expect((await patch(session, { output_retention_days: 1 })).status).toBe(200);
    const view = (await get(stack, key, `/videos/${id}`)).body.data!;
    const expected = new Date(Date.parse(done.completed_at) + DAY_SECONDS * 1000).toISOString();
    // Retention applies to tasks already completed; the list shows the same.
    expect(view.expires_at).toBe(expected);
    expect((await get(stack, key, '/videos')).body.data!.videos[0]).toMatchObject({ video_id: id, expires_at: expected });

    const deleted = await pollUntil(
      async () => {
        // Objects first, then the view: an object gone means the view already says deleted.
        const present = await Promise.all(objects.map(objectExists));
        const current = (await get(stack, key, `/videos/${id}`)).body.data!;
        if (present.includes(false)) expect(current.output_deleted_at).toEqual(expect.any(String));
        if (current.output_deleted_at === null) expect(current.video_url).toEqual(expect.any(String));
        return current.output_deleted_at !== null && !present.includes(true) && current;
      },
      { timeoutMs: 30_000, everyMs: 200, what: 'the expiry of the outputs' },
    );
    expect(deleted).toMatchObject({ status: 'completed', expires_at: null, thumbnail_url: null });
    expect(deleted).not.toHaveProperty('video_url');
    // Not before its time.
    expect(Date.parse(deleted.output_deleted_at)).toBeGreaterThanOrEqual(Date.parse(expected));
    expect((await fetch(done.video_url)).status).toBe(404);
    // The account without a retention keeps its older outputs.
    expect((await get(stack, other.key, `/images/${control.image_id}`)).body.data).toMatchObject({ output_deleted_at: null, image_urls: control.image_urls });
    expect((await fetch(control.image_urls[0])).status).toBe(200);
  });
});
