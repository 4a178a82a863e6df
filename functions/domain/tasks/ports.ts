import type { MonthlyKeySpend } from '../accounts/spending-key';
import type { LedgerEntry } from '../accounts/ledger';
import type { MediaKind } from '../catalogue/media-type';
import type { Task, TaskError, TaskKind } from './task';
import type { InFlightPhase, Phase } from './phase';
import type { EndingEntry, TaskPatch } from './transitions';

/**
 * What the task use cases need from storage, queues and media. The adapters in
 * functions/adapters/ implement these; the domain never sees a table, a key template or an SDK call.
 */

/**
 * What a start writes in one atomic step (docs/data-model.md, "Starting a task"): the task, its
 * charge, and the admission rules as the step's conditions, so a refused start writes nothing.
 */
export interface StartWrite {
  /** The task in phase `claimed`, without its history position (`settlePositions` gives it). */
  task: Omit<Task, 'seq'>;
  charge: LedgerEntry;
  /**
   * A start through an API key: its spend this month is counted with the charge, and with a
   * limit the start is refused when the charge would pass it.
   */
  keySpend?: MonthlyKeySpend;
  idempotency?: IdempotencyClaim;
  /** The partition's own account must have paid access and an active subscription (a live partition). */
  paidAccess?: boolean;
}

/**
 * Why a start was refused, every rule that refused it (the domain's judgeStart picks the
 * answer, in the API's order). Nothing was written.
 */
export interface StartRefusals {
  /** The Idempotency-Key is held by an earlier request: its record. */
  claim?: IdempotencyRecord;
  /** The account lacks the paid access `paidAccess` asked for. */
  paidAccess?: true;
  /** The key's month would pass its limit: its spend as it stood. */
  spend?: { spent: number };
  /** The end user's month through the key would pass the key's limit per end user: that spend as it stood. */
  endUserSpend?: { spent: number };
  /** The balance is below the price: the balance as it stood. */
  credits?: { available: number };
  /** The partition has no account item (a test balance not opened yet, or no account). */
  noAccount?: true;
}

export type StartResult = { type: 'started'; task: Task } | { type: 'refused'; refusals: StartRefusals };

/** A task named by the in-flight index (which holds keys only). */
export interface TaskRef {
  accountId: string;
  taskId: string;
}

/**
 * The sweeper's work lists: each in-flight phase's own, and `unmoved`, the tasks indexed at their
 * start and not moved since (a start cut short before its create, a legacy draft, and items
 * written before phases). Every processing task is in exactly one of them. `delivering` lists the
 * completed tasks being delivered to the customer's storage once their completion is announced
 * (before, they are in the outbox); `deleting` the completed tasks whose outputs are being removed
 * (a removal cut short is finished by the sweeper).
 */
export type InFlightList = InFlightPhase | 'unmoved' | 'delivering' | 'deleting';

/** How the repair of a draft (a start that never settled) ended. */
export type StartRepair = 'refunded' | 'discarded' | 'settled';

export interface TaskStore {
  /**
   * One atomic step (one DynamoDB transaction): claims the Idempotency-Key, counts the key's
   * spend within its limit, takes the price off the balance (never below zero, with paid access
   * when asked) and allocates the task's history and ledger positions, puts the task (`seq` 0:
   * positions pending) and its charge. Refused: every rule that refused, and nothing written.
   */
  start(write: StartWrite): Promise<StartResult>;
  /**
   * Gives a started task the history position its start allocated, and its charge the ledger
   * position, in one step; idempotent (a task already settled is returned as stored).
   */
  settlePositions(task: Task): Promise<Task>;
  get(partitionId: string, taskId: string): Promise<Task | undefined>;
  /**
   * The task, and with it in the same round what a refund of it needs (a cancel, design 32
   * §5.6): the account's ledger count, which the failure's patch hands back (`ledgerSeen`).
   */
  getForRefund(partitionId: string, taskId: string): Promise<{ task: Task | undefined; ledgerSeen?: number }>;
  /**
   * The one conditional write of a task (transitions.ts `move`): only while its stored phase is
   * one of `from` and `patch.guard` holds, it enters `to` at `patch.at` ('same': a touch that keeps
   * the phase and its instant) with the patch applied; a refund goes in the same transaction.
   * The stored task after the write, or undefined when refused (or the task does not exist).
   */
  transition(task: Task, from: readonly Phase[], to: Phase | 'same', patch: TaskPatch): Promise<Task | undefined>;
  /** One page of an account's tasks of a kind, newest first, and the total count. */
  listPage(partitionId: string, kind: TaskKind, page: number, limit: number): Promise<{ tasks: Task[]; total: number }>;
  /**
   * The same page of one end user's tasks only (those started naming it), numbered as the
   * account's are: it costs the page, whatever the size of the account. A task just settled may
   * be missing for a moment (the adapter's index is eventually consistent); the total is not.
   */
  listEndUserPage(partitionId: string, endUser: string, kind: TaskKind, page: number, limit: number): Promise<{ tasks: Task[]; total: number }>;
  /** One list of tasks still processing: one stream per in-flight shard, each oldest first, read page by page. */
  listInFlight(list: InFlightList): AsyncIterable<TaskRef>[];
  /**
   * Settles a draft whose start was cut short (a crash between its steps): if its charge was
   * taken, the task takes its reserved position as failed and is refunded; otherwise the draft
   * is discarded. Only for drafts older than any start can run. 'settled' if nothing was left to do.
   */
  repairStart(draft: Task, error: TaskError, now: string): Promise<StartRepair>;
  /** Tasks that ended and whose events may not be published yet (the outbox), in shards. */
  listUnannounced(): AsyncIterable<TaskRef>[];
  /**
   * A partition's completed tasks whose outputs are stored, completed strictly before `before`
   * (an ISO instant), oldest first: the retention's work list. Listed once their completion is
   * announced, until their outputs are deleted.
   */
  listCompletedBefore(partitionId: string, before: string): AsyncIterable<TaskRef>;
}

