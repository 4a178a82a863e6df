import type { Account, SubscriptionStatus } from './accounts/account';
import type { ApiKeyRecord } from './accounts/api-key';
import type { BillingEvent, Purchase, Reversal, ReversalEntry } from './billing/billing';
import type { Holder, IdentityHolder } from './accounts/holder';
import type { ImageContentType } from './catalogue/image-type';
import type { KeySpend } from './accounts/spending-key';
import type { LedgerEntry } from './accounts/ledger';
import type { MediaKind } from './catalogue/media-type';
import type { ProviderJob, Task, TaskError, TaskKind } from './tasks/task';

/**
 * What the use cases need from storage. The adapters in functions/adapters/ implement
 * these; the domain never sees a table, a key template or an SDK call.
 */
export interface AccountStore {
  get(accountId: string): Promise<Account | undefined>;
  /** Creates the account and, when given, its opening grant, atomically. */
  create(account: Account, openingGrant?: LedgerEntry): Promise<void>;
  /** Throws NotFoundError when the account does not exist. */
  updateAccess(
    accountId: string,
    changes: { paidAccess?: boolean; subscriptionStatus?: SubscriptionStatus },
    now: string,
  ): Promise<Account>;
  /** Adds a positive grant to the balance together with its ledger entry. */
  grant(entry: LedgerEntry): Promise<void>;
}

/**
 * Every account, for operators (the admin CLI's `account list`), test balances (their own
 * scope, `acc_…_test`) included, in no particular order. It reads the whole table: never on a
 * request's path.
 */
export interface AccountDirectory {
  listAll(): Promise<Account[]>;
}

/** Account holders and the account each acts on (functions/domain/holder.ts). */
export interface HolderStore {
  get(holderId: string): Promise<Holder | undefined>;
  /**
   * Creates the account (with its opening grant, when given) and the holder's mapping to it in
   * one step. Throws HolderExistsError when the holder already has an account, and then
   * nothing is created.
   */
  createWithAccount(holder: Holder, account: Account, openingGrant?: LedgerEntry): Promise<void>;
  /** Maps the holder to an existing account. Throws HolderExistsError when the holder has one. */
  attach(holder: Holder): Promise<void>;
}

/**
 * The identity provider, as sessions need it. `verifyAccessToken` checks the token itself (the
 * signature against the provider's published keys, issuer, client, token use, expiry) and
 * answers the holder's id, or undefined for any token that fails. `currentHolder` asks the
 * provider whether that holder still exists, is enabled and has not signed out everywhere
 * (a signature cannot say so): undefined when not.
 */
export interface IdentityProvider {
  verifyAccessToken(token: string): Promise<{ holderId: string } | undefined>;
  currentHolder(token: string): Promise<IdentityHolder | undefined>;
}

export interface ApiKeyStore {
  /**
   * Stores a new key, unless its account already has `maxActive` unrevoked keys (false then;
   * exact under concurrency). Fails if a key with the same id already exists.
   */
  create(record: ApiKeyRecord, maxActive: number): Promise<boolean>;
  get(keyId: string): Promise<ApiKeyRecord | undefined>;
  listForAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Changes a key of this account; undefined for an unknown key or another account's. */
  update(accountId: string, keyId: string, changes: ApiKeyChanges): Promise<ApiKeyRecord | undefined>;
  /**
   * Marks the key revoked (idempotent: a second revoke keeps the first time) and frees its place
   * among the account's keys. Throws NotFoundError for an unknown key, or for another account's
   * when `accountId` is given.
   */
  revoke(keyId: string, now: string, accountId?: string): Promise<ApiKeyRecord>;
  /** Notes a use of the key (at most one write per key and minute: the caller's rate window). */
  recordUse(keyId: string, at: string): Promise<void>;
  /** Credits charged through each key in `month` (`yyyy-mm`, UTC), less their refunds. */
  spentInMonth(keyIds: readonly string[], month: string): Promise<Map<string, number>>;
}

/** What PATCH /keys/{key_id} may change; a null limit removes it. */
export interface ApiKeyChanges {
  name?: string;
  scopes?: ApiKeyRecord['scopes'];
  monthlySpendLimit?: number | null;
}

