import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { promisify } from 'node:util';
import sharp from 'sharp';
import Stripe from 'stripe';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { ROUTES } from '#http/routes/index';
import { buildOpenApiDocument, documentPath } from '#openapi/document';
import { RENDERER_ASSET } from '#openapi/renderer';
import { assertMatchesContract, operationFor } from '#test-support/contract';
import { signedInHolder } from '#test-support/identity';
import { addMember } from '#domain/accounts/members';
import { OPERATOR_STAMP } from '#domain/shared/audit';
import { awaitRoomInWindow, call, startTestApi, waitForFinal, type ApiReply } from '#test-support/local-api';

/**
 * Contract tests: every operation of the OpenAPI document is called over real HTTP, for its
 * success and its main errors, and every answer is checked against the document (status,
 * headers, body schema). The route table and the document must list the same operations, and
 * every curl example in the document must run as written.
 */
jest.setTimeout(120_000);

let stack: LocalStack;
let key: string;
let brokeKey: string;
let freeKey: string;
let tightKey: string;
let workDir: string;

type Task = { video_id?: string; image_id?: string; status: string };
type Direct = { upload_id: string; upload_url: string; fields: Record<string, string> };

/** Signs the simulated provider's callbacks on this stack, so the test can send a genuine one. */
const SIM_CALLBACK_SECRET = `whsec_${Buffer.from('contract test callback secret').toString('base64')}`;
const accountIds: string[] = [];
let accountId: string;

/** operationId -> statuses seen, to check every operation ran for success and an error. */
const seen = new Map<string, Set<number>>();

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated', SIM_CALLBACK_SECRET });
  const keyFor = async (options: Parameters<typeof createAccount>[1], rateLimit = 1000) => {
    const { account } = await createAccount(stack.context, options);
    accountIds.push(account.accountId);
    return (await createApiKey(stack.context, account.accountId, { rateLimit })).apiKey;
  };
  key = await keyFor({ credits: 1000, paidAccess: true, subscriptionStatus: 'active' });
  accountId = accountIds[0]!;
  brokeKey = await keyFor({ credits: 0, paidAccess: true, subscriptionStatus: 'active' });
  freeKey = await keyFor({ credits: 100, paidAccess: false, subscriptionStatus: 'none' });
  tightKey = await keyFor({ credits: 0 }, 1);
  workDir = mkdtempSync(path.join(os.tmpdir(), 'vidgen-contract-'));
});
afterAll(async () => {
  await stack?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

function note(method: string, pathname: string, status: number) {
  const operation = operationFor(method, pathname);
  if (!operation) return;
  if (!seen.has(operation.operationId)) seen.set(operation.operationId, new Set());
  seen.get(operation.operationId)!.add(status);
}

/** A JSON call through call(), checked against the contract; returns the reply. */
async function api<T = unknown>(
  pathname: string,
  init: RequestInit & { key?: string } = {},
  expected?: { status: number; code?: string },
): Promise<ApiReply<T>> {
  const reply = await call<T>(stack.baseUrl, pathname, init);
  const method = init.method ?? 'GET';
  assertMatchesContract(method, `/api/v1${pathname}`, reply.status, reply.headers, reply.body);
  note(method, `/api/v1${pathname}`, reply.status);
  if (expected) {
    expect([pathname, reply.status, reply.body.error?.code]).toEqual([pathname, expected.status, expected.code]);
  }
  return reply;
}

/** A call whose answer may not be JSON (the docs page and its script). */
async function raw(pathname: string) {
  const response = await fetch(`${stack.baseUrl}${pathname}`);
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('application/json');
  const body = json ? JSON.parse(text) : text;
  assertMatchesContract('GET', `/api/v1${pathname}`, response.status, response.headers, body);
  note('GET', `/api/v1${pathname}`, response.status);
  return { status: response.status, headers: response.headers, body, text };
}

const post = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** An event Stripe might send that we do not act on, signed with the local simulator's secret. */
const IGNORED_STRIPE_EVENT = JSON.stringify({ id: 'evt_contract_ignored', object: 'event', type: 'customer.created', created: 1_795_000_000, data: { object: { id: 'cus_contract', object: 'customer' } } });
const signStripe = (payload: string) => Stripe.webhooks.generateTestHeaderString({ payload, secret: stack.stripe!.webhookSecret });

const png = () => sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 20, g: 120, b: 220 } } }).png().toBuffer();