/** A task whose create waits on the submission queue: the queue's message. */
/**
 * How long tasks take, start to completion, per provider and model: a small recent sample,
 * written when a task completes (never on the start path) and read through a short cache.
 */
export interface TaskDurations {
  record(provider: string, model: string, task: { taskId: string; createdAt: string; completedAt: string }): Promise<void>;
  /** The median of the recent samples; null with too few (no history yet). */
  typicalMs(provider: string, model: string, now: Date): Promise<number | null>;
}

export interface SubmissionRequest {
  accountId: string;
  taskId: string;
}

/** Publishes a task's ending to whoever listens (its events feed, the customer's webhooks). Safe to repeat. */
export interface TaskEndings {
  ended(task: Task): Promise<void>;
  /**
   * Where publishing reads the store (the partition's endpoints, the feed's position): those
   * reads, made now, so a cancel makes them alongside its own (endings.ts announceEnded).
   */
  prepare?(partitionId: string): Promise<PreparedEndings>;
}

/** A partition's endings, with what publishing them reads already read. */
export interface PreparedEndings {
  /**
   * The ending's feed entry when that entry is its whole publication (no endpoint wants the
   * event): the announce writes it (TaskPatch.feedEntry). Undefined when endpoints want it.
   */
  quietEntry(task: Task): EndingEntry | undefined;
  /** TaskEndings.ended, with what was read ahead. */
  ended(task: Task): Promise<void>;
}

/** A request's claim on an Idempotency-Key (24 h; same body -> same answer). */
export interface IdempotencyClaim {
  accountId: string;
  key: string;
  /** Hash of the endpoint and the validated request. */
  requestHash: string;
  taskId: string;
  createdAt: string;
  expiresAt: number;
}

export interface IdempotencyRecord extends IdempotencyClaim {
  /** How the first request ended, once it has: its task was started, or submission failed. */
  outcome?: { type: 'created' } | { type: 'upstream_error'; message: string };
}

export interface IdempotencyStore {
  get(accountId: string, key: string, now: Date): Promise<IdempotencyRecord | undefined>;
  recordOutcome(claim: IdempotencyClaim, outcome: NonNullable<IdempotencyRecord['outcome']>): Promise<void>;
}

/** Our storage for results: copies a provider's output in, streaming, and names its public URL. */
export interface MediaStore {
  /**
   * Streams `sourceUrl` into our bucket at `key`; returns our public URL for it. Throws
   * OutputRefusedError (media-type.ts) for one of our own objects outside a provider's output
   * folder, or for bytes that are not of `kind`.
   */
  copyFromUrl(sourceUrl: string, key: string, contentType: string, kind: MediaKind): Promise<string>;
  remove(key: string): Promise<void>;
}

/**
 * Makes a video's poster: its first frame as a JPEG stored at `key`, from the video already in
 * our storage at `videoKey`; returns the JPEG's public URL. Throws when the video cannot be decoded.
 */
export interface Thumbnails {
  firstFrame(videoKey: string, key: string): Promise<string>;
}

/** Which task to deliver to its destination: the output delivery queue's message (delivery.ts). */
export interface DeliveryRef {
  accountId: string;
  taskId: string;
}

/** Which task's outputs to copy: the copy worker's event. */
export interface CopyRequest {
  accountId: string;
  taskId: string;
}

/** Asks for a task's outputs to be copied soon, off the request path. */
export interface CopyQueue {
  enqueue(request: CopyRequest): Promise<void>;
}

/**
 * Which user-supplied reference image URLs we refuse, judged before a charge: from the URL, and
 * for our own files from what storage holds (never by fetching anyone else's URL).
 */
export interface ReferenceUrlPolicy {
  /** Why `url` would be refused (words a client can act on), or undefined. */
  whyRefused(url: string): Promise<string | undefined>;
}

/**
 * The provider callback messages already received, by the provider's message id (webhook-id),
 * kept while a replay of one could still pass the signature's time check.
 */
export interface CallbackReceipts {
  /**
   * True for exactly one caller per provider and message id until `keepUntil`; false for a
   * repeat (a replay, or the provider's retry of a message we already took).
   */
  claim(provider: string, messageId: string, now: Date, keepUntil: Date): Promise<boolean>;
  /** Forgets a claim whose message could not be handled, so the provider's retry is taken. */
  release(provider: string, messageId: string): Promise<void>;
}
