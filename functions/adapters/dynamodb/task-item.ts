import {
  GENERATION_TYPES,
  IMAGE_ASPECT_RATIOS,
  IMAGE_MODEL_IDS,
  IMAGE_RESOLUTIONS,
  OUTPUT_FORMATS,
  VIDEO_ASPECT_RATIOS,
  VIDEO_MODEL_IDS,
  VIDEO_RESOLUTIONS,
} from '#domain/catalogue/catalogue';
import { TASK_ERROR_CODES, TASK_STATUSES, type Task, type TaskError } from '#domain/tasks/task';
import { derivePhase, PHASE_NAMES, statusOf, type Phase } from '#domain/tasks/phase';
import { type ImageParams, type VideoParams } from '#domain/catalogue/params';
import { DELIVERY_STATUSES, type Delivery, type DeliveryPart, type Destination, type Destinations } from '#domain/tasks/destinations';
import { inFlightEntry, OUTBOX_PREFIX, taskHistoryKey, taskKey } from './keys';

/**
 * How a task is stored: snake_case attributes, params as a map, index keys while relevant. A
 * task whose start has not settled its positions yet (seq 0) has no history position and so no lsi1sk.
 */
export function toTaskItem(task: Task): Record<string, unknown> {
  return {
    ...taskKey(task.partitionId, task.taskId),
    ...(task.seq > 0 && { lsi1sk: taskHistoryKey(task.kind, task.seq) }),
    ...(task.status === 'processing' && inFlightEntry(task.createdAt, task.taskId)),
    type: 'task',
    kind: task.kind,
    task_id: task.taskId,
    account_id: task.partitionId,
    ...(task.seq > 0 && { seq: task.seq }),
    // Trusted while phase_at = updated_at (phaseOf below). A legacy draft carries none: it is told
    // by its fields. A trusted phase without `seq` is a start whose positions are not settled yet.
    ...(task.phase !== 'draft' && { phase: task.phase, phase_at: task.updatedAt }),
    status: task.status,
    credits_used: task.creditsUsed,
    progress: task.progress,
    queue_position: task.queuePosition,
    reported_at: task.reportedAt,
    params: task.params,
    // Top-level, not in params: they never go to a provider (absent when none, as before they existed).
    end_user: task.endUser,
    metadata: task.metadata,
    provider_name: task.provider?.name,
    provider_job_id: task.provider?.jobId,
    provider_callbacks: task.provider?.callbacks,
    queued_at: task.queuedAt,
    sent_at: task.sentAt,
    unsent: task.unsent,
    submit_attempts: task.submitAttempts,
    last_checked_at: task.lastCheckedAt,
    pending_outputs: task.pendingOutputs,
    copy_claimed_at: task.copyClaimedAt,
    copy_attempts: task.copyAttempts,
    output_urls: task.outputUrls,
    thumbnail_url: task.thumbnailUrl,
    error: task.error,
    key_spend_key_id: task.chargedTo?.keyId,
    key_spend_month: task.chargedTo?.month,
    key_spend_end_user: task.chargedTo?.endUser,
    // Its charge is in the usage roll-ups (written by the start's transaction): its refund goes there too.
    usage_rollup: task.usageCounted && 1,
    created_at: task.createdAt,
    updated_at: task.updatedAt,
    completed_at: task.completedAt,
    output_deleted_at: task.outputDeletedAt,
    // A presigned URL (a credential) until the delivery ends; never in a view or a log.
    destination: task.destination,
    keep_output: task.keepOutput,
    delivery: task.delivery && deliveryItem(task.delivery),
  };
}

/** A delivery as stored: one map, snake_case like the rest of the item. */
export function deliveryItem(delivery: Delivery): Record<string, unknown> {
  return {
    status: delivery.status,
    attempts: delivery.attempts,
    ...(delivery.lastError !== undefined && { last_error: delivery.lastError }),
    ...(delivery.deliveredAt !== undefined && { delivered_at: delivery.deliveredAt }),
    ...(delivery.nextAttemptAt !== undefined && { next_attempt_at: delivery.nextAttemptAt }),
    ...(delivery.claimedUntil !== undefined && { claimed_until: delivery.claimedUntil }),
    ...(delivery.partsDone !== undefined && delivery.partsDone.length > 0 && { parts_done: [...delivery.partsDone] }),
    ...(delivery.eventOwed && { event_owed: true }),
    ...(delivery.eventId !== undefined && { event_id: delivery.eventId }),
  };
}