function form(bytes: Buffer, field = 'image') {
  const body = new FormData();
  body.append(field, new Blob([bytes]), 'cat.png');
  return body;
}

async function directUpload(bytes: Buffer): Promise<string> {
  const created = await api<Direct>('/uploads', { method: 'POST', key }, { status: 200 });
  const { upload_id, upload_url, fields } = created.body.data!;
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  body.append('file', new Blob([bytes]), 'cat.png');
  expect((await fetch(upload_url, { method: 'POST', body })).status).toBeLessThan(300);
  return upload_id;
}

describe('the route table and the document', () => {
  it('list the same operations, public exactly where the route is', () => {
    const document = buildOpenApiDocument() as unknown as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const documented = Object.entries(document.paths).flatMap(([template, item]) =>
      Object.entries(item).map(([method, operation]) => `${method.toUpperCase()} ${template}${operation.security?.length === 0 ? ' (public)' : ''}`),
    );
    const routed = ROUTES.flatMap((route) => [
      `${route.method} ${documentPath(route.path)}${route.callers === 'public' ? ' (public)' : ''}`,
      // The methods a route refuses: the gateway's 405, before any key.
      ...(route.refusedMethods ?? []).map((method) => `${method} ${documentPath(route.path)} (public)`),
    ]);
    expect([...documented].sort()).toEqual([...routed].sort());
  });
});

