/**
 * Failover figures: the real Replicate and fal adapters over HTTP against the fakes on
 * 127.0.0.1 (test/support), the real routing and circuit breaker, on the in-memory stores (so
 * the figures measure the provider path, not DynamoDB Local; the circuit shared through the
 * table is covered by test/integration/provider-failover.test.ts). vid-1-5-pro is routed to
 * Replicate, then fal; the circuit opens after 5 consecutive failures for 10 minutes.
 *   1. healthy: 100 starts (c=10), all on Replicate: start p50/p95;
 *   1b. Replicate refusing every create with a 404 (a broken model map entry: an answer, issue
 *      31): 100 starts fail over to fal, and every one still asks Replicate (the circuit does not
 *      count refusals; goal: 100 creates reach it, 100 answered 200);
 *   2. Replicate refusing every create (503): 100 starts (c=10): answered, completed on fal,
 *      refunded; start p95 against the healthy run's (goal <= 2x); creates that reached
 *      Replicate (the ones in flight before the circuit opened);
 *   3. circuit open: 100 more starts: creates reaching Replicate (goal 0, counted at the fake).
 * Run: npm run bench:failover   (exits 1 when a goal is missed).
 */
import { CircuitBreaker } from '#domain/providers/circuit-breaker';
import { startTask } from '#domain/tasks/start-task';
import type { Task } from '#domain/tasks/task';
import { refreshTask } from '#domain/tasks/lifecycle/outcomes';
import { FalProvider } from '#providers/fal/fal-provider';
import { parseFalModelMap } from '#providers/fal/model-map';
import { FalWebhookVerifier } from '#providers/fal/webhook-signature';
import { parseModelMap } from '#providers/replicate/model-map';
import { ReplicateProvider } from '#providers/replicate/replicate-provider';
import { startFakeFal } from '#test-support/fake-fal';
import { startFakeReplicate } from '#test-support/fake-replicate';
import { MemoryCircuitStore } from '#test-support/memory-circuits';
import { memoryWorld, video } from '#test-support/memory-world';
import { load, ms, percentile, runBench, type Figures } from './load';

const STARTS = 100;
const CONCURRENCY = 10;
const THRESHOLD = 5;

