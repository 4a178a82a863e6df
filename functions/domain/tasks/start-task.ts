import { checkDestinations, type DestinationUrlPolicy } from './destination-rules';
import { createHash } from 'node:crypto';
import { admit, checkReferenceUrls, judgeStart, needsPaidAccess, priceOf, type StartRequest } from './start-rules';
import { AccountBusyError, IdempotencyConflictError, PaidAccessRequiredError, UnauthorizedError, UpstreamError } from '../shared/errors';
import { isTestPartition } from '../shared/partition';
import { newTaskId } from '../shared/ids';
import { spendMonthOf, type MonthlyKeySpend, type SpendingKey } from '../accounts/spending-key';
import { chargeEntry } from './charges';
import type { AccountStore } from '../accounts/ports';
import type { IdempotencyClaim, IdempotencyRecord, IdempotencyStore, ReferenceUrlPolicy, StartWrite } from './ports';
import { narrowTask, type Task, type TaskKind, type TaskOfKind } from './task';
import { isStranded, resumeSubmission, submitInline, UNSENT_GRACE_MS } from './submission';
import { FAILURE_MESSAGES, failTask } from './lifecycle/endings';
import { prepareFirstRoute } from './routed-create';
import { requireEndUser } from './attribution';
import { type LifecycleDeps } from './lifecycle/deps';
import { typicalMsOf } from './task-timing';
import { withTiming } from './timing';

export interface StartDeps extends LifecycleDeps {
  accounts: AccountStore;
  idempotency: IdempotencyStore;
  /** Reference image URLs we would refuse to fetch are refused before anything is charged. */
  references: ReferenceUrlPolicy;
  /** Destination URLs we would refuse to PUT to are refused the same way (destinations.ts). */
  destinations: DestinationUrlPolicy;
}

export { priceOf, type StartRequest } from './start-rules';

const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
const EARLIER_ANSWER_POLL_MS = 50;