function deliveryOfItem(value: unknown, problem: (field: string) => Error): Delivery {
  if (!isRecord(value) || !isOneOf(value.status, DELIVERY_STATUSES) || !Number.isInteger(value.attempts)) throw problem('delivery');
  const text = (field: string) => {
    const found = value[field];
    if (found !== undefined && typeof found !== 'string') throw problem(`delivery.${field}`);
    return found;
  };
  const parts = value.parts_done;
  if (parts !== undefined && !(isStringList(parts) && parts.every((part) => part === 'output' || part === 'thumbnail'))) throw problem('delivery.parts_done');
  const lastError = text('last_error');
  const deliveredAt = text('delivered_at');
  const nextAttemptAt = text('next_attempt_at');
  const claimedUntil = text('claimed_until');
  const eventId = text('event_id');
  return {
    status: value.status,
    attempts: value.attempts as number,
    ...(lastError !== undefined && { lastError }),
    ...(deliveredAt !== undefined && { deliveredAt }),
    ...(nextAttemptAt !== undefined && { nextAttemptAt }),
    ...(claimedUntil !== undefined && { claimedUntil }),
    ...(parts !== undefined && { partsDone: parts as DeliveryPart[] }),
    ...(value.event_owed === true && { eventOwed: true as const }),
    ...(eventId !== undefined && { eventId }),
  };
}

function destinationOfItem(value: unknown, problem: (field: string) => Error): Destinations {
  const one = (entry: unknown): Destination => {
    if (!isRecord(entry) || typeof entry.url !== 'string' || !isRecord(entry.headers) || !Object.values(entry.headers).every((header) => typeof header === 'string')) {
      throw problem('destination');
    }
    return { url: entry.url, headers: entry.headers as Record<string, string> };
  };
  if (!isRecord(value)) throw problem('destination');
  return { output: one(value.output), ...(value.thumbnail !== undefined && { thumbnail: one(value.thumbnail) }) };
}

/**
 * A stored item as a task, checked rather than cast: an item that is not a well-formed task
 * (a bug or a hand edit) fails loudly here instead of somewhere downstream.
 */
export function fromTaskItem(item: Record<string, unknown>): Task {
  const problem = (field: string) => new Error(`Malformed task item ${String(item.pk)} ${String(item.sk)}: ${field}.`);
  const text = (field: string): string => {
    const value = item[field];
    if (typeof value !== 'string') throw problem(field);
    return value;
  };
  const optionalText = (field: string): string | undefined => (item[field] === undefined ? undefined : text(field));
  const count = (field: string): number => {
    const value = item[field];
    if (typeof value !== 'number' || !Number.isInteger(value)) throw problem(field);
    return value;
  };
  if (!isOneOf(item.status, TASK_STATUSES)) throw problem('status');
  const outputs = (field: string): string[] | undefined => {
    const value = item[field];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || !value.every((url) => typeof url === 'string')) throw problem(field);
    return value;
  };
  const providerJobId = optionalText('provider_job_id');
  const lastCheckedAt = optionalText('last_checked_at');
  const queuedAt = optionalText('queued_at');
  const sentAt = optionalText('sent_at');
  if (item.provider_callbacks !== undefined && typeof item.provider_callbacks !== 'boolean') throw problem('provider_callbacks');
  if (item.unsent !== undefined && typeof item.unsent !== 'boolean') throw problem('unsent');
  const pendingOutputs = outputs('pending_outputs');
  const outputUrls = outputs('output_urls');
  const completedAt = optionalText('completed_at');
  const copyClaimedAt = optionalText('copy_claimed_at');
  const thumbnailUrl = optionalText('thumbnail_url');
  const keySpendKeyId = optionalText('key_spend_key_id');
  const endUser = optionalText('end_user');
  const keySpendEndUser = optionalText('key_spend_end_user');
  if (item.metadata !== undefined && !(isRecord(item.metadata) && Object.values(item.metadata).every((value) => typeof value === 'string'))) {
    throw problem('metadata');
  }
  const outputDeletedAt = optionalText('output_deleted_at');
  // In the outbox (keys.ts): its ending's events are not published yet.
  const unannounced = typeof item.gsi2pk === 'string' && item.gsi2pk.startsWith(OUTBOX_PREFIX);
  if (item.phase !== undefined && !isOneOf(item.phase, PHASE_NAMES)) throw problem('phase');
  const phase = phaseOf(item, { status: item.status, seq: item.seq as number | undefined, unsent: item.unsent === true, queuedAt, providerJobId, pendingOutputs });
  const base = {
    taskId: text('task_id'),
    partitionId: text('account_id'),
    // A draft (its start not settled yet) has no position: 0.
    seq: item.seq === undefined ? 0 : count('seq'),
    phase,
    status: statusOf(phase),
    creditsUsed: count('credits_used'),
    // Items written before progress existed read as 0.
    progress: item.progress === undefined ? 0 : count('progress'),
    ...(item.queue_position !== undefined && { queuePosition: count('queue_position') }),
    ...(typeof item.reported_at === 'string' && { reportedAt: item.reported_at }),
    ...(providerJobId && {
      provider: { name: text('provider_name'), jobId: providerJobId, ...(item.provider_callbacks === true && { callbacks: true }) },
    }),
    ...(queuedAt && { queuedAt }),
    ...(sentAt && { sentAt }),
    ...(item.unsent === true && { unsent: true as const }),
    ...(item.submit_attempts !== undefined && { submitAttempts: count('submit_attempts') }),
    ...(lastCheckedAt && { lastCheckedAt }),
    ...(pendingOutputs && { pendingOutputs }),
    ...(copyClaimedAt && { copyClaimedAt }),
    copyAttempts: item.copy_attempts === undefined ? 0 : count('copy_attempts'),
    ...(outputUrls && { outputUrls }),
    ...(thumbnailUrl && { thumbnailUrl }),
    ...(item.error !== undefined && { error: taskError(item.error, problem) }),
    ...(endUser !== undefined && { endUser }),
    ...(item.metadata !== undefined && { metadata: item.metadata as Record<string, string> }),
    ...(keySpendKeyId && { chargedTo: { keyId: keySpendKeyId, month: text('key_spend_month'), ...(keySpendEndUser !== undefined && { endUser: keySpendEndUser }) } }),
    ...(item.usage_rollup === 1 && { usageCounted: true as const }),
    createdAt: text('created_at'),
    updatedAt: text('updated_at'),
    ...(completedAt && { completedAt }),
    ...(outputDeletedAt && { outputDeletedAt }),
    ...(unannounced && { unannounced: true as const }),
    ...(item.destination !== undefined && { destination: destinationOfItem(item.destination, problem) }),
    ...(item.keep_output === false && { keepOutput: false as const }),
    ...(item.delivery !== undefined && { delivery: deliveryOfItem(item.delivery, problem) }),
  };
  const { kind, params } = item;
  if (kind === 'video' && isVideoParams(params)) return { kind, ...base, params };
  if (kind === 'image' && isImageParams(params)) return { kind, ...base, params };
  throw problem(kind === 'video' || kind === 'image' ? 'params' : 'kind');
}

