import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { balanceAndLedger, call, startTestApi } from '#test-support/local-api';

/**
 * One Idempotency-Key, one answer (issue 31): concurrent copies of a request over real HTTP
 * against the local gateway, while every route is down (the simulated provider's `sim:down:simulated`), so
 * the first request's answer is a 502 that refunds its task. A copy that arrives while the first
 * is still submitting must answer what the first answers, never a 200 for a task that is about to
 * fail.
 */
jest.setTimeout(90_000);

const PAIRS = 3;
const BODY = { prompt: 'a lighthouse in fog sim:down:simulated', duration: 3, resolution: '480p' };
let stack: LocalStack;

beforeAll(async () => {
  // The outage must not open the circuit mid-test (each pair is a fresh failed create).
  stack = await startTestApi({ SIM_DELAY_SECONDS: '1', PROVIDER: 'simulated', CIRCUIT_FAILURE_THRESHOLD: '1000' });
});
afterAll(async () => {
  await stack.stop();
});

const generate = (apiKey: string, idempotencyKey: string) =>
  call<{ video_id: string }>(stack.baseUrl, '/generate', {
    method: 'POST',
    key: apiKey,
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
    body: JSON.stringify(BODY),
  });

it(`answers ${PAIRS} pairs of concurrent copies under one key alike while every route is down: 502 each, one refund each`, async () => {
  const { account } = await createAccount(stack.context, { credits: 1000 });
  const { apiKey } = await createApiKey(stack.context, account.accountId, { rateLimit: 5000 });

  const answers: { statuses: number[]; codes: (string | undefined)[] }[] = [];
  for (let pair = 0; pair < PAIRS; pair += 1) {
    const key = `race-${pair}-${Date.now()}`;
    const replies = await Promise.all([generate(apiKey, key), generate(apiKey, key)]);
    // A retry after both answered gets the stored answer too.
    replies.push(await generate(apiKey, key));
    answers.push({ statuses: replies.map((reply) => reply.status), codes: replies.map((reply) => reply.body.error?.code) });
  }
  expect(answers).toEqual(Array.from({ length: PAIRS }, () => ({ statuses: [502, 502, 502], codes: ['upstream_error', 'upstream_error', 'upstream_error'] })));
  // One task per key, charged once and refunded once: the balance is whole.
  const tasks = (await stack.context.tasks.listPage(account.accountId, 'video', 1, 100)).tasks;
  expect(tasks.map((task) => task.status)).toEqual(Array<string>(PAIRS).fill('failed'));
  expect(await balanceAndLedger(stack, account.accountId)).toEqual({ balance: 1000, ledger: 1000 });
});
