import type { CircuitGate } from '../providers/circuit-breaker';
import { isTestPartition } from '../shared/partition';
import { ProviderUnavailableError, SubmissionUnknownError, type GenerationProvider, type ProviderFailureCode, type UnavailableReason } from '../providers/provider';
import { routesOf } from '../providers/routing';
import type { Task } from './task';
import { move } from './transitions';
import { jobFor } from './lifecycle/outputs';
import { logProviderDetail } from './lifecycle/endings';
import { type LifecycleDeps } from './lifecycle/deps';

/**
 * One task's create, walked along its model's routes (docs/tasks.md, "Routing and failover").
 * The create is marked sent once, before the first provider is asked; from then on:
 * - a refusal that proves no job exists (5xx, 4xx other than a content refusal, a connection
 *   refused, a 429, a model missing from the provider's map, the provider's circuit open) goes to
 *   the next route, within the same start and under the same charge;
 * - an answer that may hide a job (a timeout after sending, a 2xx without an id) stays with that
 *   provider: its callback adopts the job or the sweeper refunds after the grace, never a second job;
 * - a content refusal is the customer's answer: no failover.
 * When the routes run out, the start is refused (`rejected`) if every provider that was asked
 * refused it with a 4xx (asking again will not help), busy if one refused for load, and
 * `unavailable` (worth another try from the queue) otherwise. Each provider's create waits for
 * a turn in that provider's own budget, and its circuit (circuit-breaker.ts) hears how it went:
 * only a 5xx, a connection refused or a timeout counts against it; any answer resets it.
 */

/** What one create came to. `task`: as it stands once its create was sent (or unsent, if none was). */
export type Create =
  | { type: 'accepted'; task: Task }
  /** A content refusal, or every route asked refused the job itself (a 4xx): asking again will not help. */
  | { type: 'rejected'; code: ProviderFailureCode }
  /** Refused for load (429) by every route that answered: nothing was created. */
  | { type: 'busy'; task: Task; retryAfterSeconds?: number }
  /** No route could be asked, or every one refused (5xx, network, circuit open): nothing was created. */
  | { type: 'unavailable'; task: Task }
  /** Sent, answer unknown: a job may exist. */
  | { type: 'unknown'; task: Task }
  /** Not sent: someone else put the task back on the queue meanwhile (a replay, the sweeper). */
  | { type: 'taken' }
  /** Not sent: no turn was free in the first healthy route's budget within the wait. */
  | { type: 'waiting' };

/**
 * What asking one provider came to, before the walk decides whether to go on: `reason` says
 * what an unavailable or unknown create tells of the provider's health.
 */
type Attempt =
  | Exclude<Create, { type: 'taken' | 'waiting' | 'unavailable' | 'unknown' }>
  | { type: 'unavailable'; task: Task; reason: UnavailableReason }
  | { type: 'unknown'; task: Task; reason: UnavailableReason };

/**
 * Sends a task's create along its routes. It raises only before any create is sent: from the
 * `send` transition on, a failure (a lost answer, an error recording the job) is an unknown outcome.
 */
