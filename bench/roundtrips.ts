/**
 * DynamoDB round trips per request, on the local stack over real HTTP (issue 32). A middleware on
 * the table client the handlers share (test/support/dynamo-calls.ts) times every call, so a row
 * says how many calls a request made, how many of them ran one after another (rounds: the
 * longest chain of calls each sent after the previous one answered) and how many at once.
 *
 * The stack runs Replicate's API (the fake, test/support/fake-replicate.ts, its jobs held
 * processing until the bench ends one) with circuits and callbacks on: a start's full path, its
 * budget turn included. The budget is far above the bench's pace (1,000 creates a second): a
 * start that waits for its turn has a pause in its chain, which is not a round trip but shows
 * as one (calls that could overlap happen after it). One request at a time. The authorizer's reads (the key, the
 * holder) are cached per TTL and listed apart; each key is warmed before it is measured.
 *
 * Run: npm run bench:roundtrips                     (prints before | after, before from the baseline)
 *      npm run bench:roundtrips -- --save-baseline  (writes bench/roundtrips.baseline.json)
 * Figures only; nothing fails. test/e2e/roundtrips.test.ts holds the targets whose calls follow
 * one from another (cancel, GET of a final task, GET /credits) as assertions.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey, grantCredits } from '#domain/accounts/account-admin';
import { recordTimedCalls, summarize, type CallSummary, type TimedCall } from '#test-support/dynamo-calls';
import { startFakeReplicate, type FakeReplicate } from '#test-support/fake-replicate';
import { signedInHolder } from '#test-support/identity';
import { runBench, startBenchStack } from './load';

const BASELINE = path.join(__dirname, 'roundtrips.baseline.json');
/** Each row is measured this many times; the figures are the run with the median rounds. */
const RUNS = 5;
/** Rounds a request may take after issue 32 (the rows without one have no target). */
const TARGETS: Record<string, number> = {
  'start, key': 4,
  'start, key + Idempotency-Key': 5,
  // Issue 34: the end user's history part rides in T, its note is read beside the account's.
  'start, key + end_user': 4,
  'start, session': 4,
  'start, session + Idempotency-Key': 5,
  'cancel': 4,
  'GET /videos/{id} final': 2,
  'GET /credits live': 2,
  'GET /credits test': 2,
};
/** Calls the authorizer and the key's use note make: cached per TTL, once a minute; listed apart. */
const AUTH_PREFIXES = new Set(['APIKEY', 'HOLDER']);

interface Row extends CallSummary {
  auth: number;
  /** Calls that took (or skipped past) a ticket of the provider's budget. */
  turnCalls: number;
}

type Json = Record<string, unknown>;

async function main(): Promise<void> {
  const saveBaseline = process.argv.includes('--save-baseline');
  // Jobs stay `starting`, with no callback of their own, until the bench ends one.
  const fake = await startFakeReplicate({ startDelayMs: 3_600_000, completeDelayMs: 3_600_000 });
  Object.assign(process.env, {
    PROVIDER: 'replicate',
    REPLICATE_BASE_URL: fake.baseUrl,
    REPLICATE_API_TOKEN: fake.apiToken,
    REPLICATE_WEBHOOK_SECRET: fake.webhookSecret,
    OUTPUT_ALLOWED_ORIGINS: fake.baseUrl,
    PROVIDER_BUDGET_PER_SECOND: '1000',
    AUTH_CACHE_TTL_SECONDS: '300',
    // Jobs call back: a GET of a processing task answers from the table.
    CALLBACK_SILENCE_SECONDS: '600',
  });
  const stack = await startBenchStack('vidgen-bench-roundtrips');
  try {
    const rows = await measureAll(stack, fake);
    print(rows, saveBaseline ? undefined : readBaseline());
    if (saveBaseline) {
      writeFileSync(BASELINE, `${JSON.stringify(rows, null, 2)}\n`);
      console.log(`\nbaseline written to ${path.relative(process.cwd(), BASELINE)}`);
    }
  } finally {
    await stack.stop();
    await fake.close();
  }
}