export interface LedgerStore {
  listForAccount(accountId: string): Promise<LedgerEntry[]>;
  /**
   * One page of a scope's ledger, newest first, and how many entries it has. Entries are
   * numbered 1..total in the order they were written, so a page reads only its own entries.
   */
  listPage(accountId: string, page: number, limit: number): Promise<{ entries: LedgerEntry[]; total: number }>;
}

/** What a use case needs to create a charged task. */
export interface NewTaskRequest {
  /** The task, without its history position (the store assigns `seq`). */
  task: Omit<Task, 'seq'>;
  charge: LedgerEntry;
  /** The account's task count of this kind as last read (informative; the store allocates). */
  expectedCount: number;
  /**
   * A start through an API key: its spend this month is counted with the charge, and with a
   * limit the start is refused (nothing charged) when the charge would pass it. Checked before
   * the balance.
   */
  keySpend?: KeySpend;
  idempotency?: IdempotencyClaim;
}

/** A task named by the in-flight index (which holds keys only). */
export interface TaskRef {
  accountId: string;
  taskId: string;
}

/** How the repair of a draft (a start that never settled) ended. */
export type StartRepair = 'refunded' | 'discarded' | 'settled';

export type CreateTaskResult =
  | { type: 'created'; task: Task }
  | { type: 'insufficient_credits'; available: number }
  /** The key's monthly spend limit would be passed; `spent` is its month's spend as it stood. */
  | { type: 'spend_limit_exceeded'; spent: number }
  /** The idempotency key was already used (by an earlier or a concurrent request). */
  | { type: 'idempotency_key_used'; record: IdempotencyRecord };

export interface TaskStore {
  /**
   * Takes the price off the balance (never below zero) and the next history position in one
   * atomic account update, and creates the task `processing` at that position with its ledger
   * charge and, when given, the idempotency claim. Concurrent starts of one account never
   * conflict (docs/data-model.md, "Starting a task"); a start cut short is settled by
   * `repairStart`.
   */
  create(request: NewTaskRequest): Promise<CreateTaskResult>;
  get(accountId: string, taskId: string): Promise<Task | undefined>;
  /**
   * Records the provider's job (and ends any wait on the submission queue). False if the task
   * is no longer processing or already has another job.
   */
  recordSubmission(task: Task, provider: ProviderJob, now: string): Promise<boolean>;
  /**
   * Puts a task with no job on the submission queue's books (`queuedAt`, `submitAttempts`,
   * `unsent`). False if it is no longer processing, has a job, is already queued, or its
   * create was sent since `task` was read (`unsent`, `sentAt` as the caller saw them), so
   * only the holder of a create that was refused can queue it again.
   */
  markQueued(task: Task, now: string, attempts: number): Promise<boolean>;
  /**
   * Takes a queued task off the queue's books to send its create now (it stays `unsent`):
   * true for exactly one caller, so a message delivered twice never submits twice.
   */
  claimQueued(task: Task, now: string): Promise<boolean>;
  /**
   * Written just before a create is sent: `sentAt`, and the `unsent` mark removed. True for
   * exactly one caller, and only while the task is processing, unsent, not queued and has no job.
   */
  markSent(task: Task, now: string): Promise<boolean>;
  /**
   * Claims the right to ask the provider now: succeeds only if nobody asked within
   * `minIntervalMs` (so concurrent polls share one upstream check).
   */
  claimCheck(task: Task, now: Date, minIntervalMs: number): Promise<boolean>;
  /** Stores the provider's output URLs awaiting copy. False if already stored or final. */
  recordOutputs(task: Task, outputUrls: string[], now: string): Promise<boolean>;
  /**
   * Claims the copy of a task's pending outputs for `leaseMs`: true for one caller at a time, so
   * a copy asked for again while one runs (the sweeper asks every minute) is left to the first.
   * False if the task is final, has no pending outputs, or another claim is younger than `leaseMs`.
   */
  claimCopy(task: Task, now: Date, leaseMs: number): Promise<boolean>;
  /** Counts a failed copy and gives up its claim; returns the new count, or undefined if the task is already final. */
  recordCopyFailure(task: Task, now: string): Promise<number | undefined>;
  /** processing -> completed with our URLs (and a video's thumbnail). False if the task was already final. */
  complete(task: Task, outputUrls: string[], now: string, thumbnailUrl?: string): Promise<boolean>;
  /**
   * processing -> failed and the refund with its ledger entry, in one transaction, so the
   * refund happens exactly once however many callers race. False if already final.
   */
  failAndRefund(task: Task, error: TaskError, refund: LedgerEntry, now: string, options?: FailOptions): Promise<boolean>;
  /** Raises the stored progress (never lowers it) while the task is processing. */
  recordProgress(task: Task, progress: number): Promise<void>;
  /** One page of an account's tasks of a kind, newest first, and the total count. */
  listPage(accountId: string, kind: TaskKind, page: number, limit: number): Promise<{ tasks: Task[]; total: number }>;
  /** Tasks still processing: one stream per in-flight shard, each oldest first, read page by page. */
  listProcessing(): AsyncIterable<TaskRef>[];
  /**
   * Settles a draft whose start was cut short (a crash between its steps): if its charge was
   * taken, the task takes its reserved position as failed and is refunded; otherwise the draft
   * is discarded. Only for drafts older than any start can run. 'settled' if nothing was left to do.
   */
  repairStart(draft: Task, error: TaskError, now: string): Promise<StartRepair>;
  /** Tasks that ended and whose events may not be published yet (the outbox), in shards. */
  listUnannounced(): AsyncIterable<TaskRef>[];
  /** Takes an ended task out of the outbox once its events are published. */
  markAnnounced(task: Task): Promise<void>;
}