export async function sendCreate(
  deps: LifecycleDeps,
  unsent: Task,
  turnWaitMs: number,
  prepared?: FirstRoute,
  /** Runs alongside the write that records an accepted job (the start's Idempotency-Key answer): never raises. */
  onAccepted?: () => Promise<void>,
): Promise<Create> {
  const routes = routesOf(deps, unsent);
  const startedAt = performance.now();
  let sent: Task | undefined;
  let busy: Extract<Create, { type: 'busy' }> | undefined;
  /** Every route so far refused the job for good (a 4xx, no entry in its map): asking again will not help. */
  let refusedEverywhere = true;
  for (const [index, provider] of routes.entries()) {
    // The first route's circuit and turn, when the start took them alongside its transaction.
    const ready = index === 0 && prepared?.provider === provider.name ? prepared : undefined;
    const gate = ready?.gate ?? (await gateOf(deps, provider, unsent));
    if (gate.state === 'open') {
      refusedEverywhere = false;
      deps.telemetry.info('route skipped: its circuit is open', { task_id: unsent.taskId, provider: provider.name, model: unsent.params.model });
      deps.telemetry.count('ProviderSkipped', { provider: provider.name });
      continue;
    }
    if (ready?.turnError !== undefined) throw ready.turnError;
    const turned = ready?.turn !== undefined ? await waitForTurn(deps, ready.turn) : await awaitTurn(deps, provider, unsent, turnWaitMs);
    if (!turned) {
      // Nothing sent yet: the task waits on the queue for this provider's turn; else, busy.
      if (!sent) return { type: 'waiting' };
      deps.telemetry.info('route skipped: no turn free in its budget', { task_id: unsent.taskId, provider: provider.name, model: unsent.params.model });
      busy ??= { type: 'busy', task: sent };
      continue;
    }
    let callbackUrl: string | undefined;
    try {
      callbackUrl = await callbackUrlFor(deps, provider, sent ?? unsent);
    } catch (error) {
      // Before this provider was asked: on the first route it cuts the submission short (queued);
      // later, nothing went to this provider, so the walk goes on.
      if (!sent) throw error;
      refusedEverywhere = false;
      deps.telemetry.warn('route skipped: its callback URL could not be made', { task_id: unsent.taskId, provider: provider.name, error: String(error) });
      continue;
    }
    if (!sent) {
      const sentAt = deps.clock().toISOString();
      // The fence: from here on a job may exist, so the task is never sent twice.
      sent = await move(deps.tasks, unsent, 'send', { at: sentAt, set: { sentAt } });
      if (!sent) return { type: 'taken' };
    }
    deps.telemetry.count('ProviderSubmission', { provider: provider.name });
    const attempt = await attemptCreate(deps, provider, sent, callbackUrl, onAccepted);
    await report(deps, provider, unsent, gate, attempt);
    if (attempt.type === 'accepted') deps.telemetry.providerLatency(performance.now() - startedAt, 'accept', provider.name);
    if (attempt.type === 'unknown') return { type: 'unknown', task: attempt.task };
    if (attempt.type !== 'unavailable' && attempt.type !== 'busy') return attempt;
    if (attempt.type === 'busy') busy ??= attempt;
    if (attempt.type === 'busy' || (attempt.reason !== 'refused' && attempt.reason !== 'not_sent')) refusedEverywhere = false;
    if (index < routes.length - 1) {
      const reason = attempt.type === 'busy' ? 'rate_limited' : attempt.reason;
      deps.telemetry.info('create refused before any job existed; next route', { task_id: unsent.taskId, provider: provider.name, reason });
      deps.telemetry.count('ProviderFailover', { provider: provider.name, model: unsent.params.model });
    }
  }
  if (busy) return busy;
  // Every route refused the job itself (none was down or busy): no retry from the queue would be answered otherwise.
  if (refusedEverywhere && sent) return { type: 'rejected', code: 'upstream_error' };
  return { type: 'unavailable', task: sent ?? unsent };
}

/**
 * The first route's circuit word and budget turn, taken while the start's transaction runs
 * (design 32, 5.1), so the create that follows waits on no DynamoDB round of its own. `turn`:
 * true for a provider we do not pace, a turn's time, or false when none is free within the wait.
 */
export interface FirstRoute {
  provider: string;
  gate: CircuitGate;
  turn?: boolean | number;
  /** The budget could not be asked: the create meets it as its own reservation's failure. */
  turnError?: unknown;
}

/**
 * Takes the first route's circuit word (from the container's cache when warm) and a turn in
 * its budget, both at once. A start refused after this, or a circuit found open, leaves its turn
 * unused: the budget's per-second cap still holds. Advice only: undefined when it fails, and the create
 * asks again.
 */
