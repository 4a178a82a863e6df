import { NotFoundError, UnauthorizedError, ValidationError } from './errors';
import { CallbackRejectedError, type CallbackRequest, type GenerationProvider, type ProviderCallback } from './provider';
import { providerNamed } from './provider-choice';
import { cancelQuietly } from './submission';
import type { Task } from './task';
import { applyOutcome, type LifecycleDeps } from './task-lifecycle';

/** Which task a callback is for: our callback URL names it (docs/tasks.md, "Provider callbacks"). */
export interface CallbackTarget {
  provider: string;
  accountId: string;
  taskId: string;
}

/** What became of a verified callback (for logs and tests; the provider is answered 200 either way). */
export type CallbackResult =
  /** Its task moved on (or already had: a repeat is harmless). */
  | 'applied'
  /** Its task had no job yet (the create's answer was lost): the job is now the task's. */
  | 'adopted'
  /** A job the task does not count on (it ended without it): canceled upstream, nothing else changed. */
  | 'orphaned';

/**
 * A provider's callback: verified first (a forged, stale or unreadable one changes nothing and is
 * refused 4xx), then applied with the same conditional transitions a poll uses, so a callback
 * racing a poll, a cancel or its own repeat has one outcome.
 */
export async function receiveProviderCallback(
  deps: LifecycleDeps,
  target: CallbackTarget,
  request: CallbackRequest,
): Promise<CallbackResult> {
  const provider = callingProvider(deps, target);
  const callback = await verified(provider, request, deps.clock());
  const notFound = () => new NotFoundError(`No task "${target.taskId.slice(0, 64)}" awaits a callback here.`);

  for (let attempt = 0; attempt < 2; attempt += 1) {
    const task = await deps.tasks.get(target.accountId, target.taskId);
    if (!task) throw notFound();
    if (task.provider?.jobId === callback.jobId) {
      await apply(deps, task, callback);
      return 'applied';
    }
    if (!task.provider && task.status === 'processing') {
      const job = { name: provider.name, jobId: callback.jobId, callbacks: true };
      if (await deps.tasks.recordSubmission(task, job, deps.clock().toISOString())) {
        deps.telemetry.info('provider job adopted from its callback', { task_id: task.taskId, job_id: callback.jobId });
        await apply(deps, { ...task, provider: job }, callback);
        return 'adopted';
      }
      // Something else recorded a job meanwhile (the create's answer, another callback): look again.
      continue;
    }
    break;
  }
  // The task ended without this job (refunded when its create went unanswered) or has another:
  // the job must not run on for nobody. A job that already ended has nothing left to stop.
  if (callback.outcome.type === 'processing') await cancelQuietly(deps, provider, callback.jobId, target.taskId);
  deps.telemetry.warn('callback for a job the task does not count on', { task_id: target.taskId, job_id: callback.jobId });
  deps.telemetry.count('OrphanJobCanceled');
  return 'orphaned';
}

async function apply(deps: LifecycleDeps, task: Task, callback: ProviderCallback): Promise<void> {
  if (task.status !== 'processing') return;
  deps.telemetry.count('ProviderCallback', { model: task.params.model });
  // News from the job: polls upstream wait for the silence again.
  await deps.tasks.claimCheck(task, deps.clock(), 0);
  await applyOutcome(deps, task, callback.outcome);
}

/**
 * The provider a callback route names, among those a task of the account's scope may run on (a
 * test-mode task's is the simulated one; a live task's, any configured here, so a job sent before
 * PROVIDER changed still reports): the signature is then checked with that provider's secret only.
 */
function callingProvider(deps: LifecycleDeps, target: CallbackTarget): GenerationProvider {
  const provider = providerNamed(deps, target.accountId, target.provider);
  if (!provider) throw new NotFoundError(`No provider "${target.provider.slice(0, 64)}" calls back here.`);
  return provider;
}

async function verified(provider: GenerationProvider, request: CallbackRequest, now: Date): Promise<ProviderCallback> {
  try {
    return await provider.readCallback(request, now);
  } catch (error) {
    if (!(error instanceof CallbackRejectedError)) throw error;
    if (error.reason === 'malformed') throw new ValidationError(`The callback could not be read: ${error.message}`, 'body');
    throw new UnauthorizedError(
      error.reason === 'stale'
        ? 'The callback is too old (or from the future): its signed timestamp must be within 5 minutes.'
        : 'The callback signature is missing or does not verify.',
    );
  }
}
