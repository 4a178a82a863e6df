import { buildAppContext, type AppContext } from '#app-context';
import { createAccount } from '#domain/accounts/account-admin';
import { ledgerSum } from '#domain/accounts/ledger';
import { UNSENT_GRACE_MS } from '#domain/tasks/submission';
import { startTask, type StartDeps, type StartRequest } from '#domain/tasks/start-task';
import { START_GRACE_MS, sweep } from '#domain/tasks/sweep';
import { ServiceBusyError } from '#domain/shared/errors';
import { toHttpError } from '#http/error-mapping';
import { ScriptedProvider } from '#test-support/scripted-provider';
import { createTestDb, dropTestDb, testConfig } from '#test-support/test-db';

/**
 * A DynamoDB call that times out on a start's path (the SDK's TimeoutError, every attempt) is
 * answered 503 and leaves the money exact: whether the write was lost before DynamoDB applied
 * it or applied with its answer lost, the balance equals the ledger, and the task is charged and
 * running, or refunded exactly once (by the sweeper when the start could not finish).
 */

const REQUEST: StartRequest = {
  kind: 'video',
  params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: 'a lighthouse at dusk', aspectRatio: '16:9', duration: 5, resolution: '720p' },
};
const PRICE = 25;

let ctx: AppContext;
let provider: ScriptedProvider;
let deps: StartDeps;
let now: Date;

beforeAll(async () => {
  const db = await createTestDb();
  db.doc.destroy();
  ctx = buildAppContext(testConfig(db.tableName), { provider: new ScriptedProvider() });
});

beforeEach(() => {
  provider = new ScriptedProvider();
  now = new Date();
  deps = { ...ctx.lifecycle, provider, clock: () => now };
});

afterAll(async () => {
  await dropTestDb(ctx.db);
});

type Lost = 'before applying' | 'after applying';

/** One DynamoDB call of a start, by its operation and what its input names. */
interface Step {
  operation: string;
  names: string;
}
/** The start's one transaction: the task, its charge and the balance taking the price (start.ts). */
const START: Step = { operation: 'TransactWriteItems', names: 'credits - :price' };
/** The start's settle: the positions it allocated go on the task and the charge (start.ts settlePositions). */
const SETTLE: Step = { operation: 'TransactWriteItems', names: 'attribute_not_exists(seq)' };
/** The failed ending and its refund (refund-transaction.ts). */
const REFUND: Step = { operation: 'TransactWriteItems', names: '"refund"' };

/**
 * Makes the first call of `step` fail as the SDK's request timeout does (name `TimeoutError`):
 * either never sent, or sent and applied with its answer lost. Added above the SDK's retries:
 * this is every attempt timing out.
 */
function timeOutOnce(step: Step, lost: Lost): { fired: () => boolean; remove: () => void } {
  const name = `time-out-${Math.random()}`;
  let fired = false;
  ctx.db.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      if (fired || operation !== step.operation || !JSON.stringify(args.input).includes(step.names)) return next(args);
      fired = true;
      if (lost === 'after applying') await next(args);
      throw Object.assign(new Error('Request timed out'), { name: 'TimeoutError' });
    },
    { step: 'initialize', name },
  );
  return { fired: () => fired, remove: () => ctx.db.doc.middlewareStack.remove(name) };
}

/**
 * A start whose `step` times out. Its answer: 503 `internal_error` (try again), never a 500 as
 * for a bug: the service was too slow, and a retry under the same Idempotency-Key is safe.
 */
async function startTimingOut(accountId: string, step: Step, lost: Lost): Promise<void> {
  const injected = timeOutOnce(step, lost);
  try {
    const error = await startTask(deps, accountId, REQUEST).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(injected.fired()).toBe(true);
    expect(error).toBeInstanceOf(ServiceBusyError);
    expect(toHttpError(error)).toEqual({ status: 503, code: 'internal_error', message: expect.stringContaining('Idempotency-Key') });
  } finally {
    injected.remove();
  }
}