export async function prepareFirstRoute(deps: LifecycleDeps, task: Task, turnWaitMs: number): Promise<FirstRoute | undefined> {
  try {
    const [first] = routesOf(deps, task);
    if (!first) return undefined;
    // The turn alongside the circuit's read (a cache miss), not after it: one round for both.
    const turn = reserveTurn(deps, first, task, turnWaitMs).then(
      (reserved) => ({ turn: reserved }),
      (turnError: unknown) => ({ turnError }),
    );
    const gate = await gateOf(deps, first, task);
    // An open circuit skips the route: its turn goes unused (the per-second cap still holds).
    if (gate.state === 'open') return { provider: first.name, gate };
    return { provider: first.name, gate, ...(await turn) };
  } catch (error) {
    deps.telemetry.warn('first route not prepared; the create asks again', { task_id: task.taskId, error: String(error) });
    return undefined;
  }
}

/** The circuit's word on a provider; a test-mode task's simulated provider has no circuit. */
async function gateOf(deps: LifecycleDeps, provider: GenerationProvider, task: Task): Promise<CircuitGate> {
  if (!deps.circuits || isTestPartition(task.partitionId)) return { state: 'closed', failures: 0 };
  return deps.circuits.gate(provider.name, deps.clock().getTime());
}

/** ProviderFailure's `kind` for a create that did not take: `unavailable` is a 5xx or no answer. */
function failureKind(attempt: Attempt): string | undefined {
  switch (attempt.type) {
    case 'busy':
      return 'rate_limited';
    case 'unavailable':
      return attempt.reason === 'failing' ? 'unavailable' : attempt.reason;
    case 'unknown':
      return 'unknown';
    default:
      return undefined;
  }
}

/** Tells the provider's circuit how its create went, and counts failures by kind. */
async function report(deps: LifecycleDeps, provider: GenerationProvider, task: Task, gate: CircuitGate, attempt: Attempt): Promise<void> {
  const kind = failureKind(attempt);
  if (kind !== undefined) deps.telemetry.count('ProviderFailure', { provider: provider.name, kind });
  if (!deps.circuits || isTestPartition(task.partitionId)) return;
  // Nothing reached the provider (its map has no entry for the model): nothing to tell its circuit.
  if (attempt.type === 'unavailable' && attempt.reason === 'not_sent') return;
  try {
    // Only no answer (a refused connection, a timeout) or a 5xx says the provider is unwell; any
    // answer, a 4xx or a 429 included, says it is up (docs/decisions.md, "What the breaker counts").
    if ((attempt.type === 'unavailable' || attempt.type === 'unknown') && attempt.reason === 'failing') {
      if (await deps.circuits.failed(provider.name, deps.clock().getTime())) {
        deps.telemetry.warn('provider circuit opened: its creates are skipped for the cool-down', { provider: provider.name });
        deps.telemetry.count('CircuitOpened', { provider: provider.name });
      }
    } else {
      await deps.circuits.succeeded(provider.name, gate, deps.clock().getTime());
    }
  } catch (error) {
    // The circuit is advice: its table write failing must not change the task's outcome.
    deps.telemetry.warn('provider circuit not updated', { provider: provider.name, error: String(error) });
  }
}

/** One provider's create, its job recorded on the task when accepted. Never raises. */
async function attemptCreate(
  deps: LifecycleDeps,
  provider: GenerationProvider,
  task: Task,
  callbackUrl: string | undefined,
  onAccepted?: () => Promise<void>,
): Promise<Attempt> {
  try {
    return await createSent(deps, provider, task, callbackUrl, onAccepted);
  } catch (error) {
    deps.telemetry.error('create sent, its outcome unknown', error, { task_id: task.taskId, provider: provider.name });
    // Our own step failed (recording the job): nothing says the provider is unwell.
    return { type: 'unknown', task, reason: 'unreadable' };
  }
}