/** Same endpoint and same validated request <=> same hash (defaults applied, key order fixed). */
export function requestHash(request: StartRequest): string {
  const canonical = JSON.stringify(request, (_, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * Starts a generation task (POST /generate, POST /generate-image): one transaction charges and
 * creates the task with the admission rules as its conditions (judged in the API's documented
 * order when it is refused: nothing written), then the positions are settled while the task is
 * submitted upstream. A refused or failed submission fails the task, refunds it, and answers
 * 502. With an Idempotency-Key, a repeat of the same request returns the first answer and
 * charges nothing; a different request under the same key is a conflict.
 */
export function startTask<K extends TaskKind>(
  deps: StartDeps,
  accountId: string,
  request: StartRequest & { kind: K },
  idempotencyKey?: string,
  key?: SpendingKey,
): Promise<TaskOfKind<K>>;
export async function startTask(
  deps: StartDeps,
  accountId: string,
  request: StartRequest,
  idempotencyKey?: string,
  key?: SpendingKey,
): Promise<Task> {
  requireEndUser(key, request.endUser);
  // A replayed answer is the task of the first request, which had the same kind (same hash).
  // A key released meanwhile (the request holding it was refused: nothing charged) is claimed again.
  for (let attempt = 1; ; attempt += 1) {
    const started = await startAnyTask(deps, accountId, request, idempotencyKey, key);
    if (started) return narrowTask(started, request.kind);
    if (attempt >= MAX_KEY_CLAIMS) throw busyKey();
  }
}

/** Claims of an Idempotency-Key that racing requests released before a start gives up (429). */
const MAX_KEY_CLAIMS = 3;
const busyKey = () => new AccountBusyError('An earlier request with this Idempotency-Key is still being processed. Retry in a second.');

/** The started (or replayed) task; undefined when the key's holder released it meanwhile. */
async function startAnyTask(
  deps: StartDeps,
  accountId: string,
  request: StartRequest,
  idempotencyKey?: string,
  key?: SpendingKey,
): Promise<Task | undefined> {
  checkDestinations(deps.destinations, request);
  await checkReferenceUrls(deps.references, request);
  const now = deps.clock();
  const hash = requestHash(request);
  if (idempotencyKey) {
    const earlier = await deps.idempotency.get(accountId, idempotencyKey, now);
    if (earlier) return replay(deps, earlier, hash);
  }
  const price = priceOf(request);
  const testPartition = isTestPartition(accountId);
  const paidAccess = needsPaidAccess(request);
  if (testPartition && paidAccess) {
    // A test partition's access is the live account's or its own test subscription: two items,
    // which no one condition can read, so test mode reads them first (one round, test mode only).
    const { refusal } = await admit(deps.accounts, accountId, request, key);
    if (refusal instanceof PaidAccessRequiredError) throw refusal;
  }

  const createdAt = now.toISOString();
  const keySpend = key && keySpendOf(key, request, now);
  const taskId = newTaskId(request.kind);
  const claim: IdempotencyClaim | undefined = idempotencyKey
    ? {
        accountId,
        key: idempotencyKey,
        requestHash: hash,
        taskId,
        createdAt,
        expiresAt: Math.floor(now.getTime() / 1000) + IDEMPOTENCY_TTL_SECONDS,
      }
    : undefined;

  const task = {
    ...request,
    taskId,
    partitionId: accountId,
    // Charged and held by this start, which sends its create or queues it.
    phase: 'claimed',
    status: 'processing',
    creditsUsed: price,
    progress: 0,
    copyAttempts: 0,
    ...(request.destination && { delivery: { status: 'pending', attempts: 0 } }),
    // Until the moment its create is sent (submission.ts): then no job can exist upstream.
    unsent: true,
    ...(keySpend && { chargedTo: { keyId: keySpend.keyId, month: keySpend.month, ...(keySpend.endUser !== undefined && { endUser: keySpend.endUser }) } }),
    createdAt,
    updatedAt: createdAt,
  } as Omit<Task, 'seq'>;
  const write: StartWrite = {
    task,
    charge: chargeEntry(task),
    ...(claim && { idempotency: claim }),
    ...(keySpend && { keySpend }),
    // A live partition's paid access is a condition of the start's own write.
    ...(paidAccess && !testPartition && { paidAccess: true }),
  };
  // Round 2 (design 32, 5.1): the transaction, with the first route's circuit and budget turn alongside.
  const first = prepareFirstRoute(deps, { ...task, seq: 0 } as Task, deps.settings.inlineTurnWaitMs);
  let result = await deps.tasks.start(write);
  for (let opened = false; result.type === 'refused'; opened = true) {
    const judged = judgeStart(result.refusals, request, price, { ...(key && { key }), testPartition });
    if (judged.type === 'replay') return replay(deps, judged.record, hash);
    if (judged.type === 'refuse') throw judged.error;
    if (opened) throw new UnauthorizedError();
    // A test balance used for the first time: opened (with its grant) by reading it, then the start again.
    if (!(await deps.accounts.get(accountId))) throw new UnauthorizedError();
    result = await deps.tasks.start(write);
  }
  const started = result.task;
  const model = request.params.model;
  deps.telemetry.info('task started', { task_id: taskId, account_id: accountId, model, credits: price });
  deps.telemetry.count('TaskStarted', { model });

  // Round 3 on: the positions settled while the create goes out; the answer carries both. The
  // key's `created` answer is noted alongside the write that records the accepted job.
  let created: Promise<void> | undefined;
  const noteCreated = claim && (() => (created ??= recordCreated(deps, claim)));
  // The estimate's history is read alongside (from the per-container cache, most often).
  const [seq, submitted, typicalMs] = await Promise.all([
    settled(deps, started),
    first.then((route) => submitInline(deps, started, route, noteCreated)),
    typicalMsOf(deps, started, deps.clock()),
  ]);
  if (submitted.type !== 'failed') {
    if (noteCreated) await noteCreated();
    const answer = { ...submitted.task, seq };
    return deps.durations ? withTiming(answer, typicalMs, deps.clock()) : answer;
  }
  // Record the 502 before the refund, so a retry can never see the failed task as a success.
  const message = 'The generation provider did not accept the request. Your credits were refunded; please retry.';
  if (claim) await deps.idempotency.recordOutcome(claim, { type: 'upstream_error', message });
  await failTask(deps, { ...started, seq }, { code: submitted.code, message: FAILURE_MESSAGES[submitted.code] });
  throw new UpstreamError(message);
}

/**
 * What a start through a key counts: the key's month, and its end user's month through the key
 * whenever it names one, limited or not (a limit set mid-month then counts that month's spend).
 */
function keySpendOf(key: SpendingKey, request: StartRequest, now: Date): MonthlyKeySpend {
  const { monthlySpendLimit: limit, endUserMonthlySpendLimit: endUserLimit } = key;
  return {
    keyId: key.keyId,
    month: spendMonthOf(now),
    ...(limit !== undefined && { limit }),
    ...(request.endUser !== undefined && { endUser: request.endUser, ...(endUserLimit !== undefined && { endUserLimit }) }),
  };
}

/**
 * The started task's history position, its charge's ledger position with it. A failure here
 * leaves the start's notes, which the sweeper settles: the task goes on (seq 0 until then).
 */
async function settled(deps: StartDeps, task: Task): Promise<number> {
  try {
    return (await deps.tasks.settlePositions(task)).seq;
  } catch (error) {
    deps.telemetry.warn('start positions not settled; the sweeper settles them', { task_id: task.taskId, error: String(error) });
    return 0;
  }
}

/** The first request's answer under the key; undefined if it released the key (refused, nothing charged). */
async function replay(deps: StartDeps, record: IdempotencyRecord, hash: string): Promise<Task | undefined> {
  if (record.requestHash !== hash) {
    throw new IdempotencyConflictError(
      'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
    );
  }
  const answered = record.outcome ? record : await earlierAnswer(deps, record);
  if (!answered) return undefined;
  if (answered.outcome?.type === 'upstream_error') throw new UpstreamError(answered.outcome.message);
  const task = await deps.tasks.get(record.accountId, record.taskId);
  // Its start died before its charge settled: the sweeper settles it (refunded, or the key released).
  if (!task || task.phase === 'draft') throw busyKey();
  // Its start was cut short between the charge and the create: carry on, rather than answer
  // `processing` for a task nobody submits.
  return isStranded(task, deps.clock()) ? resumeSubmission(deps, task) : task;
}

/**
 * One key, one answer. The first request under a key answers only once its submission has ended
 * (200, or 502 and a refund, whose answer is recorded before the refund): until then its task is
 * charged and `processing` whatever its answer will be. So a copy that finds no recorded answer
 * waits for it, up to `earlierAnswerWaitMs` (then: 429, retry in a second). A first request that
 * died, or whose `created` note was lost, never records one: once its start is older than any
 * start can run (UNSENT_GRACE_MS, past the function's timeout), the copy answers from the task.
 */
async function earlierAnswer(deps: StartDeps, record: IdempotencyRecord): Promise<IdempotencyRecord | undefined> {
  const startedAt = Date.parse(record.createdAt);
  // Real time for the wait itself; the task clock for the age of the start (as isStranded judges it).
  const deadline = deps.realTime() + deps.settings.earlierAnswerWaitMs;
  let latest: IdempotencyRecord | undefined = record;
  while (latest && !latest.outcome && deps.clock().getTime() - startedAt <= UNSENT_GRACE_MS) {
    if (deps.realTime() >= deadline) throw busyKey();
    await new Promise((resolve) => setTimeout(resolve, EARLIER_ANSWER_POLL_MS));
    // Gone (expired at once): its holder was refused and released it.
    latest = await deps.idempotency.get(record.accountId, record.key, deps.clock());
  }
  return latest;
}

/**
 * Notes that the key's task was started. Not essential: without it a replay reads the task
 * itself, so a failure here must not turn a charged, submitted task into a 500.
 */
async function recordCreated(deps: StartDeps, claim: IdempotencyClaim): Promise<void> {
  try {
    await deps.idempotency.recordOutcome(claim, { type: 'created' });
  } catch (error) {
    deps.telemetry.warn('idempotency outcome not recorded; a replay reads the task', { task_id: claim.taskId, error: String(error) });
  }
}
