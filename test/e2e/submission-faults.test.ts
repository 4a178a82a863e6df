import type { LocalStack } from '#bin/local-stack/stack';
import type { InProcessCopyQueue } from '#adapters/copy-queues';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import type { ProviderBudget } from '#domain/providers/ports';
import { sweep } from '#domain/tasks/sweep';
import type { Task } from '#domain/tasks/task';
import { balanceAndLedger, call, startTestApi } from '#test-support/local-api';

/**
 * Failures between the charge and the create under real concurrent HTTP requests (issue 17,
 * B): the provider budget's DynamoDB counter, the call every submitter makes between the two,
 * times out now and then, as it did under load. Clients retry what answers 5xx or 429, some
 * under an Idempotency-Key (racing a duplicate of their own request), some without one.
 */
jest.setTimeout(90_000);

const PRICE = 15;
const BODY = { prompt: 'a kite over the dunes', duration: 3, resolution: '480p' };
let stack: LocalStack;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '1', PROVIDER: 'simulated' });
});
afterAll(async () => {
  await stack.stop();
});

/** A turn at once, except that every third one times out. */
class TimingOutBudget implements ProviderBudget {
  calls = 0;
  timeouts = 0;

  async reserve(_provider: string, _perSecond: number, now: number): Promise<number | undefined> {
    this.calls += 1;
    if (this.calls % 3 !== 0) return now;
    this.timeouts += 1;
    throw Object.assign(new Error('DynamoDB: request timed out'), { name: 'TimeoutError' });
  }
}

async function tasksOf(accountId: string): Promise<Task[]> {
  return (await stack.context.tasks.listPage(accountId, 'video', 1, 100)).tasks;
}

/** Waits until none of the account's tasks is processing, or the deadline passes. */
async function settled(accountId: string, timeoutMs: number): Promise<Task[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tasks = await tasksOf(accountId);
    if (tasks.every((task) => task.status !== 'processing') || Date.now() > deadline) return tasks;
    await (stack.context.copyQueue as InProcessCopyQueue).drain();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('no 500 after a charge: retrying clients, with and without a key, pay once per request and every task completes', async () => {
  const { account } = await createAccount(stack.context, { credits: 1000 });
  const { apiKey } = await createApiKey(stack.context, account.accountId, { rateLimit: 5000 });
  const deps = stack.context.lifecycle;
  const { budget, settings } = deps;
  const faulty = new TimingOutBudget();
  deps.budget = faulty;
  deps.settings = { ...settings, providerBudgets: { [deps.provider.name]: 1000 } };

  const statuses: number[] = [];
  /**
   * One client's request: sent again (same key, if any) while the answer is a 5xx, or a 429 (what
   * a copy gets when the first request under its key is still at work: "retry in a second").
   */
  async function client(idempotencyKey?: string): Promise<string | undefined> {
    // Enough tries that a client on a loaded machine (more timeouts) still gets its answer.
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const reply = await call<{ video_id: string }>(stack.baseUrl, '/generate', {
        method: 'POST',
        key: apiKey,
        headers: { 'Content-Type': 'application/json', ...(idempotencyKey && { 'Idempotency-Key': idempotencyKey }) },
        body: JSON.stringify(BODY),
      });
      statuses.push(reply.status);
      // A 429 is asked again at once: the copy's own wait for the first answer is the pause.
      if (reply.status !== 429 && reply.status < 500) return reply.body.data?.video_id;
    }
    return undefined;
  }
  const keys = Array.from({ length: 10 }, (_, i) => `retry-${i}`);
  let answers: (string | undefined)[];
  try {
    answers = await Promise.all([
      // A keyed client's request races its own duplicate (a retry after a client-side timeout).
      ...keys.flatMap((key) => [client(key), client(key)]),
      ...keys.map(() => client()),
    ]);
  } finally {
    deps.budget = budget;
    deps.settings = settings;
  }
  expect(faulty.timeouts).toBeGreaterThan(0);
  // The two copies of a keyed request were answered with one task.
  for (const [i] of keys.entries()) expect(answers[2 * i]).toBe(answers[2 * i + 1]);

  // A minute on, the sweeper has resumed any task whose consumer was cut short too.
  await sweep({ ...deps, clock: () => new Date(Date.now() + 61_000) });
  const tasks = await settled(account.accountId, 30_000);
  expect({
    serverErrors: statuses.filter((status) => status >= 500),
    tasks: tasks.length,
    unfinished: tasks.filter((task) => task.status !== 'completed').map(({ taskId, status }) => ({ taskId, status })),
    money: await balanceAndLedger(stack, account.accountId),
  }).toEqual({ serverErrors: [], tasks: 20, unfinished: [], money: { balance: 1000 - 20 * PRICE, ledger: 1000 - 20 * PRICE } });
});