async function createSent(
  deps: LifecycleDeps,
  provider: GenerationProvider,
  task: Task,
  callbackUrl: string | undefined,
  onAccepted?: () => Promise<void>,
): Promise<Attempt> {
  try {
    const outcome = await provider.submit(jobFor(task), callbackUrl ? { callbackUrl } : {});
    if (outcome.type === 'rejected') {
      logProviderDetail(deps, task, outcome.message);
      return { type: 'rejected', code: outcome.code };
    }
    const job = { name: provider.name, jobId: outcome.jobId, ...(outcome.callbacks && { callbacks: true }) };
    const now = deps.clock().toISOString();
    const [accepted] = await Promise.all([
      move(deps.tasks, task, 'accept', {
        at: now,
        set: { provider: job, lastCheckedAt: now, ...(outcome.queuePosition !== undefined && { queuePosition: outcome.queuePosition, reportedAt: now }) },
        remove: ['queuedAt'],
        guard: { jobId: job.jobId },
      }),
      onAccepted?.(),
    ]);
    if (accepted) {
      // Which provider runs the task, for whoever follows it through the logs (failovers included).
      deps.telemetry.info('job accepted', { task_id: task.taskId, provider: provider.name, job_id: outcome.jobId });
      return { type: 'accepted', task: accepted };
    }
    // The task ended while we were submitting (timed out, canceled): its job must not run on our bill.
    const latest = (await deps.tasks.get(task.partitionId, task.taskId)) ?? task;
    if (latest.provider?.jobId !== outcome.jobId) {
      deps.telemetry.warn('submission recorded too late; its job is canceled', { task_id: task.taskId, job_id: outcome.jobId });
      await cancelQuietly(deps, provider, outcome.jobId, task.taskId);
    }
    return { type: 'accepted', task: latest };
  } catch (error) {
    if (!(error instanceof ProviderUnavailableError)) throw error;
    logProviderDetail(deps, task, error.message);
    if (error instanceof SubmissionUnknownError) return { type: 'unknown', task, reason: error.reason };
    return error.rateLimited
      ? { type: 'busy', task, ...(error.retryAfterSeconds !== undefined && { retryAfterSeconds: error.retryAfterSeconds }) }
      : { type: 'unavailable', task, reason: error.reason };
  }
}

/** Waits for a turn in the provider's budget; false if none is free within `maxWaitMs`. Unpaced providers: at once. */
async function awaitTurn(deps: LifecycleDeps, provider: GenerationProvider, task: Task, maxWaitMs: number): Promise<boolean> {
  return waitForTurn(deps, await reserveTurn(deps, provider, task, maxWaitMs));
}

/** Reserves a turn in the provider's budget: its time, false if none is free within `maxWaitMs`, true when unpaced. */
async function reserveTurn(deps: LifecycleDeps, provider: GenerationProvider, task: Pick<Task, 'partitionId'>, maxWaitMs: number): Promise<boolean | number> {
  // A test-mode task's simulated provider is not an upstream we pace for.
  if (isTestPartition(task.partitionId)) return true;
  const perSecond = deps.settings.providerBudgets[provider.name];
  if (perSecond === undefined) return true;
  // Turns are real time, shared with every other function: not the (testable) task clock.
  return (await deps.budget.reserve(provider.name, perSecond, deps.realTime(), maxWaitMs)) ?? false;
}

/** Sleeps until a reserved turn comes; false when there is none. */
async function waitForTurn(deps: LifecycleDeps, turn: boolean | number): Promise<boolean> {
  if (typeof turn === 'boolean') return turn;
  const wait = turn - deps.realTime();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  return true;
}

/**
 * Our callback route for the task's job, carrying the token that binds it to this task
 * (docs/tasks.md, "Provider callbacks"); undefined (polls only) when there is no route or the
 * provider has no callback secret to derive the token from.
 */
async function callbackUrlFor(deps: LifecycleDeps, provider: GenerationProvider, task: Task): Promise<string | undefined> {
  if (!deps.callbackUrl) return undefined;
  const token = await provider.callbackToken({ provider: provider.name, accountId: task.partitionId, taskId: task.taskId });
  return token === undefined ? undefined : deps.callbackUrl(task, provider.name, token);
}

/** Asks the provider to stop a job we will not use; a failure is logged, never raised. */
export async function cancelQuietly(
  deps: Pick<LifecycleDeps, 'telemetry'>,
  provider: GenerationProvider,
  jobId: string,
  taskId: string,
): Promise<void> {
  try {
    await provider.cancel(jobId);
  } catch (error) {
    deps.telemetry.warn('upstream cancel failed', { task_id: taskId, job_id: jobId, error: String(error) });
  }
}