async function measureAll(stack: LocalStack, fake: FakeReplicate): Promise<Record<string, Row>> {
  const rows: Record<string, Row> = {};
  const api = (token: string, pathname: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${stack.baseUrl}${pathname}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...init.headers },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as { data: Json | null; error: Json | null } }));
  /** Measures `send` RUNS times (each with fresh `setup`), keeps the run with the median rounds. */
  const measure = async <T>(label: string, setup: () => Promise<T>, send: (prepared: T) => Promise<{ status: number }>, expected: number) => {
    const runs: Row[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const prepared = await setup();
      let status = 0;
      const { calls, respondedAt } = await recordTimedCalls(stack.context.db, async () => (status = (await send(prepared)).status));
      if (status !== expected) throw new Error(`${label}: answered ${status}, expected ${expected}.`);
      runs.push(rowOf(calls, respondedAt));
    }
    runs.sort((a, b) => a.rounds - b.rounds || a.calls - b.calls);
    rows[label] = runs[Math.floor(runs.length / 2)]!;
    console.error(`measured: ${label}`);
  };

  const keyAccount = async (credits: number, options: { monthlySpendLimit?: number; mode?: 'test' } = {}) => {
    const { account } = await createAccount(stack.context, { credits, paidAccess: true, subscriptionStatus: 'active' });
    const { apiKey } = await createApiKey(stack.context, account.accountId, { rateLimit: 100_000, ...options });
    // Warm the authorizer's cache and the key's use note for this minute.
    await api(apiKey, '/credits');
    return { accountId: account.accountId, key: apiKey };
  };
  const holder = await signedInHolder(stack);
  const session = holder.accessToken;
  const sessionAccount = (await api(session, '/account')).body.data!.account_id as string;
  await grantCredits(stack.context, sessionAccount, 1_000_000, 'bench');
  await api(session, '/credits', { headers: { 'Vidgen-Mode': 'test' } });

  const video = { prompt: 'a heron over the marsh', duration: 5, resolution: '480p' };
  const live = await keyAccount(1_000_000);

  await measure('start, key', async () => undefined, () => api(live.key, '/generate', { body: video }), 200);
  let idempotent = '';
  await measure(
    'start, key + Idempotency-Key',
    async () => (idempotent = `bench-${Math.random()}`),
    (key) => api(live.key, '/generate', { body: video, headers: { 'Idempotency-Key': key } }),
    200,
  );
  await measure('replay', async () => idempotent, (key) => api(live.key, '/generate', { body: video, headers: { 'Idempotency-Key': key } }), 200);
  await measure('start, session', async () => undefined, () => api(session, '/generate', { body: video }), 200);
  await measure(
    'start, session + Idempotency-Key',
    async () => `bench-${Math.random()}`,
    (key) => api(session, '/generate', { body: video, headers: { 'Idempotency-Key': key } }),
    200,
  );
  const broke = await keyAccount(0);
  await measure('refused for credits', async () => undefined, () => api(broke.key, '/generate', { body: video }), 403);
  const brokeLimited = await keyAccount(0, { monthlySpendLimit: 1_000_000 });
  await measure('refused for credits, key with a limit', async () => undefined, () => api(brokeLimited.key, '/generate', { body: video }), 403);
  await measure('start, key + end_user', async () => undefined, () => api(live.key, '/generate', { body: { ...video, end_user: 'bench-user', metadata: { order: '1' } } }), 200);
  await measure('start, image (key)', async () => undefined, () => api(live.key, '/generate-image', { body: { prompt: 'a heron' } }), 200);

  const started = async () => (await api(live.key, '/generate', { body: video })).body.data!.video_id as string;
  await measure('GET /videos/{id} processing', started, (id) => api(live.key, `/videos/${id}`), 200);
  await measure('GET /videos', async () => undefined, () => api(live.key, '/videos?page=1&limit=20'), 200);
  await measure('GET /videos?end_user=', async () => undefined, () => api(live.key, '/videos?page=1&limit=20&end_user=bench-user'), 200);
  await measure('GET /credits live', async () => undefined, () => api(live.key, '/credits'), 200);
  await measure('GET /credits test', async () => undefined, () => api(session, '/credits', { headers: { 'Vidgen-Mode': 'test' } }), 200);
  await measure(
    'cancel',
    async () => {
      const id = await started();
      // The job's own callback for its cancel is lost: only the cancel is measured.
      fake.dropCallbacks(1);
      return id;
    },
    (id) => api(live.key, `/videos/${id}/cancel`, { method: 'POST' }),
    200,
  );

  // A signed callback that completes a task: its outputs recorded, the copy worker after the answer.
  const jobOf = async (id: string) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const task = await stack.context.lifecycle.tasks.get(live.accountId, id);
      if (task?.provider) return task.provider.jobId;
      if (Date.now() > deadline) throw new Error(`No job recorded for ${id}.`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const completedIds: string[] = [];
  await measure(
    'callback completes a task',
    async () => {
      const id = await started();
      completedIds.push(id);
      const job = await jobOf(id);
      // The fake's own 'completed' callback is lost; the bench sends the one it measures.
      fake.dropCallbacks(1);
      fake.setPredictionStatus(job, 'succeeded');
      return job;
    },
    async (job) => ({ status: await fake.sendCallback(job) }),
    200,
  );
  await measure('GET /videos/{id} final', async () => completedIds.shift()!, (id) => api(live.key, `/videos/${id}`), 200);

  const simulator = stack.stripe;
  if (!simulator) throw new Error('No Stripe simulator: unset STRIPE_SECRET_KEY.');
  await measure(
    'Stripe purchase',
    async () => `cs_bench_${Math.random().toString(36).slice(2)}`,
    async (checkoutId) => ({
      status: await simulator.sendEvent('checkout.session.completed', {
        id: checkoutId,
        object: 'checkout.session',
        mode: 'payment',
        payment_status: 'paid',
        client_reference_id: live.accountId,
        customer: 'cus_bench',
        payment_intent: `pi_${checkoutId}`,
        metadata: { account_id: live.accountId, pack_id: 'starter', credits: '500' },
      }),
    }),
    200,
  );
  return rows;
}

