import http from 'node:http';
import fc from 'fast-check';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { ledgerSum } from '#domain/accounts/ledger';
import { ROUTES } from '#http/routes/index';
import { call, startTestApi } from '#test-support/local-api';
import {
  answerProblem,
  describeRequest,
  fuzzCase,
  KNOWN_BUG_EMPTY_DIRECT_UPLOAD,
  send,
  TINY_PNG,
  toWire,
  type FuzzCase,
  type Pools,
  type Route,
} from '#test-support/route-fuzz';

/**
 * Property-based fuzz over every route of the route table, over real HTTP against the local
 * stack: generated bodies, headers, queries, path parameters and methods never get a 5xx or an
 * answer outside the envelope (with X-Request-Id), never charge and never create a task.
 *
 * Phase 1 uses an account with zero credits and no paid access, so even a valid request cannot
 * charge. Phase 2 uses a funded account with paid access and sends only invalid bodies.
 * A failure prints fast-check's seed and the shrunk request; FUZZ_SEED=<seed> replays a run.
 */
jest.setTimeout(180_000);

/**
 * Requests per phase: sized to take well under a minute in all on a loaded 2-core machine.
 * FUZZ_RUNS=<n> runs a longer hunt (n cases, and n/2 with invalid bodies).
 */
const RUNS = process.env.FUZZ_RUNS
  ? { anyInput: Number(process.env.FUZZ_RUNS), invalidBodies: Math.ceil(Number(process.env.FUZZ_RUNS) / 2) }
  : { anyInput: 400, invalidBodies: 200 };
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

let stack: LocalStack;
let agent: http.Agent;
const pools: Pools = { ids: [] };

interface Subject {
  accountId: string;
  key: string;
}

async function subject(credits: number, paid: boolean): Promise<Subject> {
  const { account } = await createAccount(stack.context, {
    credits,
    ...(paid && { paidAccess: true, subscriptionStatus: 'active' as const }),
  });
  // Far above the default 60/min: the fuzz sends hundreds of requests a minute with this key.
  const key = await createApiKey(stack.context, account.accountId, { rateLimit: 1_000_000 });
  return { accountId: account.accountId, key: key.apiKey };
}

/** A direct upload of `owner`, with `bytes` posted to its presigned form (or nothing posted). */
async function directUpload(owner: Subject, bytes?: Buffer): Promise<string> {
  const created = await call<{ upload_id: string; upload_url: string; fields: Record<string, string> }>(
    stack.baseUrl,
    '/uploads',
    { method: 'POST', key: owner.key },
  );
  const { upload_id, upload_url, fields } = created.body.data!;
  if (bytes) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([bytes]));
    const stored = await fetch(upload_url, { method: 'POST', body: form });
    expect(stored.status).toBeLessThan(300);
  }
  return upload_id;
}

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated' });
  agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  // Real ids for path parameters: another account's tasks and uploads (404 for the fuzz
  // accounts), uploads of the fuzz accounts themselves are added as phases create them.
  const other = await subject(1000, true);
  const video = await call<{ video_id: string }>(stack.baseUrl, '/generate', {
    method: 'POST',
    key: other.key,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ prompt: 'a fox', duration: 3, resolution: '480p' }),
  });
  const image = await call<{ image_id: string }>(stack.baseUrl, '/generate-image', {
    method: 'POST',
    key: other.key,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ prompt: 'a lighthouse' }),
  });
  pools.ids.push(video.body.data!.video_id, image.body.data!.image_id, await directUpload(other, TINY_PNG));
});
afterAll(async () => {
  agent?.destroy();
  await stack?.stop();
});

interface PhaseFigures {
  cases: number;
  /** Answers by status and error code. */
  statuses: Record<string, number>;
  perRoute: Map<Route, number>;
  ms: number;
}

