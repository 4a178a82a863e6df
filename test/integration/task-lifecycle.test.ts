import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import sharp from 'sharp';
import type { AddressInfo } from 'node:net';
import { buildAppContext, type AppContext } from '#app-context';
import { paginationView } from '#contract/pagination';
import { ObjectStorage } from '#adapters/s3/object-storage';
import { createS3Client } from '#adapters/s3/s3-client';
import { createSafeFetcher } from '#adapters/safe-fetch';
import { InProcessCopyQueue } from '#adapters/copy-queues';
import { createAccount } from '#domain/accounts/account-admin';
import { move } from '#domain/tasks/transitions';
import { cancelTask } from '#domain/tasks/cancel-task';
import {
  InsufficientCreditsError,
  IdempotencyConflictError,
  NotFoundError,
  PaidAccessRequiredError,
  SpendLimitExceededError,
  UpstreamError,
} from '#domain/shared/errors';
import { getTask } from '#domain/tasks/get-task';
import { ledgerSum } from '#domain/accounts/ledger';
import { listTasks } from '#domain/tasks/list-tasks';
import { applyOutcome } from '#domain/tasks/lifecycle/outcomes';
import { copyRequested } from '#domain/tasks/lifecycle/outputs';
import { ProviderUnavailableError } from '#domain/providers/provider';
import { startTask, type StartDeps, type StartRequest } from '#domain/tasks/start-task';
import { sweep } from '#domain/tasks/sweep';
import { failTask } from '#domain/tasks/lifecycle/endings';
import type { VideoParams } from '#domain/catalogue/params';
import { ScriptedProvider } from '#test-support/scripted-provider';
import { createTestDb, dropTestDb, testConfig } from '#test-support/test-db';
import { inspectMp4 } from '#test-support/mp4';
import { SAMPLES_SOURCE_DIR } from '#providers/simulated/sample-outputs';

/** A history page as the API lists it: the tasks and the pagination block. */
type ListArgs = Parameters<typeof listTasks>;
async function historyPage(...args: [ListArgs[0], ListArgs[1], ListArgs[2], ListArgs[3], ListArgs[4]]) {
  const page = await listTasks(...args, new Date());
  return { tasks: page.items, pagination: paginationView(page) };
}

const VIDEO: VideoParams = {
  model: 'vid-1-5-pro',
  generationType: 'text_to_video',
  prompt: 'a lighthouse at dusk',
  aspectRatio: '16:9',
  duration: 5,
  resolution: '720p',
};
const request = (params: Partial<VideoParams> = {}): StartRequest => ({ kind: 'video', params: { ...VIDEO, ...params } });

let ctx: AppContext;
let provider: ScriptedProvider;
let deps: StartDeps;
let now: Date;
let files: http.Server;
let filesUrl: string;
const OUTPUT_BYTES = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(50_000, 7)]);
const PNG_BYTES = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.alloc(1_000, 1)]);