function rowOf(calls: TimedCall[], respondedAt: number): Row {
  const auth = calls.filter((call) => call.startedAt <= respondedAt && AUTH_PREFIXES.has(call.keyPrefix ?? ''));
  const measured = calls.filter((call) => !auth.includes(call));
  const turnCalls = measured.filter((call) => call.startedAt <= respondedAt && call.item === 'RATE(turn)').length;
  return { ...summarize(measured, respondedAt), auth: auth.length, turnCalls };
}

function readBaseline(): Record<string, Row> | undefined {
  return existsSync(BASELINE) ? (JSON.parse(readFileSync(BASELINE, 'utf8')) as Record<string, Row>) : undefined;
}

const cell = (row: Row | undefined) =>
  row
    ? `${row.rounds} / ${row.calls}${row.turnCalls > 1 ? ` (${row.turnCalls}t)` : ''}${row.maxParallel > 1 ? ` ∥${row.maxParallel}` : ''}${row.retries ? ` +${row.retries}r` : ''}`
    : '-';

function print(rows: Record<string, Row>, before: Record<string, Row> | undefined): void {
  const width = Math.max(...Object.keys(rows).map((label) => label.length)) + 2;
  console.log('\nDynamoDB round trips per request: rounds / calls (nt: n budget-turn tickets, ∥n: most at once, +nr: SDK retries); authorizer apart\n');
  console.log(`${'request'.padEnd(width)}${before ? `${'before'.padEnd(20)}` : ''}${'now'.padEnd(20)}target  after the answer`);
  for (const [label, row] of Object.entries(rows)) {
    const target = TARGETS[label];
    const flag = target !== undefined && row.rounds > target ? ' ABOVE' : '';
    console.log(
      `${label.padEnd(width)}${before ? cell(before[label]).padEnd(20) : ''}${cell(row).padEnd(20)}${String(target ?? '').padEnd(8)}` +
        `${row.after.calls ? `${row.after.rounds} / ${row.after.calls}` : ''}${flag}`,
    );
  }
  console.log('\nper row, the calls round by round:');
  for (const [label, row] of Object.entries(rows)) {
    console.log(`\n${label}${row.auth ? ` (authorizer: ${row.auth} more)` : ''}`);
    for (const round of row.trace) console.log(`  ${round}`);
  }
}

runBench(main);