/**
 * The stored phase when it can be trusted: written by a phase-changing write of this code, which
 * sets `phase`, `phase_at` and `updated_at` to one instant. The code before phases bumps only
 * `updated_at`, so an item it changed (a rolling deploy) is judged again from its fields.
 */
function phaseOf(item: Record<string, unknown>, legacy: Parameters<typeof derivePhase>[0]): Phase {
  const trusted = item.phase !== undefined && item.phase_at !== undefined && item.phase_at === item.updated_at;
  return trusted ? (item.phase as Phase) : derivePhase(legacy);
}

function isOneOf<T extends string>(value: unknown, allowed: readonly T[]): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((entry) => typeof entry === 'string');

function taskError(value: unknown, problem: (field: string) => Error): TaskError {
  if (!isRecord(value) || !isOneOf(value.code, TASK_ERROR_CODES) || typeof value.message !== 'string') throw problem('error');
  return { code: value.code, message: value.message };
}

function isVideoParams(value: unknown): value is VideoParams {
  return (
    isRecord(value) &&
    isOneOf(value.model, VIDEO_MODEL_IDS) &&
    isOneOf(value.generationType, GENERATION_TYPES) &&
    typeof value.prompt === 'string' &&
    (value.imageUrl === undefined || typeof value.imageUrl === 'string') &&
    isOneOf(value.aspectRatio, VIDEO_ASPECT_RATIOS) &&
    Number.isInteger(value.duration) &&
    isOneOf(value.resolution, VIDEO_RESOLUTIONS) &&
    (value.endImageUrl === undefined || typeof value.endImageUrl === 'string') &&
    hasValidExtras(value)
  );
}

/** seed and negativePrompt, on both kinds (absent on items written before they existed). */
function hasValidExtras(value: Record<string, unknown>): boolean {
  return (
    (value.seed === undefined || Number.isInteger(value.seed)) &&
    (value.negativePrompt === undefined || typeof value.negativePrompt === 'string')
  );
}

function isImageParams(value: unknown): value is ImageParams {
  return (
    isRecord(value) &&
    isOneOf(value.model, IMAGE_MODEL_IDS) &&
    typeof value.prompt === 'string' &&
    isOneOf(value.resolution, IMAGE_RESOLUTIONS) &&
    isOneOf(value.aspectRatio, IMAGE_ASPECT_RATIOS) &&
    isOneOf(value.outputFormat, OUTPUT_FORMATS) &&
    (value.images === undefined || isStringList(value.images)) &&
    hasValidExtras(value)
  );
}