beforeAll(async () => {
  const db = await createTestDb();
  db.doc.destroy();
  provider = new ScriptedProvider();
  ctx = buildAppContext(testConfig(db.tableName), { provider });
  // A stand-in for the provider's file host: serves one output, 404 for everything else.
  files = http.createServer((req, res) => {
    if (req.url === '/out.mp4') {
      res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': OUTPUT_BYTES.length });
      res.end(OUTPUT_BYTES);
    } else if (req.url === '/page.mp4') {
      // Named and labelled as a video; its bytes are a web page.
      res.writeHead(200, { 'Content-Type': 'video/mp4' });
      res.end('<!doctype html><html><body>not a video</body></html>');
    } else if (req.url === '/pic.png') {
      res.writeHead(200, { 'Content-Type': 'image/png' });
      res.end(PNG_BYTES);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});

beforeEach(() => {
  provider = new ScriptedProvider();
  now = new Date();
  deps = { ...ctx.lifecycle, provider, clock: () => now };
});

afterAll(async () => {
  await (ctx.copyQueue as InProcessCopyQueue).drain();
  await new Promise((resolve) => files.close(resolve));
  await dropTestDb(ctx.db);
});

async function newAccount(credits: number) {
  const { account } = await createAccount(ctx, { credits });
  return account.accountId;
}

async function money(accountId: string) {
  const account = await ctx.accounts.get(accountId);
  const entries = await ctx.ledger.listForAccount(accountId);
  return { balance: account!.credits, ledger: ledgerSum(entries), entries };
}

describe('starting a task', () => {
  it('charges, creates and submits in that order, and the ledger matches the balance', async () => {
    const accountId = await newAccount(100);
    const task = await startTask(deps, accountId, request());
    expect(task).toMatchObject({ status: 'processing', creditsUsed: 25, seq: 1, provider: { name: 'scripted', jobId: 'job_1' } });
    expect(provider.submits).toEqual([expect.objectContaining({ kind: 'video', taskId: task.taskId, prompt: VIDEO.prompt })]);
    expect(await money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
  });

  it('refuses with too few credits and writes nothing', async () => {
    const accountId = await newAccount(24);
    await expect(startTask(deps, accountId, request())).rejects.toBeInstanceOf(InsufficientCreditsError);
    expect(await money(accountId)).toMatchObject({ balance: 24, ledger: 24 });
    expect((await historyPage(ctx, accountId, 'video', 1, 20)).pagination.total).toBe(0);
    expect(provider.submits).toHaveLength(0);
  });

  it.each([
    ['refused', async () => ({ type: 'rejected' as const, code: 'upstream_error' as const, message: 'bad input' })],
    ['unreachable', async () => Promise.reject(new ProviderUnavailableError('503'))],
  ])('fails and refunds exactly once when the provider is %s at submission', async (_, answer) => {
    provider.onSubmit(answer);
    const accountId = await newAccount(100);
    await expect(startTask(deps, accountId, request())).rejects.toBeInstanceOf(UpstreamError);
    const { tasks } = await historyPage(ctx, accountId, 'video', 1, 20);
    expect(tasks).toEqual([expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code: 'upstream_error' }) })]);
    const after = await money(accountId);
    expect(after).toMatchObject({ balance: 100, ledger: 100 });
    expect(after.entries.map((entry) => entry.kind).sort()).toEqual(['charge', 'grant', 'refund']);
  });

  it('gives every one of many concurrent tasks its own history position, with no gaps', async () => {
    const accountId = await newAccount(1000);
    const tasks = await Promise.all(Array.from({ length: 15 }, () => startTask(deps, accountId, request({ duration: 3 }))));
    expect(tasks.map((task) => task.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(await money(accountId)).toMatchObject({ balance: 1000 - 15 * 15, ledger: 1000 - 15 * 15 });
  });
});

describe("a key's monthly spend limit", () => {
  const spent = async (keyId: string, month: string) => (await ctx.apiKeys.spentInMonth([keyId], month)).get(keyId) ?? 0;

  it('refuses the start that would pass it (nothing charged), gives room back on a refund, and starts again at zero next month', async () => {
    const accountId = await newAccount(1000);
    const key = { keyId: 'key_spend_month', monthlySpendLimit: 60 };
    now = new Date('2026-11-30T23:59:00.000Z');
    const first = await startTask(deps, accountId, request(), undefined, key);
    await startTask(deps, accountId, request(), undefined, key);
    const refused = await startTask(deps, accountId, request(), undefined, key).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SpendLimitExceededError);
    expect((refused as Error).message).toBe(
      "This request costs 25 credits; this API key's monthly spend limit is 60 credits and it has 10 left this month (the month is UTC).",
    );
    expect(await money(accountId)).toMatchObject({ balance: 950, ledger: 950 });
    // A refund gives its month the room back.
    await cancelTask(deps, accountId, 'video', first.taskId);
    expect(await spent(key.keyId, '2026-11')).toBe(25);
    await startTask(deps, accountId, request(), undefined, key);
    expect(await spent(key.keyId, '2026-11')).toBe(50);
    // A new month (UTC) starts at zero.
    now = new Date('2026-12-01T00:00:00.000Z');
    await startTask(deps, accountId, request(), undefined, key);
    await startTask(deps, accountId, request(), undefined, key);
    expect([await spent(key.keyId, '2026-11'), await spent(key.keyId, '2026-12')]).toEqual([50, 50]);
  });

  it('is checked after paid access and before the balance', async () => {
    const accountId = await newAccount(10);
    const key = { keyId: 'key_spend_order', monthlySpendLimit: 20 };
    await expect(startTask(deps, accountId, { kind: 'image', params: { model: 'image-2', prompt: 'p', resolution: '1k', aspectRatio: '1:1', outputFormat: 'png' } }, undefined, key)).rejects.toBeInstanceOf(
      PaidAccessRequiredError,
    );
    // Over the limit and over the balance: the limit answers; within the limit: the balance does.
    await expect(startTask(deps, accountId, request(), undefined, key)).rejects.toBeInstanceOf(SpendLimitExceededError);
    await expect(startTask(deps, accountId, request({ duration: 3 }), undefined, key)).rejects.toBeInstanceOf(InsufficientCreditsError);
    expect(await spent(key.keyId, now.toISOString().slice(0, 7))).toBe(0);
    expect(await money(accountId)).toMatchObject({ balance: 10, ledger: 10 });
  });

  it("counts a key's spend without a limit, and a session's starts in no key", async () => {
    const accountId = await newAccount(100);
    await startTask(deps, accountId, request(), undefined, { keyId: 'key_spend_free' });
    await startTask(deps, accountId, request());
    expect(await spent('key_spend_free', now.toISOString().slice(0, 7))).toBe(25);
  });
});

describe('idempotency', () => {
  it('answers a repeat with the first task and charges once; another body under the key is a conflict', async () => {
    const accountId = await newAccount(100);
    const first = await startTask(deps, accountId, request(), 'key-1');
    const again = await startTask(deps, accountId, request(), 'key-1');
    expect(again.taskId).toBe(first.taskId);
    await expect(startTask(deps, accountId, request({ duration: 6 }), 'key-1')).rejects.toBeInstanceOf(IdempotencyConflictError);
    expect(await money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
    expect(provider.submits).toHaveLength(1);
  });

  it('charges once for 12 concurrent retries with one key', async () => {
    const accountId = await newAccount(100);
    const tasks = await Promise.all(Array.from({ length: 12 }, () => startTask(deps, accountId, request(), 'same-key')));
    expect(new Set(tasks.map((task) => task.taskId)).size).toBe(1);
    expect(await money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
    expect((await historyPage(ctx, accountId, 'video', 1, 20)).pagination.total).toBe(1);
  });

  it('replays a failed submission as the same 502, without a second charge', async () => {
    provider.onSubmit(async () => ({ type: 'rejected', code: 'upstream_error', message: 'no' }));
    const accountId = await newAccount(100);
    await expect(startTask(deps, accountId, request(), 'k')).rejects.toBeInstanceOf(UpstreamError);
    await expect(startTask(deps, accountId, request(), 'k')).rejects.toBeInstanceOf(UpstreamError);
    expect(provider.submits).toHaveLength(1);
    expect(await money(accountId)).toMatchObject({ balance: 100, ledger: 100 });
  });

  it('lets a key be used again once its 24 hours are over', async () => {
    const accountId = await newAccount(100);
    const dayAgo = new Date(Date.now() - 24 * 60 * 60_000 - 500);
    const first = await startTask({ ...deps, clock: () => dayAgo }, accountId, request(), 'old-key');
    const second = await startTask({ ...deps, clock: () => new Date() }, accountId, request(), 'old-key');
    expect(second.taskId).not.toBe(first.taskId);
    expect((await money(accountId)).balance).toBe(50);
  });

  it('keeps keys apart per account', async () => {
    const [a, b] = await Promise.all([newAccount(100), newAccount(100)]);
    const first = await startTask(deps, a, request(), 'shared');
    const second = await startTask(deps, b, request({ duration: 3 }), 'shared');
    expect(second.taskId).not.toBe(first.taskId);
  });
});

describe('polling', () => {
  it("answers another account's task and the other kind as not found", async () => {
    const [owner, stranger] = await Promise.all([newAccount(100), newAccount(100)]);
    const task = await startTask(deps, owner, request());
    await expect(getTask(deps, stranger, 'video', task.taskId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(getTask(deps, owner, 'image', task.taskId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(getTask(deps, owner, 'video', 'vid_nope')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('asks the provider at most once per 2 s, and a failed check changes nothing', async () => {
    const accountId = await newAccount(100);
    const task = await startTask(deps, accountId, request());
    now = new Date(now.getTime() + 5_000);
    provider.onFetch(async () => Promise.reject(new ProviderUnavailableError('timeout')));
    expect((await getTask(deps, accountId, 'video', task.taskId)).status).toBe('processing');
    expect((await getTask(deps, accountId, 'video', task.taskId)).status).toBe('processing');
    expect(provider.fetches).toBe(1);
    now = new Date(now.getTime() + 2_001);
    await getTask(deps, accountId, 'video', task.taskId);
    expect(provider.fetches).toBe(2);
  });

  it('refunds exactly once when many concurrent polls see the task fail', async () => {
    const accountId = await newAccount(100);
    const task = await startTask(deps, accountId, request());
    provider.onFetch(async () => ({ type: 'failed', code: 'content_rejected', message: 'flagged' }));
    const racing = { ...deps, settings: { ...deps.settings, checkIntervalMs: 0 } };
    let tick = 0;
    racing.clock = () => new Date(now.getTime() + 10_000 + (tick += 1));
    const results = await Promise.all(Array.from({ length: 20 }, () => getTask(racing, accountId, 'video', task.taskId)));
    expect(results.some((result) => result.status === 'failed')).toBe(true);
    const after = await money(accountId);
    expect(after.entries.filter((entry) => entry.kind === 'refund')).toHaveLength(1);
    expect(after).toMatchObject({ balance: 100, ledger: 100 });
    const final = await ctx.tasks.get(accountId, task.taskId);
    // Our words for the code, not the provider's text.
    expect(final).toMatchObject({ status: 'failed', error: { code: 'content_rejected', message: expect.stringContaining('content policy') } });
    expect(final?.error?.message).not.toContain('flagged');
  });

  it('refunds exactly once when 25 callers fail the same task at the same moment', async () => {
    const accountId = await newAccount(100);
    const task = await startTask(deps, accountId, request());
    await Promise.all(
      Array.from({ length: 25 }, () => failTask(deps, task, { code: 'upstream_error', message: 'boom' })),
    );
    const after = await money(accountId);
    expect(after.entries.filter((entry) => entry.kind === 'refund')).toHaveLength(1);
    expect(after.balance).toBe(100);
  });

  it('keeps the task processing until our copy exists, then serves our URL', async () => {
    // The provider's file host is on loopback here, so the downloader must allow its origin.
    const { openStream } = createSafeFetcher({ allowedOrigins: [filesUrl], maxBytes: 10 * 1024 * 1024, timeoutMs: 5_000 });
    const storage = new ObjectStorage(createS3Client({ region: 'local', endpoint: process.env.TEST_S3_ENDPOINT! }), ctx.storage.bucket, ctx.storage.publicBaseUrl, openStream);
    deps = { ...deps, media: storage };
    const copier = new InProcessCopyQueue((req) => copyRequested(deps, req));
    deps = { ...deps, copyQueue: copier };
    const accountId = await newAccount(100);
    const task = await startTask(deps, accountId, request());
    provider.onFetch(async () => ({ type: 'completed', outputUrls: [`${filesUrl}/out.mp4`] }));
    now = new Date(now.getTime() + 5_000);
    const polled = await getTask(deps, accountId, 'video', task.taskId);
    expect(polled.status).toBe('processing');
    await copier.drain();
    const done = await getTask(deps, accountId, 'video', task.taskId);
    expect(done.status).toBe('completed');
    expect(done.outputUrls).toEqual([`http://127.0.0.1:1/media/videos/${task.taskId}.mp4`]);
    const stored = await ctx.storage.getBytes(`videos/${task.taskId}.mp4`);
    expect(stored?.equals(OUTPUT_BYTES)).toBe(true);
    expect(await money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
  });

  it('refuses to download a provider output from a private address', async () => {
    const accountId = await newAccount(100);
    const task = await startTask(deps, accountId, request());
    provider.onFetch(async () => ({ type: 'completed', outputUrls: [`${filesUrl}/out.mp4`] }));
    now = new Date(now.getTime() + 5_000);
    await getTask(deps, accountId, 'video', task.taskId);
    await (ctx.copyQueue as InProcessCopyQueue).drain();
    expect(await ctx.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'processing', copyAttempts: 1 });
    expect(await ctx.storage.getBytes(`videos/${task.taskId}.mp4`)).toBeUndefined();
  });

  it('never touches a final task again, not even its copy counter', async () => {
    const accountId = await newAccount(100);
    const task = await startTask(deps, accountId, request());
    const failed = await failTask(deps, task, { code: 'upstream_error', message: 'x' });
    expect(await move(ctx.tasks, task, 'copyFailed', { countCopyFailure: true })).toBeUndefined();
    expect(await ctx.tasks.get(accountId, task.taskId)).toEqual(failed);
  });

  it('answers with the stored state when the provider check throws something unexpected', async () => {
    const accountId = await newAccount(100);
    const task = await startTask(deps, accountId, request());
    provider.onFetch(async () => {
      throw new TypeError('provider adapter bug');
    });
    now = new Date(now.getTime() + 5_000);
    expect(await getTask(deps, accountId, 'video', task.taskId)).toMatchObject({ status: 'processing' });
  });

  /** A storage whose downloader may reach the stand-in file host (as OUTPUT_ALLOWED_ORIGINS allows a fake provider's). */
  function withFileHost(): void {
    const { openStream } = createSafeFetcher({ allowedOrigins: [filesUrl], maxBytes: 10 * 1024 * 1024, timeoutMs: 5_000 });
    const storage = new ObjectStorage(createS3Client({ region: 'local', endpoint: process.env.TEST_S3_ENDPOINT! }), ctx.storage.bucket, ctx.storage.publicBaseUrl, openStream);
    deps = { ...deps, media: storage };
    deps = { ...deps, copyQueue: new InProcessCopyQueue((req) => copyRequested(deps, req)) };
  }

  /** Starts a task, has the provider report `outputUrl` as its result, and lets the copy run. */
  async function completedWith(outputUrl: string, start: StartRequest = request()) {
    const { account } = await createAccount(ctx, { credits: 100, paidAccess: true, subscriptionStatus: 'active' });
    const accountId = account.accountId;
    const task = await startTask(deps, accountId, start);
    provider.onFetch(async () => ({ type: 'completed', outputUrls: [outputUrl] }));
    now = new Date(now.getTime() + 5_000);
    await getTask(deps, accountId, task.kind, task.taskId);
    await (deps.copyQueue as InProcessCopyQueue).drain();
    return { accountId, task: (await ctx.tasks.get(accountId, task.taskId))!, result: task.kind === 'video' ? `videos/${task.taskId}.mp4` : `images/${task.taskId}-1.png` };
  }
  const IMAGE_REQUEST: StartRequest = { kind: 'image', params: { model: 'image-2', prompt: 'a red kite', resolution: '1k', aspectRatio: '1:1', outputFormat: 'png' } };

  it.each([
    ['an incoming upload', 'incoming/up_01M7ZNHRE3YZJA4Y3XQS4DQDGQ.mp4'],
    ["the simulated provider's job state", 'provider-sim/jobs/sim_01M7ZNHRE3YZJA4Y3XQS4DQDGQ.json'],
    ["another account's result", 'videos/vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ.mp4'],
  ])('refuses an output that names our own storage outside a provider output folder (%s): failed and refunded at once, nothing copied', async (_, key) => {
    await ctx.storage.put(key, OUTPUT_BYTES, 'video/mp4');
    const { accountId, task, result } = await completedWith(ctx.storage.publicUrl(key));
    expect(task).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
    expect(task.outputUrls).toBeUndefined();
    expect(await ctx.storage.getBytes(result)).toBeUndefined();
    expect(await money(accountId)).toMatchObject({ balance: 100, ledger: 100 });
  });

  it('refuses an output on our own origin that names no object (the API itself)', async () => {
    const { task } = await completedWith('http://127.0.0.1:1/api/v1/videos');
    expect(task).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
  });

  it("copies an output from the simulated provider's output folder in our own bucket", async () => {
    await ctx.storage.put('provider-sim/outputs/sim_01M7ZNHRE3YZJA4Y3XQS4DQDGR.mp4', OUTPUT_BYTES, 'video/mp4');
    const { task, result } = await completedWith(ctx.storage.publicUrl('provider-sim/outputs/sim_01M7ZNHRE3YZJA4Y3XQS4DQDGR.mp4'));
    expect(task.status).toBe('completed');
    expect((await ctx.storage.getBytes(result))?.equals(OUTPUT_BYTES)).toBe(true);
  });

  it('completes an undecodable video without a thumbnail (a thumbnail failure never fails the task)', async () => {
    await ctx.storage.put('provider-sim/outputs/sim_01M7ZNHRE3YZJA4Y3XQS4DQDGS.mp4', OUTPUT_BYTES, 'video/mp4');
    const { accountId, task, result } = await completedWith(ctx.storage.publicUrl('provider-sim/outputs/sim_01M7ZNHRE3YZJA4Y3XQS4DQDGS.mp4'));
    expect(task.status).toBe('completed');
    expect(task.thumbnailUrl).toBeUndefined();
    expect(await ctx.storage.getBytes(result.replace(/\.mp4$/, '.jpg'))).toBeUndefined();
    expect(await money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
  });

  it("stores a video's first frame as a JPEG of its size next to it, served like the video", async () => {
    const sample = readFileSync(path.join(SAMPLES_SOURCE_DIR, 'sample-video-16x9.mp4'));
    await ctx.storage.put('provider-sim/outputs/sim_01M7ZNHRE3YZJA4Y3XQS4DQDGT.mp4', sample, 'video/mp4');
    const { task } = await completedWith(ctx.storage.publicUrl('provider-sim/outputs/sim_01M7ZNHRE3YZJA4Y3XQS4DQDGT.mp4'));
    expect(task.status).toBe('completed');
    expect(task.thumbnailUrl).toBe(ctx.storage.publicUrl(`videos/${task.taskId}.jpg`));
    const jpeg = (await ctx.storage.getBytes(`videos/${task.taskId}.jpg`))!;
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const { width, height } = inspectMp4(sample);
    expect(await sharp(jpeg).metadata()).toMatchObject({ format: 'jpeg', width, height });
  });

  it.each([
    ['a web page for a video task', '/page.mp4', undefined],
    ['an image for a video task', '/pic.png', undefined],
    ['a video for an image task', '/out.mp4', IMAGE_REQUEST],
  ])('refuses an output whose bytes are not the media the task makes (%s): failed and refunded at once, nothing copied', async (_, path, start) => {
    withFileHost();
    const { accountId, task, result } = await completedWith(`${filesUrl}${path}`, start);
    expect(task).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
    expect(await ctx.storage.getBytes(result)).toBeUndefined();
    expect(await money(accountId)).toMatchObject({ balance: 100, ledger: 100 });
  });

  it('copies a downloaded image for an image task, every byte', async () => {
    withFileHost();
    const { task, result } = await completedWith(`${filesUrl}/pic.png`, IMAGE_REQUEST);
    expect(task.status).toBe('completed');
    expect((await ctx.storage.getBytes(result))?.equals(PNG_BYTES)).toBe(true);
  });

  it('copies each of a burst of 20 completions once, however often the copy is asked for while it runs, and every video gets its thumbnail', async () => {
    // CopyObject calls per destination key (s3rver's CopyObject onto an existing key unlinks it
    // first, so a second copy under way hides the video from the first copy's thumbnail).
    const copies = new Map<string, number>();
    const s3 = createS3Client({ region: 'local', endpoint: process.env.TEST_S3_ENDPOINT! });
    s3.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'CopyObjectCommand') {
          const key = (args.input as { Key: string }).Key;
          copies.set(key, (copies.get(key) ?? 0) + 1);
        }
        return next(args);
      },
      { step: 'initialize' },
    );
    // The copy worker's deps: thumbnails are made there alone.
    const burst = { ...deps, thumbnails: ctx.copyWorker.thumbnails, media: new ObjectStorage(s3, ctx.storage.bucket, ctx.storage.publicBaseUrl) };
    const worker = new InProcessCopyQueue((req) => copyRequested(burst, req));
    burst.copyQueue = worker;

    const sample = readFileSync(path.join(SAMPLES_SOURCE_DIR, 'sample-video-16x9.mp4'));
    const accountId = await newAccount(1_000);
    const started = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const task = await startTask(burst, accountId, request({ duration: 3, resolution: '480p' }));
        const output = `provider-sim/outputs/sim_burst_${task.taskId}.mp4`;
        await ctx.storage.put(output, sample, 'video/mp4');
        return { task: (await ctx.tasks.get(accountId, task.taskId))!, outputUrl: ctx.storage.publicUrl(output) };
      }),
    );
    // The completions arrive together; each asks the copy worker, and the sweeper asks again
    // while those copies run (it re-asks for every task whose outputs are still pending).
    await Promise.all(
      started.map(async ({ task, outputUrl }) => {
        await applyOutcome(burst, task, { type: 'completed', outputUrls: [outputUrl] });
        await copyRequested(burst, { accountId, taskId: task.taskId });
      }),
    );
    await worker.drain();
    s3.destroy();

    const finals = await Promise.all(started.map(({ task }) => ctx.tasks.get(accountId, task.taskId)));
    expect(finals.map((task) => [task!.status, task!.thumbnailUrl])).toEqual(
      started.map(({ task }) => ['completed', ctx.storage.publicUrl(`videos/${task.taskId}.jpg`)]),
    );
    expect(started.map(({ task }) => copies.get(`videos/${task.taskId}.mp4`))).toEqual(Array(20).fill(1));
  }, 180_000);

  it('retries a failed copy and gives up into failed + refund after the bound', async () => {
    const accountId = await newAccount(100);
    const task = await startTask(deps, accountId, request());
    provider.onFetch(async () => ({ type: 'completed', outputUrls: [`${filesUrl}/gone.mp4`] }));
    now = new Date(now.getTime() + 5_000);
    await getTask(deps, accountId, 'video', task.taskId);
    await (ctx.copyQueue as InProcessCopyQueue).drain();
    const afterOne = await ctx.tasks.get(accountId, task.taskId);
    expect(afterOne).toMatchObject({ status: 'processing', copyAttempts: 1 });
    for (let run = 0; run < deps.settings.maxCopyAttempts; run += 1) {
      await sweep(deps); // asks the copy worker again...
      await (ctx.copyQueue as InProcessCopyQueue).drain(); // ...which fails again
    }
    const final = await ctx.tasks.get(accountId, task.taskId);
    expect(final).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
    expect(await money(accountId)).toMatchObject({ balance: 100, ledger: 100 });
    // Sweeps in a row, each reading every phase's in-flight lists: minutes on a loaded 2-core
    // machine. The sweeper's speed is bench:scale's figure, not this test's.
  }, 180_000);
});

describe('the sweeper', () => {
  it('fails and refunds, after the grace, a task whose create may have been sent (an error inside the provider call)', async () => {
    provider.onSubmit(async () => {
      throw new Error('process crashed while submitting');
    });
    const accountId = await newAccount(100);
    await expect(startTask(deps, accountId, request())).resolves.toMatchObject({ status: 'processing' });
    const [lost] = (await historyPage(ctx, accountId, 'video', 1, 1)).tasks;
    expect(lost).toMatchObject({ status: 'processing' });
    expect(lost!.provider).toBeUndefined();
    expect((await money(accountId)).balance).toBe(75);

    await sweep(deps); // within the grace period: left alone
    expect((await ctx.tasks.get(accountId, lost!.taskId))?.status).toBe('processing');
    now = new Date(now.getTime() + deps.settings.submissionGraceMs + 1_000);
    await sweep(deps);
    expect(await ctx.tasks.get(accountId, lost!.taskId)).toMatchObject({ status: 'failed', error: { code: 'internal_error' } });
    expect(await money(accountId)).toMatchObject({ balance: 100, ledger: 100 });
  });

  it('leaves a task alone whose submission was recorded late, after the sweeper listed it', async () => {
    provider.onSubmit(async () => {
      throw new Error('slow submit crashed the request');
    });
    const accountId = await newAccount(100);
    await expect(startTask(deps, accountId, request())).resolves.toMatchObject({ status: 'processing' });
    const [task] = (await historyPage(ctx, accountId, 'video', 1, 1)).tasks;
    // The submission lands after all (another instance finished it).
    const late = { at: new Date().toISOString(), set: { provider: { name: 'scripted', jobId: 'late' } }, guard: { jobId: 'late' } };
    expect(await move(ctx.tasks, task!, 'accept', late)).toMatchObject({ phase: 'running' });
    now = new Date(now.getTime() + deps.settings.submissionGraceMs + 1_000);
    await sweep(deps);
    expect((await ctx.tasks.get(accountId, task!.taskId))?.status).toBe('processing');
    expect((await money(accountId)).balance).toBe(75);
  });

  it('times out a task still processing after 30 minutes, refunding once however often it runs', async () => {
    const accountId = await newAccount(100);
    const task = await startTask(deps, accountId, request());
    now = new Date(now.getTime() + 30 * 60_000 + 1_000);
    await sweep(deps);
    await sweep(deps);
    expect(await ctx.tasks.get(accountId, task.taskId)).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
    const after = await money(accountId);
    expect(after.entries.filter((entry) => entry.kind === 'refund')).toHaveLength(1);
    expect(after.balance).toBe(100);
  });

  it('refreshes tasks nobody polls', async () => {
    const accountId = await newAccount(100);
    const task = await startTask(deps, accountId, request());
    provider.onFetch(async () => ({ type: 'failed', code: 'upstream_error', message: 'died' }));
    now = new Date(now.getTime() + 60_000);
    await sweep(deps);
    expect((await ctx.tasks.get(accountId, task.taskId))?.status).toBe('failed');
  });
});

describe('history pages', () => {
  it('are newest first, exact, and empty past the end', async () => {
    const accountId = await newAccount(1000);
    const started = [];
    for (let i = 0; i < 7; i += 1) started.push(await startTask(deps, accountId, request({ prompt: `task ${i}` })));
    const page1 = await historyPage(ctx, accountId, 'video', 1, 3);
    expect(page1.tasks.map((task) => task.params.prompt)).toEqual(['task 6', 'task 5', 'task 4']);
    expect(page1.pagination).toEqual({ page: 1, limit: 3, total: 7, total_pages: 3, has_more: true });
    const page3 = await historyPage(ctx, accountId, 'video', 3, 3);
    expect(page3.tasks.map((task) => task.params.prompt)).toEqual(['task 0']);
    expect(page3.pagination.has_more).toBe(false);
    expect((await historyPage(ctx, accountId, 'video', 4, 3)).tasks).toEqual([]);
    expect((await historyPage(ctx, accountId, 'image', 1, 3)).pagination.total).toBe(0);
  });
});