async function main(): Promise<void> {
  const replicate = await startFakeReplicate();
  const fal = await startFakeFal();
  const world = memoryWorld(new Date().toISOString());
  const deps = world.deps;
  deps.clock = () => new Date();
  deps.provider = new ReplicateProvider({
    baseUrl: replicate.baseUrl,
    apiToken: replicate.apiToken,
    timeoutMs: 5_000,
    models: parseModelMap({ 'vid-1-5-pro': { model: 'owner/lite', input: { prompt: '{{prompt}}' } } }),
  });
  const falProvider = new FalProvider({
    baseUrl: fal.baseUrl,
    apiKey: fal.apiKey,
    timeoutMs: 5_000,
    models: parseFalModelMap({ 'vid-1-5-pro': { endpoint: 'fal-ai/seedance/v1/lite/text-to-video', input: { prompt: '{{prompt}}' } } }),
    verifier: new FalWebhookVerifier({ fetchText: async () => (await fetch(fal.jwksUrl)).text() }),
  });
  deps.otherProviders = (name) => (name === 'fal' ? falProvider : undefined);
  deps.routes = { 'vid-1-5-pro': ['replicate', 'fal'] };
  deps.circuits = new CircuitBreaker(new MemoryCircuitStore(), { failureThreshold: THRESHOLD, coolDownMs: 600_000, probeTimeoutMs: 30_000 });
  delete deps.callbackUrl; // polls only: the fakes move one step per read
  const accountId = await world.newAccount(10_000_000);
  const missed: string[] = [];

  try {
    const started: Task[] = [];
    const generate = async () => {
      try {
        started.push(await startTask(deps, accountId, video({ prompt: 'bench', duration: 3 })));
        return 200;
      } catch {
        return 502;
      }
    };
    const replicateCreates = () => replicate.requests.filter((request) => request.method === 'POST').length;

    await load(20, 5, generate); // warm-up
    const healthy = await load(STARTS, CONCURRENCY, generate);
    print('healthy (Replicate answers)', healthy);

    const beforeRefusals = replicateCreates();
    replicate.behave({ kind: 'respond', status: 404, body: { title: 'Not found', detail: 'Not found.', status: 404 } }, STARTS);
    const refusing = await load(STARTS, CONCURRENCY, generate);
    print('Replicate answering 404 (refused)', refusing);
    const askedWhileRefusing = replicateCreates() - beforeRefusals;

    replicate.behave({ kind: 'respond', status: 503 }, 100_000);
    const before = replicateCreates();
    const first = started.length;
    const refused = await load(STARTS, CONCURRENCY, generate);
    print('Replicate refusing every create', refused);
    const reachedBeforeOpen = replicateCreates() - before;
    const failedOver = started.slice(first);

    const open = replicateCreates();
    const whileOpen = await load(STARTS, CONCURRENCY, generate);
    print('circuit open (cool-down)', whileOpen);
    const duringCoolDown = replicateCreates() - open;

    const ended = await settle(deps, accountId, failedOver);
    const refunds = (await world.money(accountId)).kinds.filter((kind) => kind === 'refund').length;
    const ratio = percentile(refused.latencies, 95) / percentile(healthy.latencies, 95);
    console.log('== failover figures ==');
    console.log(`starts answered 200: ${refused.statuses[200] ?? 0}/${STARTS}; completed: ${ended.completed}/${failedOver.length} (recorded provider: ${JSON.stringify(ended.providers)})`);
    console.log(`refunds on the account (whole run, ${started.length} tasks): ${refunds}`);
    console.log(`start p95: healthy ${ms(percentile(healthy.latencies, 95))}, failing over ${ms(percentile(refused.latencies, 95))} (${ratio.toFixed(2)}x; goal <= 2x)`);
    console.log(`creates reaching Replicate while it answered 404: ${askedWhileRefusing}/${STARTS} (refusals do not open the circuit); answered 200: ${refusing.statuses[200] ?? 0}/${STARTS}`);
    console.log(`creates reaching Replicate while it refused: ${reachedBeforeOpen} (threshold ${THRESHOLD}, ${CONCURRENCY} starts in flight at once); during the cool-down: ${duringCoolDown} (${STARTS} more starts)`);
    console.log(`creates at fal: ${fal.stats().creates}; at Replicate (accepted): ${replicate.stats().creates}`);

    if ((refused.statuses[200] ?? 0) !== STARTS || ended.completed !== STARTS) missed.push('100 starts -> 100 completed');
    if (refunds !== 0) missed.push('0 refunds');
    if (ratio > 2) missed.push('p95 <= 2x healthy');
    if (duringCoolDown !== 0) missed.push('no call to the primary while open');
    if (askedWhileRefusing !== STARTS || (refusing.statuses[200] ?? 0) !== STARTS) missed.push('404s fail over without opening the circuit');
  } finally {
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

/** Polls every task (as GET /videos/{id} does) until none is processing. */
async function settle(deps: ReturnType<typeof memoryWorld>['deps'], accountId: string, tasks: Task[]) {
  const polling = { ...deps, settings: { ...deps.settings, checkIntervalMs: 0 } };
  const providers: Record<string, number> = {};
  let completed = 0;
  for (const started of tasks) {
    let task = started;
    for (let attempt = 0; attempt < 20 && task.status === 'processing'; attempt += 1) {
      await refreshTask(polling, task);
      await new Promise((resolve) => setImmediate(resolve));
      task = (await deps.tasks.get(accountId, started.taskId))!;
    }
    if (task.status === 'completed') completed += 1;
    providers[task.provider?.name ?? 'none'] = (providers[task.provider?.name ?? 'none'] ?? 0) + 1;
  }
  return { completed, providers };
}

runBench(main);
