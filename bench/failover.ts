/**
 * Failover figures on the local stack (DynamoDB Local, s3rver, the API over real HTTP), with
 * vid-1-5-pro routed to Replicate (a fake on 127.0.0.1) then fal (a fake fal), both calling
 * back to the local API:
 *   1. healthy: 100 starts (c=10), every one on Replicate: start p50/p95;
 *   2. Replicate refusing every create (503): 100 starts (c=10): how many were answered 200,
 *      completed (on fal), refunded; start p95 against the healthy run's (goal: <= 2x); the
 *      creates that reached Replicate before its circuit opened;
 *   3. while the circuit is open (cool-down not over): 100 more starts; creates reaching
 *      Replicate (goal: 0, counted at the fake).
 * Run: npm run bench:failover   (prints the figures; exits 1 when a goal is missed).
 */
import { DynamoCircuitStore } from '#adapters/dynamodb/circuit-repository';
import { startFakeFal } from '#test-support/fake-fal';
import { startFakeReplicate } from '#test-support/fake-replicate';
import { load, ms, newApiKey, percentile, runBench, startBenchStack, type Figures } from './load';

const STARTS = 100;
const CONCURRENCY = 5;
const THRESHOLD = 5;

async function main(): Promise<void> {
  const replicate = await startFakeReplicate({ startDelayMs: 20, completeDelayMs: 60 });
  const fal = await startFakeFal({ completeDelayMs: 60 });
  Object.assign(process.env, {
    PROVIDER: 'replicate',
    PROVIDER_ROUTES: JSON.stringify({ 'vid-1-5-pro': ['replicate', 'fal'] }),
    CIRCUIT_FAILURE_THRESHOLD: String(THRESHOLD),
    CIRCUIT_COOL_DOWN_SECONDS: '600',
    PROVIDER_BUDGET_PER_SECOND: '1000',
    REPLICATE_BASE_URL: replicate.baseUrl,
    REPLICATE_API_TOKEN: replicate.apiToken,
    REPLICATE_WEBHOOK_SECRET: replicate.webhookSecret,
    FAL_BASE_URL: fal.baseUrl,
    FAL_JWKS_URL: fal.jwksUrl,
    FAL_KEY: fal.apiKey,
    FAL_MODELS: JSON.stringify({ 'vid-1-5-pro': { endpoint: 'fal-ai/seedance/v1/lite/text-to-video', input: { prompt: '{{prompt}}' } } }),
    OUTPUT_ALLOWED_ORIGINS: `${replicate.baseUrl},${fal.baseUrl}`,
    LOG_LEVEL: 'ERROR',
  });
  const stack = await startBenchStack('vidgen-bench-failover');
  const missed: string[] = [];
  try {
    const account = await newApiKey(stack, 10_000_000, 1_000_000);
    const taskIds: string[] = [];
    const generate = async () => {
      const response = await fetch(`${stack.baseUrl}/generate`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${account.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ prompt: 'bench', duration: 3 }),
      });
      const body = (await response.json()) as { data?: { video_id?: string } };
      if (response.status === 200 && body.data?.video_id) taskIds.push(body.data.video_id);
      return response.status;
    };
    const replicateCreates = () => replicate.requests.filter((request) => request.method === 'POST' && request.path.includes('predictions')).length;

    await load(20, 5, generate); // warm-up: module loading, first connections

    const healthy = await load(STARTS, CONCURRENCY, generate);
    print('healthy (Replicate answers)', healthy);

    // Replicate refuses every create from now on; its circuit starts closed.
    await new DynamoCircuitStore(stack.context.db).close('replicate');
    replicate.behave({ kind: 'respond', status: 503 }, 10_000);
    const before = replicateCreates();
    const firstId = taskIds.length;
    const refused = await load(STARTS, CONCURRENCY, generate);
    print('Replicate refusing every create', refused);
    const beforeOpen = replicateCreates() - before;
    const failedOver = taskIds.slice(firstId);

    const open = replicateCreates();
    const whileOpen = await load(STARTS, CONCURRENCY, generate);
    print('circuit open (cool-down)', whileOpen);
    const duringCoolDown = replicateCreates() - open;

    // Every failed-over task completes (fal calls back; polls as the safety net).
    const ended = await settle(stack.baseUrl, account.apiKey, failedOver);
    const providers = await Promise.all(failedOver.map(async (id) => (await stack.context.tasks.get(account.accountId, id))?.provider?.name));
    const refunds = (await stack.context.ledger.listForAccount(account.accountId)).filter((entry) => entry.kind === 'refund').length;

    const ratio = percentile(refused.latencies, 95) / percentile(healthy.latencies, 95);
    console.log('== failover figures ==');
    console.log(`starts answered 200: ${refused.statuses[200] ?? 0}/${STARTS}; completed: ${ended.completed}/${failedOver.length} (failed ${ended.failed}, still processing ${ended.processing})`);
    console.log(`recorded provider of those tasks: ${JSON.stringify(count(providers))}`);
    console.log(`refunds on the account (whole run): ${refunds}`);
    console.log(`start p95: healthy ${ms(percentile(healthy.latencies, 95))}, failing over ${ms(percentile(refused.latencies, 95))} (${ratio.toFixed(2)}x; goal <= 2x)`);
    console.log(`creates that reached Replicate: ${beforeOpen} before its circuit opened (threshold ${THRESHOLD}, ${CONCURRENCY} in flight at once), ${duringCoolDown} during the cool-down (${STARTS} more starts)`);
    console.log(`creates at fal: ${fal.stats().creates}`);

    if ((refused.statuses[200] ?? 0) !== STARTS || ended.completed !== STARTS) missed.push('100 starts -> 100 completed');
    if (refunds !== 0) missed.push('0 refunds');
    if (ratio > 2) missed.push('p95 <= 2x healthy');
    if (duringCoolDown !== 0) missed.push('no call to the primary while open');
  } finally {
    await stack.stop();
    await replicate.close();
    await fal.close();
  }
  if (missed.length > 0) throw new Error(`goals missed: ${missed.join(', ')}`);
}

function print(label: string, figures: Figures): void {
  console.log(
    `${label.padEnd(34)} ${figures.requests} starts in ${figures.seconds.toFixed(1)} s  p50 ${ms(percentile(figures.latencies, 50))}  p95 ${ms(percentile(figures.latencies, 95))}  statuses ${JSON.stringify(figures.statuses)}`,
  );
}

function count(values: (string | undefined)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value ?? 'none'] = (counts[value ?? 'none'] ?? 0) + 1;
  return counts;
}

/** Reads every task until none is processing (GET /videos/{id} also polls upstream), at most a minute. */
async function settle(baseUrl: string, apiKey: string, ids: string[]): Promise<{ completed: number; failed: number; processing: number }> {
  const status = new Map<string, string>();
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    await Promise.all(
      ids
        .filter((id) => (status.get(id) ?? 'processing') === 'processing')
        .map(async (id) => {
          const response = await fetch(`${baseUrl}/videos/${id}`, { headers: { Authorization: `Bearer ${apiKey}` } });
          status.set(id, ((await response.json()) as { data?: { status?: string } }).data?.status ?? 'processing');
        }),
    );
    if (![...status.values()].includes('processing') && status.size === ids.length) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const values = ids.map((id) => status.get(id) ?? 'processing');
  return { completed: values.filter((v) => v === 'completed').length, failed: values.filter((v) => v === 'failed').length, processing: values.filter((v) => v === 'processing').length };
}

runBench(main);