async function runPhase(who: Subject, invalidOnly: boolean, numRuns: number): Promise<PhaseFigures> {
  // The subject's own uploads: one complete (a PNG), one refused (not an image), one never
  // posted, and (once issue 13 bug 5 is fixed) an empty one.
  pools.ids.push(
    await directUpload(who, TINY_PNG),
    await directUpload(who, Buffer.from('not an image')),
    await directUpload(who),
  );
  if (!KNOWN_BUG_EMPTY_DIRECT_UPLOAD) pools.ids.push(await directUpload(who, Buffer.alloc(0)));
  const figures: PhaseFigures = { cases: 0, statuses: {}, perRoute: new Map(), ms: 0 };
  const started = Date.now();
  const anyRoute = fc.constantFrom(...ROUTES).chain((route) => fuzzCase(route, invalidOnly));
  await fc.assert(
    fc.asyncProperty(anyRoute, async (c: FuzzCase) => {
      const wire = toWire(c, who.key, pools);
      const answer = await send(stack.apiPort, wire, agent).catch((error: unknown) => {
        throw new Error(`no answer (${String(error)})\n${describeRequest(wire)}`);
      });
      figures.cases += 1;
      const label = `${answer.status}${errorCodeOf(answer.body)}`;
      figures.statuses[label] = (figures.statuses[label] ?? 0) + 1;
      figures.perRoute.set(c.route, (figures.perRoute.get(c.route) ?? 0) + 1);
      const problem = answerProblem(c.route, c.method, answer);
      if (problem) {
        throw new Error(
          `${problem}\n${describeRequest(wire)}\nanswer ${answer.status}: ${answer.body.subarray(0, 500).toString('utf8')}`,
        );
      }
      // Upload ids the fuzz itself creates become path parameters of later cases.
      if (c.method === 'POST' && c.route.path.endsWith('/uploads') && answer.status === 200) {
        const id = (JSON.parse(answer.body.toString('utf8')) as { data: { upload_id?: string } }).data.upload_id;
        if (id) pools.ids.push(id);
      }
    }),
    { numRuns, ...(SEED !== undefined && { seed: SEED }) },
  );
  figures.ms = Date.now() - started;
  return figures;
}

function errorCodeOf(body: Buffer): string {
  try {
    const code = (JSON.parse(body.toString('utf8')) as { error?: { code?: string } }).error?.code;
    return code ? ` ${code}` : '';
  } catch {
    return '';
  }
}

function report(name: string, figures: PhaseFigures) {
  const statuses = Object.entries(figures.statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status} ×${count}`)
    .join(', ');
  console.log(`route fuzz, ${name}: ${figures.cases} cases in ${(figures.ms / 1000).toFixed(1)} s (${statuses})`);
}

/** What the account holds: balance, ledger and task counts, from storage and from the API. */
async function holdings(who: Subject) {
  const [account, entries, videos, images, credits, listedVideos, listedImages] = await Promise.all([
    stack.context.accounts.get(who.accountId),
    stack.context.ledger.listForAccount(who.accountId),
    stack.context.tasks.listPage(who.accountId, 'video', 1, 50),
    stack.context.tasks.listPage(who.accountId, 'image', 1, 50),
    call<{ credits: number }>(stack.baseUrl, '/credits', { key: who.key }),
    call<{ pagination: { total: number } }>(stack.baseUrl, '/videos', { key: who.key }),
    call<{ pagination: { total: number } }>(stack.baseUrl, '/images', { key: who.key }),
  ]);
  return {
    balance: account!.credits,
    ledgerSum: ledgerSum(entries),
    ledgerKinds: entries.map((entry) => entry.kind),
    taskCounts: account!.taskCounts,
    storedTasks: videos.total + images.total,
    apiCredits: credits.body.data!.credits,
    apiTasks: listedVideos.body.data!.pagination.total + listedImages.body.data!.pagination.total,
  };
}

describe('fuzz over every route', () => {
  it('answers any input within the envelope and never charges an account with nothing to spend', async () => {
    const zero = await subject(0, false);
    const figures = await runPhase(zero, false, RUNS.anyInput);
    report('any input, zero-credit account', figures);

    expect(figures.cases).toBe(RUNS.anyInput);
    expect([...figures.perRoute.keys()].length).toBe(ROUTES.length);
    expect(await holdings(zero)).toEqual({
      balance: 0,
      ledgerSum: 0,
      ledgerKinds: [],
      taskCounts: { video: 0, image: 0 },
      storedTasks: 0,
      apiCredits: 0,
      apiTasks: 0,
    });
  });

  it('never charges a funded account for an invalid request', async () => {
    const funded = await subject(1000, true);
    const figures = await runPhase(funded, true, RUNS.invalidBodies);
    report('invalid bodies, funded account', figures);

    expect(figures.cases).toBe(RUNS.invalidBodies);
    expect(await holdings(funded)).toEqual({
      balance: 1000,
      ledgerSum: 1000,
      ledgerKinds: ['grant'],
      taskCounts: { video: 0, image: 0 },
      storedTasks: 0,
      apiCredits: 1000,
      apiTasks: 0,
    });
  });
});
