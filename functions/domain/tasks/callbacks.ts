import { timingSafeEqual } from 'node:crypto';
import { NotFoundError, UnauthorizedError, ValidationError } from '../shared/errors';
import type { CallbackReceipts } from './ports';
import {
  CALLBACK_TOLERANCE_SECONDS,
  CallbackRejectedError,
  type CallbackRequest,
  type CallbackTarget,
  type GenerationProvider,
  type ProviderCallback,
} from '../providers/provider';
import { providerNamed } from '../providers/choice';
import { cancelQuietly } from './submission';
import type { Task } from './task';
import { applyOutcome, claimCheck } from './lifecycle/outcomes';
import { move } from './transitions';
import { type LifecycleDeps } from './lifecycle/deps';

export type { CallbackTarget } from '../providers/provider';

/**
 * Where a callback arrived: the task its URL names, and the token the URL carried (URLs given
 * to jobs created before tokens existed carry none).
 */
export interface CallbackAddress extends CallbackTarget {
  token?: string;
}

/** What became of a verified callback (for logs and tests; the provider is answered 200 either way). */
export type CallbackResult =
  /** Its task moved on (or already had: a repeat is harmless). */
  | 'applied'
  /** Its task had no job yet (the create's answer was lost): the job is now the task's. */
  | 'adopted'
  /** A job created for this task that it does not count on: canceled upstream, nothing else changed. */
  | 'orphaned'
  /** A message already received (same webhook-id): a replay or a retry, and nothing changed. */
  | 'duplicate';

export interface CallbackDeps extends LifecycleDeps {
  callbackReceipts: CallbackReceipts;
}

/** How long a message id is remembered: any replay later than this fails the signature's time check. */
const RECEIPT_KEEP_MS = 2 * CALLBACK_TOLERANCE_SECONDS * 1000;

/**
 * A provider's callback: its URL's token checked first (a callback only ever acts on the task
 * it was made for), then its signature (a forged, stale or unreadable one changes nothing and is
 * refused 4xx), then its message id (a repeat changes nothing), then applied with the same
 * conditional transitions a poll uses, so a callback racing a poll, a cancel or its own repeat
 * has one outcome.
 */
export async function receiveProviderCallback(
  deps: CallbackDeps,
  address: CallbackAddress,
  request: CallbackRequest,
): Promise<CallbackResult> {
  const provider = callingProvider(deps, address);
  const target: CallbackTarget = { provider: address.provider, accountId: address.accountId, taskId: address.taskId };
  const bound = address.token !== undefined;
  if (bound) await checkToken(provider, target, address.token!);
  const callback = await verified(provider, request, deps.clock());

  const { messageId } = callback;
  if (messageId !== undefined) {
    const now = deps.clock();
    if (!(await deps.callbackReceipts.claim(provider.name, messageId, now, new Date(now.getTime() + RECEIPT_KEEP_MS)))) {
      deps.telemetry.warn('callback message received before; ignored', { task_id: target.taskId, job_id: callback.jobId });
      return 'duplicate';
    }
  }
  try {
    return bound ? await actOn(deps, provider, target, callback) : await actUnbound(deps, provider, target, callback);
  } catch (error) {
    // Not handled: the provider's retry of this message must not be taken for a replay.
    if (messageId !== undefined) await deps.callbackReceipts.release(provider.name, messageId).catch(() => undefined);
    throw error;
  }
}

/** A callback whose URL names its task with a valid token: it may apply, adopt or orphan. */
async function actOn(deps: LifecycleDeps, provider: GenerationProvider, target: CallbackTarget, callback: ProviderCallback): Promise<CallbackResult> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const task = await deps.tasks.get(target.accountId, target.taskId);
    if (!task) throw notFound(target);
    if (isTaskJob(task, provider, callback)) {
      await apply(deps, task, callback);
      return 'applied';
    }
    if (!task.provider && task.status === 'processing') {
      const job = { name: provider.name, jobId: callback.jobId, callbacks: true };
      const now = deps.clock().toISOString();
      const adopted = await move(deps.tasks, task, 'accept', { at: now, set: { provider: job, lastCheckedAt: now }, remove: ['queuedAt'], guard: { jobId: job.jobId } });
      if (adopted) {
        deps.telemetry.info('provider job adopted from its callback', { task_id: task.taskId, job_id: callback.jobId });
        await apply(deps, adopted, callback);
        return 'adopted';
      }
      // Something else recorded a job meanwhile (the create's answer, another callback): look again.
      continue;
    }
    break;
  }
  // Only a create for this task was given this URL, so the job is one of ours for it that the
  // task ended without (refunded when its create went unanswered) or a second one: it must not
  // run on for nobody. A job that already ended has nothing left to stop.
  if (callback.outcome.type === 'processing') await cancelQuietly(deps, provider, callback.jobId, target.taskId);
  deps.telemetry.warn('callback for a job the task does not count on', { task_id: target.taskId, job_id: callback.jobId });
  deps.telemetry.count('OrphanJobCanceled');
  return 'orphaned';
}

/**
 * A callback to a URL without a token (given to a job created before tokens existed): nothing
 * binds it to the task its URL names, so it only applies to a task whose recorded job is the
 * one it reports; it never adopts a job nor cancels one (docs/decisions.md).
 */
async function actUnbound(deps: LifecycleDeps, provider: GenerationProvider, target: CallbackTarget, callback: ProviderCallback): Promise<CallbackResult> {
  const task = await deps.tasks.get(target.accountId, target.taskId);
  if (!task || !isTaskJob(task, provider, callback)) throw notFound(target);
  await apply(deps, task, callback);
  return 'applied';
}

const isTaskJob = (task: Task, provider: GenerationProvider, callback: ProviderCallback) =>
  task.provider?.name === provider.name && task.provider.jobId === callback.jobId;

const notFound = (target: CallbackTarget) => new NotFoundError(`No task "${target.taskId.slice(0, 64)}" awaits a callback here.`);

/** Refuses a URL token that is not the one we gave for this task (before anything is read). */
async function checkToken(provider: GenerationProvider, target: CallbackTarget, token: string): Promise<void> {
  const expected = await provider.callbackToken(target);
  const given = Buffer.from(token);
  if (expected === undefined || given.length !== Buffer.byteLength(expected) || !timingSafeEqual(given, Buffer.from(expected))) {
    throw new UnauthorizedError("The callback URL's token is not this task's.");
  }
}

async function apply(deps: LifecycleDeps, task: Task, callback: ProviderCallback): Promise<void> {
  if (task.status !== 'processing') return;
  deps.telemetry.count('ProviderCallback', { model: task.params.model });
  // News from the job: polls upstream wait for the silence again.
  const checked = await claimCheck(deps, task, deps.clock(), 0);
  await applyOutcome(deps, checked ?? task, callback.outcome);
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