/** A start whose `step` times out and which answers all the same (a step it can leave to the sweeper). */
async function startDespite(accountId: string, step: Step, lost: Lost): Promise<void> {
  const injected = timeOutOnce(step, lost);
  try {
    const task = await startTask(deps, accountId, REQUEST);
    expect(injected.fired()).toBe(true);
    expect(task).toMatchObject({ status: 'processing', creditsUsed: PRICE });
  } finally {
    injected.remove();
  }
}

async function newAccount(credits: number): Promise<string> {
  const { account } = await createAccount(ctx, { credits });
  return account.accountId;
}

async function money(accountId: string) {
  const account = await ctx.accounts.get(accountId);
  const entries = await ctx.ledger.listForAccount(accountId);
  return { balance: account!.credits, ledger: ledgerSum(entries), kinds: entries.map((entry) => entry.kind).sort() };
}

async function videoTasks(accountId: string) {
  return (await ctx.tasks.listPage(accountId, 'video', 1, 10)).tasks;
}

/** The sweeper's run once every grace (a lost create's, a stranded start's) has passed. */
async function sweepLater(): Promise<void> {
  now = new Date(now.getTime() + Math.max(deps.settings.submissionGraceMs, UNSENT_GRACE_MS, START_GRACE_MS) + 1_000);
  await sweep(deps);
}

describe.each<Lost>(['before applying', 'after applying'])('a DynamoDB timeout on the refund, the write lost %s', (lost) => {
  it('the refund after a refused create: refunded exactly once, at the latest by the sweeper', async () => {
    provider.onSubmit(async () => ({ type: 'rejected', code: 'upstream_error', message: 'no' }));
    const accountId = await newAccount(100);
    await startTimingOut(accountId, REFUND, lost);
    const before = await money(accountId);
    expect(before.balance).toBe(before.ledger);

    // Twice: a second run must find nothing left to refund.
    await sweepLater();
    await sweepLater();
    const [task, ...others] = await videoTasks(accountId);
    expect(others).toEqual([]);
    expect(task).toMatchObject({ status: 'failed', creditsUsed: PRICE });
    expect(await money(accountId)).toEqual({ balance: 100, ledger: 100, kinds: ['charge', 'grant', 'refund'] });
  });

});

type Outcome = 'never charged' | 'charged and going on';
const OUTCOMES = {
  // The transaction never applied: nothing written, nothing to repair.
  'never charged': { tasks: [], money: { balance: 100, ledger: 100, kinds: ['grant'] } },
  // Charged: the sweeper settles its positions and resumes its submission (isStranded) if none went out.
  'charged and going on': {
    tasks: [expect.objectContaining({ status: 'processing', creditsUsed: PRICE, seq: 1 })],
    money: { balance: 100 - PRICE, ledger: 100 - PRICE, kinds: ['charge', 'grant'] },
  },
} as const;

describe('a DynamoDB timeout on a start', () => {
  it.each<[string, Lost, Outcome, 'answers 503' | 'answers all the same', Step]>([
    ['its transaction', 'before applying', 'never charged', 'answers 503', START],
    ['its transaction', 'after applying', 'charged and going on', 'answers 503', START],
    ['its settle', 'before applying', 'charged and going on', 'answers all the same', SETTLE],
    ['its settle', 'after applying', 'charged and going on', 'answers all the same', SETTLE],
  ])('on %s, lost %s: %s, the balance equal to the ledger (the start %s)', async (_, lost, outcome, answer, step) => {
    const accountId = await newAccount(100);
    if (answer === 'answers 503') await startTimingOut(accountId, step, lost);
    else await startDespite(accountId, step, lost);
    // The ledger sums to the balance at every instant, settled or not (start.ts).
    const meanwhile = await money(accountId);
    expect(meanwhile.balance).toBe(meanwhile.ledger);
    await sweepLater();
    expect(await videoTasks(accountId)).toEqual(OUTCOMES[outcome].tasks);
    expect(await money(accountId)).toEqual(OUTCOMES[outcome].money);
  });
});
