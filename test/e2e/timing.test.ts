import type { LocalStack } from '#bin/local-stack/stack';
import { newAccount } from '#test-support/accounts';
import { call, post, startTestApi, waitForFinal } from '#test-support/local-api';
import { pollUntil } from '#test-support/wait';

/**
 * Queue position and estimated completion (CONTRACT.md, "Cost and timing on every task") over
 * real HTTP: the simulated provider runs one job at a time (SIM_CONCURRENCY=1), so later jobs
 * wait their turn and report their place, as fal's do; completed tasks leave the history the
 * estimate comes from.
 */
jest.setTimeout(120_000);

const DELAY_SECONDS = 3;
let stack: LocalStack;
type Task = Record<string, any>;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: String(DELAY_SECONDS), PROVIDER: 'simulated', SIM_CONCURRENCY: '1' });
});
afterAll(async () => {
  await stack.stop();
  // The next test file of this worker starts its stack without lanes.
  delete process.env.SIM_CONCURRENCY;
});

const BODY = { prompt: 'a paper boat on a canal', duration: 3, resolution: '480p' };

async function start(key: string): Promise<Task> {
  const reply = await post(stack, key, '/generate', BODY);
  expect(reply.status).toBe(200);
  return reply.body.data as Task;
}

const view = async (key: string, id: string): Promise<Task> => (await call<{ data: Task }>(stack.baseUrl, `/videos/${id}`, { key })).body.data!;

it('places queued jobs, estimates from history, tightens to the end, and shows neither once final', async () => {
  const { key } = await newAccount(stack, { credits: 1000 });

  // No history yet: the estimate is null, never a guess; the place is known once the provider says.
  const first = await start(key);
  expect(first).toMatchObject({ status: 'processing', estimated_completion_at: null });
  expect(first).toHaveProperty('queue_position');
  for (const task of [first, await start(key), await start(key)]) {
    const final = await waitForFinal<Task>(stack, key, `/videos/${task.video_id}`, 60_000);
    expect([final.status, final.body]).toMatchObject([200, { data: { status: 'completed' } }]);
    // Final views carry neither field.
    expect(final.body.data).not.toHaveProperty('queue_position');
    expect(final.body.data).not.toHaveProperty('estimated_completion_at');
  }

  // Three completions: a history. Three starts at once: one runs, two wait behind it.
  const started = await Promise.all([start(key), start(key), start(key)]);
  for (const task of started) expect(task.estimated_completion_at).toEqual(expect.any(String));
  const places = await Promise.all(started.map(async (task) => (await pollUntil(async () => {
    const seen = await view(key, task.video_id);
    return seen.queue_position !== null && seen.queue_position !== undefined && seen;
  }, { what: `a queue position for ${task.video_id}` })).queue_position as number));
  // Each has its own place: 0 for the one running, 1 and 2 for those waiting (fewer if one moved on meanwhile).
  expect(places.sort()).toEqual([0, 1, 2]);
  expect(Math.max(...places)).toBeGreaterThanOrEqual(1);

  // The last in line: its place only falls, and its estimate is never before its start.
  const last = started[places.indexOf(Math.max(...places))]!;
  const seen: number[] = [];
  const final = await pollUntil(async () => {
    const task = await view(key, last.video_id);
    if (task.status !== 'processing') return task;
    seen.push(task.queue_position ?? -1);
    expect(Date.parse(task.estimated_completion_at)).toBeGreaterThanOrEqual(Date.parse(task.created_at));
    return undefined;
  }, { timeoutMs: 60_000, everyMs: 250, what: `the end of ${last.video_id}` });
  expect(final).toMatchObject({ status: 'completed' });
  const known = seen.filter((place) => place >= 0);
  expect(known).toEqual([...known].sort((a, b) => b - a));
  expect(known.at(-1)).toBe(0);
});