/** A task whose create waits on the submission queue: the queue's message. */
export interface SubmissionRequest {
  accountId: string;
  taskId: string;
}

/**
 * The provider's request budget, shared by every function: turns at most `perSecond` a
 * second, evenly spaced, so no burst of ours becomes the provider's 429s.
 */
export interface ProviderBudget {
  /**
   * Reserves the next free turn for `provider` no later than `maxWaitMs` after `now` (ms since
   * the epoch) and returns its time; undefined when every turn until then is taken.
   */
  reserve(provider: string, perSecond: number, now: number, maxWaitMs: number): Promise<number | undefined>;
}

/** Publishes a task's ending to whoever listens (the customer's webhooks). Safe to repeat. */
export interface TaskEvents {
  taskEnded(task: Task): Promise<void>;
}

export interface FailOptions {
  /** Only while the provider has not accepted it (the sweeper's lost-submission case). */
  onlyIfUnsubmitted?: boolean;
  /** Only while no result has been recorded (a cancel: once outputs exist, the task completes). */
  onlyBeforeOutputs?: boolean;
  /** The progress the failed task keeps (what it showed when it ended). */
  progress?: number;
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

/** Which task's outputs to copy: the copy worker's event. */
export interface CopyRequest {
  accountId: string;
  taskId: string;
}

/** Asks for a task's outputs to be copied soon, off the request path. */
export interface CopyQueue {
  enqueue(request: CopyRequest): Promise<void>;
}

/** Storage for uploaded reference images. */
export interface UploadStorage {
  /** Stores a checked image where the public can read it; returns its public URL. */
  putPublic(key: string, bytes: Buffer, contentType: string, accountId: string): Promise<string>;
  /** A presigned form upload straight to `key`, limited in size and type. */
  presignUpload(key: string, options: { maxBytes: number; expiresSeconds: number }): Promise<{ url: string; fields: Record<string, string> }>;
  /** Size and first bytes of a directly uploaded object, or undefined if it is not there. */
  inspect(key: string, headBytes: number): Promise<{ size: number; head: Buffer } | undefined>;
  /**
   * Copies a checked object to its public key with its content type, then deletes the source;
   * returns the public URL, or undefined when the source is no longer there.
   */
  promote(fromKey: string, toKey: string, contentType: string, accountId: string): Promise<string | undefined>;
  remove(key: string): Promise<void>;
}

/**
 * A work queue: each message is delivered at least once (so consumers must be idempotent),
 * after its delay, to a consumer that may fail it to have it delivered again. SQS on AWS, an
 * in-process queue with the same semantics on the local stack.
 */
export interface MessageQueue<T> {
  /** `delaySeconds` is at most MAX_QUEUE_DELAY_SECONDS: longer waits are re-sent by the consumer. */
  send(message: T, options?: { delaySeconds?: number }): Promise<void>;
}

/** SQS's limit on a message's delay, kept by every implementation. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/** What a completed direct upload answered (POST /uploads/{id}/complete). */
export interface PublishedUpload {
  url: string;
  contentType: ImageContentType;
  size: number;
}

/**
 * Who publishes a direct upload: exactly one completion claims it, publishes it and records
 * its answer; every other completion of that upload gets the recorded answer.
 */
export interface UploadPublications {
  /** The claim on an upload and, once published, its answer. */
  get(accountId: string, uploadId: string): Promise<{ answer?: PublishedUpload } | undefined>;
  /**
   * True for exactly one caller per upload; false while another holds it or after it was
   * answered. A claim left unanswered for `staleAfterSeconds` (its holder died) can be taken over.
   */
  claim(accountId: string, uploadId: string, now: Date, staleAfterSeconds: number): Promise<boolean>;
  recordAnswer(accountId: string, uploadId: string, answer: PublishedUpload, now: Date): Promise<void>;
  /** Gives a claim up (its holder failed to publish), so a retry can claim again. */
  release(accountId: string, uploadId: string): Promise<void>;
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

/** What a Checkout asks the payment provider for: a pack (one payment) or the plan (a subscription). */
export interface CheckoutRequest {
  accountId: string;
  customerId: string;
  item: { kind: 'pack'; packId: string; priceId: string; credits: number } | { kind: 'plan'; priceId: string };
  /** Where the customer lands after paying, and after giving up. */
  successUrl: string;
  cancelUrl: string;
}

/** The payment provider (Stripe on AWS and, against its simulator, on the local stack). */
export interface PaymentGateway {
  /**
   * Verifies a webhook delivery's signature (and that it is recent) over the raw body, and reads
   * its event. Throws ValidationError for a missing, forged or stale signature or an unreadable body.
   */
  readEvent(rawBody: string, signature: string | undefined): Promise<BillingEvent>;
  /** A new customer for the account; the same one for concurrent calls about one account. */
  createCustomer(accountId: string): Promise<string>;
  /** A hosted checkout page's URL. */
  createCheckout(request: CheckoutRequest): Promise<string>;
  /** The hosted customer portal's URL (manage or cancel the subscription). */
  createPortal(customerId: string, returnUrl: string): Promise<string>;
}

/** The billing side of accounts: payment customers, purchases and subscription state. */
export interface BillingStore {
  customerOf(accountId: string): Promise<string | undefined>;
  /**
   * Records the account's customer if it has none yet and returns the account's customer: the
   * one given, or the one a concurrent caller recorded first. Throws NotFoundError without the account.
   */
  attachCustomer(accountId: string, customerId: string, now: string): Promise<string>;
  accountOfCustomer(customerId: string): Promise<string | undefined>;
  /**
   * The purchase, its credits (`entry`) and paid access, in one transaction, once per checkout:
   * 'duplicate' when the checkout was granted already.
   */
  recordPurchase(purchase: Purchase, entry: LedgerEntry): Promise<'granted' | 'duplicate' | 'unknown_account'>;
  purchaseByPayment(paymentId: string): Promise<Purchase | undefined>;
  /**
   * Raises the purchase's claimed-back credits to `due` and takes the difference off the
   * balance, never below zero (`entry` makes the ledger entry for what is taken); 'already'
   * when `due` was claimed before.
   */
  reversePurchase(purchase: Purchase, due: number, entry: ReversalEntry, now: string): Promise<Reversal | 'already'>;
  /**
   * Sets the status from an event of `occurredAt` (epoch seconds) unless a newer event's (or an
   * equally old one's further along, statusRank) is stored: 'stale' then.
   */
  setSubscriptionStatus(accountId: string, status: SubscriptionStatus, occurredAt: number, now: string): Promise<'applied' | 'stale' | 'unknown_account'>;
  /** Paid access on; 'unknown_account' without the account. */
  grantPaidAccess(accountId: string, now: string): Promise<'applied' | 'unknown_account'>;
}