describe('every operation answers as documented', () => {
  let videoId: string;
  let imageId: string;

  it('GET /credits', async () => {
    await api('/credits', { key }, { status: 200 });
    await api('/credits', {}, { status: 401, code: 'unauthorized' });
  });

  it('GET /models and POST /quote', async () => {
    await api('/models', { key }, { status: 200 });
    await api('/models', {}, { status: 401, code: 'unauthorized' });
    const quote = (body: unknown, as?: string) => ({
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      ...(as && { key: as }),
    });
    await api('/quote', quote({ kind: 'video', prompt: 'x', seed: 7 }, key), { status: 200 });
    await api('/quote', quote({ kind: 'image', prompt: 'x' }, freeKey), { status: 200 });
    await api('/quote', quote({ kind: 'video', prompt: 'x', seed: -1 }, key), { status: 400, code: 'validation_error' });
    await api('/quote', quote({ kind: 'video', prompt: 'x' }), { status: 401, code: 'unauthorized' });
    await api('/quote', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: 'x'.repeat(13 * 1024 * 1024), key }, { status: 413, code: 'payload_too_large' });
  });

  it('GET /credits/transactions', async () => {
    await api('/credits/transactions?page=1&limit=5', { key }, { status: 200 });
    await api('/credits/transactions?limit=51', { key }, { status: 400, code: 'validation_error' });
    await api('/credits/transactions', {}, { status: 401, code: 'unauthorized' });
  });

  it('POST /generate: success, then each error the document lists', async () => {
    const json = (body: unknown, extra: Record<string, string> = {}) => ({
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...extra },
      body: JSON.stringify(body),
    });
    const started = await api<Task>('/generate', { ...json({ prompt: 'a red fox', duration: 3 }, { 'Idempotency-Key': 'contract-1' }), key }, { status: 200 });
    videoId = started.body.data!.video_id!;
    await api(`/videos/${videoId}`, { key }, { status: 200 });
    await api('/generate', { ...json({ prompt: 'a red fox', duration: 3 }, { 'Idempotency-Key': 'contract-1' }), key }, { status: 200 });
    await api('/generate', { ...json({ prompt: 'a blue fox', duration: 3 }, { 'Idempotency-Key': 'contract-1' }), key }, { status: 409, code: 'idempotency_conflict' });
    await api('/generate', { ...json({ prompt: 'x', duration: 99 }), key }, { status: 400, code: 'validation_error' });
    await api('/generate', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{not json', key }, { status: 400, code: 'validation_error' });
    await api('/generate', { ...json({ prompt: 'x' }), key: brokeKey }, { status: 403, code: 'insufficient_credits' });
    await api('/generate', { ...json({ prompt: 'x', model: 'vid-2-0' }), key: freeKey }, { status: 403, code: 'paid_access_required' });
    await api('/generate', { ...json({ prompt: 'sim:reject please', duration: 3 }), key }, { status: 502, code: 'upstream_error' });
    await api('/generate', json({ prompt: 'x' }), { status: 401, code: 'unauthorized' });
    await api('/generate', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: 'x'.repeat(13 * 1024 * 1024), key }, { status: 413, code: 'payload_too_large' });
  });

  it('GET /videos/{video_id}: processing, completed and failed tasks, and an unknown id', async () => {
    const failed = await api<Task>('/generate', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: 'sim:fail this one', duration: 3 }),
      key,
    });
    const done = await waitForFinal<Task>(stack, key, `/videos/${videoId}`);
    expect(done.body.data?.status).toBe('completed');
    assertMatchesContract('GET', `/api/v1/videos/${videoId}`, done.status, done.headers, done.body);
    note('GET', `/api/v1/videos/${videoId}`, done.status);
    const ended = await waitForFinal<Task>(stack, key, `/videos/${failed.body.data!.video_id}`);
    expect(ended.body.data?.status).toBe('failed');
    assertMatchesContract('GET', `/api/v1/videos/x`, ended.status, ended.headers, ended.body);
    await api('/videos/vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ', { key }, { status: 404, code: 'not_found' });
  });

  it('GET /videos', async () => {
    const page = await api<{ videos: Task[] }>('/videos?page=1&limit=2', { key }, { status: 200 });
    expect(page.body.data!.videos.length).toBeGreaterThan(0);
    await api('/videos?page=99', { key }, { status: 200 });
    await api('/videos?limit=0', { key }, { status: 400, code: 'validation_error' });
  });

  it('POST /generate-image, GET /images/{image_id}, GET /images', async () => {
    const body = (value: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) });
    const started = await api<Task>('/generate-image', { ...body({ prompt: 'a lighthouse', output_format: 'webp' }), key }, { status: 200 });
    imageId = started.body.data!.image_id!;
    await api('/generate-image', { ...body({ prompt: 'x' }), key: freeKey }, { status: 403, code: 'paid_access_required' });
    await api('/generate-image', { ...body({ prompt: 'x', resolution: '8k' }), key }, { status: 400, code: 'validation_error' });
    const done = await waitForFinal<Task>(stack, key, `/images/${imageId}`);
    expect(done.body.data?.status).toBe('completed');
    note('GET', `/api/v1/images/${imageId}`, done.status);
    assertMatchesContract('GET', `/api/v1/images/${imageId}`, done.status, done.headers, done.body);
    await api('/images/img_01M7ZP0E1WQ4R5N8B2C6D7F9GH', { key }, { status: 404, code: 'not_found' });
    await api('/images', { key }, { status: 200 });
    await api('/images?page=abc', { key }, { status: 400, code: 'validation_error' });
  });

  it('POST /upload', async () => {
    await api('/upload', { method: 'POST', body: form(await png()), key }, { status: 200 });
    await api('/upload', { method: 'POST', body: form(Buffer.from('plain text, not an image')), key }, { status: 400, code: 'validation_error' });
    await api('/upload', { method: 'POST', body: form(Buffer.from('x'), 'file'), key }, { status: 400, code: 'validation_error' });
  });

  it('POST /uploads and POST /uploads/{upload_id}/complete', async () => {
    const uploadId = await directUpload(await png());
    const first = await api<{ url: string }>(`/uploads/${uploadId}/complete`, { method: 'POST', key }, { status: 200 });
    // Published once: a repeat gets the same answer.
    const again = await api<{ url: string }>(`/uploads/${uploadId}/complete`, { method: 'POST', key }, { status: 200 });
    expect(again.body.data!.url).toBe(first.body.data!.url);
    await api('/uploads/upl_00000000000000000000000000000000/complete', { method: 'POST', key }, { status: 404, code: 'not_found' });
    const notImage = await directUpload(Buffer.from('not an image'));
    await api(`/uploads/${notImage}/complete`, { method: 'POST', key }, { status: 400, code: 'validation_error' });
    await api('/uploads', { method: 'POST' }, { status: 401, code: 'unauthorized' });
  });

  it('POST /videos/{video_id}/cancel and POST /images/{image_id}/cancel', async () => {
    const start = (path: string, body: unknown) =>
      api<Task>(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), key }, { status: 200 });
    // sim:stall keeps a task processing until it is canceled.
    const video = (await start('/generate', { prompt: 'sim:stall a fox', duration: 3 })).body.data!.video_id!;
    const image = (await start('/generate-image', { prompt: 'sim:stall a kite' })).body.data!.image_id!;
    for (const path of [`/videos/${video}/cancel`, `/images/${image}/cancel`]) {
      const canceled = await api<Task>(path, { method: 'POST', key }, { status: 200 });
      expect(canceled.body.data).toMatchObject({ status: 'failed', error: { code: 'canceled' } });
      await api(path, { method: 'POST', key }, { status: 409, code: 'task_not_cancelable' });
    }
    await api('/videos/vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ/cancel', { method: 'POST', key }, { status: 404, code: 'not_found' });
    await api('/images/img_01M7ZP0E1WQ4R5N8B2C6D7F9GH/cancel', { method: 'POST', key }, { status: 404, code: 'not_found' });
  });

  it('POST, GET and DELETE /webhooks, POST /webhooks/{id}/test, GET /webhooks/{id}/deliveries', async () => {
    const body = (value: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) });
    // Loopback over http: the local stack's allowance; port 9 refuses, so deliveries fail and retry.
    const created = await api<{ webhook_id: string }>('/webhooks', { ...body({ url: 'http://127.0.0.1:9/hooks' }), key }, { status: 200 });
    const id = created.body.data!.webhook_id;
    await api('/webhooks', { ...body({ url: 'ftp://example.com/hooks' }), key }, { status: 400, code: 'validation_error' });
    await api('/webhooks', { key }, { status: 200 });
    await api('/webhooks', {}, { status: 401, code: 'unauthorized' });
    await api(`/webhooks/${id}/test`, { method: 'POST', key }, { status: 200 });
    await api('/webhooks/whk_01M7ZQ4XW6S3D2F1G0H9J8K7L6/test', { method: 'POST', key }, { status: 404, code: 'not_found' });
    await api(`/webhooks/${id}/deliveries?page=1&limit=5`, { key }, { status: 200 });
    await api(`/webhooks/${id}/deliveries?limit=0`, { key }, { status: 400, code: 'validation_error' });
    await api('/webhooks/whk_01M7ZQ4XW6S3D2F1G0H9J8K7L6/deliveries', { key }, { status: 404, code: 'not_found' });
    await api(`/webhooks/${id}`, { method: 'DELETE', key }, { status: 200 });
    await api(`/webhooks/${id}`, { method: 'DELETE', key }, { status: 404, code: 'not_found' });
  });

  it('POST /provider-callbacks/{provider}/{account_id}/{task_id}: a signed callback, and refusals', async () => {
    const started = await api<Task>(
      '/generate',
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ prompt: 'sim:stall sim:nocallback a callback', duration: 3 }), key },
      { status: 200 },
    );
    const taskId = started.body.data!.video_id!;
    const jobId = (await stack.context.tasks.get(accountId, taskId))!.provider!.jobId;
    const body = JSON.stringify({ id: jobId, status: 'processing', progress: 10 });
    const signed = (payload: string) => {
      // One instant for the signature and its header: two clock reads can straddle a second.
      const at = new Date();
      const id = `msg_${at.getTime()}`;
      const signature = new Webhook(SIM_CALLBACK_SECRET).sign(id, at, payload);
      return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature, 'Content-Type': 'application/json' };
    };
    const route = `/provider-callbacks/simulated/${accountId}/${taskId}`;
    const applied = await api(route, { method: 'POST', headers: signed(body), body }, { status: 200 });
    expect(applied.body.data).toEqual({ received: true, result: 'applied' });
    await api(route, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body }, { status: 401, code: 'unauthorized' });
    await api(route, { method: 'POST', headers: signed('not json'), body: 'not json' }, { status: 400, code: 'validation_error' });
    const unknown = `/provider-callbacks/simulated/${accountId}/vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ`;
    await api(unknown, { method: 'POST', headers: signed(body), body }, { status: 404, code: 'not_found' });
  });

  it('GET /account, GET /events and POST /webhooks/{id}/deliveries/{event_id}/retry', async () => {
    await api('/account', { key }, { status: 200 });
    await api('/account', {}, { status: 401, code: 'unauthorized' });
    // The tasks above have ended, so the feed holds their events.
    const events = await api<{ events: Array<{ id: string }> }>('/events?limit=5', { key }, { status: 200 });
    const eventId = events.body.data!.events[0]!.id;
    await api('/events?after=garbage', { key }, { status: 400, code: 'validation_error' });
    const webhook = await api<{ webhook_id: string }>('/webhooks', { ...post({ url: 'http://127.0.0.1:9/retries' }), key }, { status: 200 });
    const retry = (event: string) => `/webhooks/${webhook.body.data!.webhook_id}/deliveries/${event}/retry`;
    await api(retry(eventId), { method: 'POST', key }, { status: 200 });
    await api(retry('evt_01M7ZNHRE3YZJA4Y3XQS4DQDGQ'), { method: 'POST', key }, { status: 404, code: 'not_found' });
  });

  it('PATCH /account: a signed-in holder only', async () => {
    const session = (await signedInHolder(stack)).accessToken;
    const set = await api<{ output_retention_days: number | null }>('/account', { ...post({ output_retention_days: 30 }), method: 'PATCH', key: session }, { status: 200 });
    expect(set.body.data!.output_retention_days).toBe(30);
    await api('/account', { ...post({ output_retention_days: 0 }), method: 'PATCH', key: session }, { status: 400, code: 'validation_error' });
    await api('/account', { ...post({ output_retention_days: 30 }), method: 'PATCH', key }, { status: 403, code: 'forbidden' });
  });

  it('GET, POST, PATCH and DELETE /keys: a signed-in holder only', async () => {
    const session = (await signedInHolder(stack)).accessToken;
    await api('/keys', { key: session }, { status: 200 });
    await api('/keys', { key }, { status: 403, code: 'forbidden' });
    const created = await api<{ key_id: string }>('/keys', { ...post({ name: 'contract', scopes: ['read'] }), key: session }, { status: 200 });
    await api('/keys', { ...post({ name: 'contract', scopes: ['everything'] }), key: session }, { status: 400, code: 'validation_error' });
    const id = created.body.data!.key_id;
    const unknown = 'key_00000000000000000000000a';
    await api(`/keys/${id}`, { ...post({ monthly_spend_limit: 100 }), method: 'PATCH', key: session }, { status: 200 });
    await api(`/keys/${unknown}`, { ...post({ monthly_spend_limit: 100 }), method: 'PATCH', key: session }, { status: 404, code: 'not_found' });
    await api(`/keys/${id}`, { method: 'DELETE', key: session }, { status: 200 });
    await api(`/keys/${unknown}`, { method: 'DELETE', key: session }, { status: 404, code: 'not_found' });
    // Issue 36: the audit log of those changes, for the session; refused to a key, a bad cursor named.
    await api('/audit-events', { key: session }, { status: 200 });
    await api('/audit-events', { key }, { status: 403, code: 'forbidden' });
    await api('/audit-events?after=evt_1', { key: session }, { status: 400, code: 'validation_error' });
  });

  it('GET /usage: the report for a key, JSON or CSV; a bad range named (issue 34)', async () => {
    await api('/usage?group_by=end_user', { key }, { status: 200 });
    await api('/usage?from=2026-02-30', { key }, { status: 400, code: 'validation_error' });
    await api('/usage?group_by=colour', { key }, { status: 400, code: 'validation_error' });
  });

  it('GET /accounts: a signed-in holder only (issue 36)', async () => {
    const session = (await signedInHolder(stack)).accessToken;
    await api('/accounts', { key: session }, { status: 200 });
    await api('/accounts', { key }, { status: 403, code: 'forbidden' });
  });

  it('GET /account/members, PATCH and DELETE /account/members/{holder_id}: an owner or admin, an owner always left (issue 36)', async () => {
    const [owner, other] = [await signedInHolder(stack), await signedInHolder(stack)];
    const session = owner.accessToken;
    // Their first request records the holder.
    await api('/account', { key: other.accessToken });
    const own = (await api<{ account_id: string }>('/account', { key: session }, { status: 200 })).body.data!.account_id;
    await addMember(stack.context.team, { accountId: own, holderId: other.holderId, email: other.email, role: 'developer' }, OPERATOR_STAMP, stack.context.clock());
    await api('/account/members', { key: session }, { status: 200 });
    await api('/account/members', { key }, { status: 403, code: 'forbidden' });
    await api(`/account/members/${other.holderId}`, { ...post({ role: 'viewer' }), method: 'PATCH', key: session }, { status: 200 });
    await api(`/account/members/${owner.holderId}`, { ...post({ role: 'admin' }), method: 'PATCH', key: session }, { status: 409, code: 'last_owner' });
    await api(`/account/members/${other.holderId}`, { method: 'DELETE', key: session }, { status: 200 });
    await api(`/account/members/${other.holderId}`, { method: 'DELETE', key: session }, { status: 404, code: 'not_found' });
  });

  it('POST /account/members, DELETE /account/members/invitations/{invitation_id}, GET /invitations, POST /invitations/{invitation_id}/accept (issue 36)', async () => {
    const [owner, invitee] = [await signedInHolder(stack), await signedInHolder(stack)];
    await api('/account', { key: invitee.accessToken });
    const made = await api<{ invitation_id: string }>('/account/members', { ...post({ email: invitee.email, role: 'viewer' }), key: owner.accessToken }, { status: 200 });
    await api('/account/members', { ...post({ email: 'not an address', role: 'viewer' }), key: owner.accessToken }, { status: 400, code: 'validation_error' });
    await api('/invitations', { key: invitee.accessToken }, { status: 200 });
    await api('/invitations', { key }, { status: 403, code: 'forbidden' });
    await api('/invitations/inv_01M8EN2K7Q4R6T8V0X2Z4B6D8F/accept', { method: 'POST', key: invitee.accessToken }, { status: 404, code: 'not_found' });
    await api(`/invitations/${made.body.data!.invitation_id}/accept`, { method: 'POST', key: invitee.accessToken }, { status: 200 });
    const other = await api<{ invitation_id: string }>('/account/members', { ...post({ email: 'someone@example.com', role: 'viewer' }), key: owner.accessToken }, { status: 200 });
    await api(`/account/members/invitations/${other.body.data!.invitation_id}`, { method: 'DELETE', key: owner.accessToken }, { status: 200 });
    await api(`/account/members/invitations/${other.body.data!.invitation_id}`, { method: 'DELETE', key: owner.accessToken }, { status: 404, code: 'not_found' });
  });

  it('GET /billing, POST /billing/checkout, /billing/portal, /billing/test-credits and /billing/test-subscription (and its DELETE): a signed-in holder only', async () => {
    const session = (await signedInHolder(stack)).accessToken;
    await api('/billing', { key: session }, { status: 200 });
    await api('/billing', { key }, { status: 403, code: 'forbidden' });
    await api('/billing/checkout', { ...post({ pack_id: 'starter' }), key: session }, { status: 200 });
    await api('/billing/checkout', { ...post({ pack_id: 'huge' }), key: session }, { status: 400, code: 'validation_error' });
    await api('/billing/portal', { method: 'POST', key: session }, { status: 200 });
    await api('/billing/portal', { method: 'POST', key }, { status: 403, code: 'forbidden' });
    await api('/billing/test-credits', { method: 'POST', headers: { 'Vidgen-Mode': 'test' }, key: session }, { status: 200 });
    await api('/billing/test-credits', { method: 'POST', key: session }, { status: 400, code: 'validation_error' });
    await api('/billing/test-subscription', { method: 'POST', headers: { 'Vidgen-Mode': 'test' }, key: session }, { status: 200 });
    await api('/billing/test-subscription', { method: 'POST', key: session }, { status: 400, code: 'validation_error' });
    await api('/billing/test-subscription', { method: 'DELETE', headers: { 'Vidgen-Mode': 'test' }, key: session }, { status: 200 });
    await api('/billing/test-subscription', { method: 'DELETE', key }, { status: 403, code: 'forbidden' });
  });

  it("POST /billing/stripe-webhook: an event signed with the endpoint's secret, and an unsigned one", async () => {
    const headers = (signature?: string) => ({ 'Content-Type': 'application/json', ...(signature && { 'Stripe-Signature': signature }) });
    const received = await api('/billing/stripe-webhook', { method: 'POST', headers: headers(signStripe(IGNORED_STRIPE_EVENT)), body: IGNORED_STRIPE_EVENT }, { status: 200 });
    expect(received.body.data).toEqual({ received: true, result: 'ignored' });
    await api('/billing/stripe-webhook', { method: 'POST', headers: headers(), body: IGNORED_STRIPE_EVENT }, { status: 400, code: 'validation_error' });
  });

  it('POST /mcp: a JSON-RPC answer past the gateway, the envelope before it', async () => {
    const rpc = (body: unknown, as?: string) => ({
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
      ...(as && { key: as }),
    });
    const listed = await api<never>('/mcp', rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, key), { status: 200 });
    expect((listed.body as unknown as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
    await api('/mcp', rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { status: 401, code: 'unauthorized' });
  });

  it('GET and DELETE /mcp: 405 with Allow: POST, key or none', async () => {
    for (const method of ['GET', 'DELETE']) {
      const refused = await api('/mcp', { method, key }, { status: 405, code: 'method_not_allowed' });
      expect(refused.headers.get('allow')).toBe('POST');
      await api('/mcp', { method }, { status: 405, code: 'method_not_allowed' });
    }
  });

  it('answers 429 with Retry-After over the rate limit', async () => {
    await awaitRoomInWindow(5);
    await api('/credits', { key: tightKey }, { status: 200 });
    const refused = await api('/credits', { key: tightKey }, { status: 429, code: 'rate_limit_exceeded' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await api('/videos', { key: tightKey }, { status: 429, code: 'rate_limit_exceeded' });
  });

  it('GET /openapi.json, GET /docs and GET /docs/assets/{file}, without a key', async () => {
    const document = await raw('/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body).toEqual(buildOpenApiDocument({ serverUrl: stack.baseUrl }));
    expect(document.body.servers).toEqual([{ url: stack.baseUrl, description: expect.any(String) }]);

    const page = await raw('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.text).toContain(RENDERER_ASSET);

    const asset = await raw(`/docs/assets/${RENDERER_ASSET}`);
    expect([asset.status, asset.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
    expect(asset.text.length).toBeGreaterThan(500_000);
    const missing = await raw('/docs/assets/other.js');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
  });

  it('DELETE /videos/{video_id} and DELETE /images/{image_id}', async () => {
    const start = (path: string, body: unknown) =>
      api<Task>(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), key }, { status: 200 });
    const video = (await start('/generate', { prompt: 'sim:stall a fox to delete', duration: 3 })).body.data!.video_id!;
    const image = (await start('/generate-image', { prompt: 'sim:stall a kite to delete' })).body.data!.image_id!;
    for (const path of [`/videos/${video}`, `/images/${image}`]) {
      await api(path, { method: 'DELETE', key }, { status: 409, code: 'task_not_final' });
      await api(`${path}/cancel`, { method: 'POST', key }, { status: 200 });
      const deleted = await api<Task>(path, { method: 'DELETE', key }, { status: 200 });
      expect(deleted.body.data).toMatchObject({ status: 'failed', output_deleted_at: expect.any(String) });
    }
    await api('/videos/vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ', { method: 'DELETE', key }, { status: 404, code: 'not_found' });
    await api('/images/img_01M7ZP0E1WQ4R5N8B2C6D7F9GH', { method: 'DELETE', key }, { status: 404, code: 'not_found' });
  });

  it('answers a request that matches no operation with the gateway 404', async () => {
    await api('/nothing-here', { key }, { status: 404, code: 'not_found' });
    await api('/credits', { method: 'POST', key }, { status: 404, code: 'not_found' });
  });

  it('ran every documented operation for its success and at least one error', () => {
    const document = buildOpenApiDocument() as unknown as { paths: Record<string, Record<string, { operationId: string }>> };
    const missing: string[] = [];
    for (const item of Object.values(document.paths)) {
      for (const { operationId } of Object.values(item)) {
        const statuses = seen.get(operationId) ?? new Set<number>();
        // A method a route refuses (GET /mcp) has no success to run: its 405 is all.
        const refusal = [...statuses].join() === '405';
        if (!refusal && (!statuses.has(200) || ![...statuses].some((status) => status >= 400))) missing.push(`${operationId} [${[...statuses].join(', ')}]`);
      }
    }
    // The docs page and this document have no client error to provoke.
    expect(missing.filter((entry) => !/^(getDocsPage|getOpenApiDocument) /.test(entry))).toEqual([]);
  });
});

describe('the curl examples in the document', () => {
  it('run as written against the served document', async () => {
    const served = (await raw('/openapi.json')).body as {
      paths: Record<string, Record<string, { operationId: string; tags?: string[]; 'x-codeSamples': Array<{ source: string }> }>>;
    };
    writeFileSync(path.join(workDir, 'cat.png'), await png());
    const started = await api<Task>('/generate', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      // sim:stall: still processing when the cancel example runs.
      body: JSON.stringify({ prompt: 'sim:stall a fox for curl', duration: 3 }),
      key,
    });
    const image = await api<Task>('/generate-image', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: 'sim:stall a lighthouse for curl' }),
      key,
    });
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      KEY: key,
      ACCOUNT_ID: accountId,
      VIDEO_ID: started.body.data!.video_id!,
      IMAGE_ID: image.body.data!.image_id!,
      UPLOAD_ID: await directUpload(await png()),
      WEBHOOK_ID: (
        await api<{ webhook_id: string }>('/webhooks', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks' }),
          key,
        })
      ).body.data!.webhook_id,
    };
    const signedIn = await signedInHolder(stack);
    const holder = signedIn.accessToken;
    // A member of the holder's account for the members examples (issue 36): made a holder by their first request.
    const member = await signedInHolder(stack);
    await api('/account', { key: member.accessToken });
    const holderAccount = (await api<{ account_id: string }>('/account', { key: holder })).body.data!.account_id;
    await addMember(stack.context.team, { accountId: holderAccount, holderId: member.holderId, email: member.email, role: 'developer' }, OPERATOR_STAMP, stack.context.clock());
    // The invitations examples: one the holder sent (revoked last), one to the holder from the member's own account (accepted).
    const invitationFrom = async (token: string, email: string) =>
      (await api<{ invitation_id: string }>('/account/members', { ...post({ email, role: 'viewer' }), key: token })).body.data!.invitation_id;
    Object.assign(env, {
      SENT_INVITATION_ID: await invitationFrom(holder, 'pending@example.com'),
      INVITATION_ID: await invitationFrom(member.accessToken, signedIn.email),
      HOLDER_ID: member.holderId,
      SESSION_TOKEN: holder,
      KEY_ID: (await api<{ key_id: string }>('/keys', { ...post({ name: 'for curl' }), key: holder })).body.data!.key_id,
      EVENT_ID: (await api<{ events: Array<{ id: string }> }>('/events', { key })).body.data!.events[0]!.id,
    });
    writeFileSync(path.join(workDir, 'event.json'), IGNORED_STRIPE_EVENT);
    const run = promisify(execFile);
    // Deletions run last: the other examples use the webhook and the key they remove.
    const examples = Object.entries(served.paths)
      .flatMap(([template, item]) => Object.entries(item).map(([method, operation]) => ({ template, method, operation })))
      .sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));
    for (const { template, method, operation } of examples) {
      const [sample] = operation['x-codeSamples'];
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', sample!.source], { cwd: workDir, env, maxBuffer: 8 * 1024 * 1024 });
      const output = /-o (\S+)$/.exec(sample!.source)?.[1];
      if (output) {
        expect([template, existsSync(path.join(workDir, output)) && statSync(path.join(workDir, output)).size > 1000]).toEqual([template, true]);
        continue;
      }
      const body = JSON.parse(stdout);
      if (template === '/openapi.json') expect(body.openapi).toBe('3.1.0');
      // Internal routes are called by providers and Stripe: unsigned, as curl sends it, the example is refused.
      // Stripe's signature fails as a malformed request (400), a provider's as a credential (401).
      else if (operation.tags?.includes('Internal')) expect([template, body.error?.code]).toEqual([template, template.includes('stripe') ? 'validation_error' : 'unauthorized']);
      // The MCP endpoint answers in JSON-RPC, not the envelope; the methods it refuses, 405.
      else if (template === '/mcp' && method !== 'post') expect([method, body.error?.code]).toEqual([method, 'method_not_allowed']);
      else if (template === '/mcp') expect([template, body.jsonrpc, body.result === undefined]).toEqual([template, '2.0', false]);
      else expect([template, body.error]).toEqual([template, null]);
    }
    expect(readFileSync(path.join(workDir, 'api-reference.html'), 'utf8')).toContain('<div id="redoc">');
  });
});
