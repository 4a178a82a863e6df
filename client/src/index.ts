/**
 * @vidgen/client: a typed client for the video and image generation API.
 *
 * Needs nothing but the platform's fetch, FormData, Blob and AbortSignal (Node 20+, Deno, Bun;
 * browsers only once the API offers CORS). Every method resolves with the envelope's `data` or rejects with an ApiError.
 *
 * All run-time code lives in this one module on purpose: the other source files hold types
 * only, so the sources run unchanged under Node's ESM loader (after tsc), tsx and jest alike.
 */
import type {
  Account,
  ApiKey,
  Billing,
  BillingRedirect,
  CheckoutParams,
  CreatedApiKey,
  CreatedWebhook,
  CreateKeyParams,
  CreateWebhookParams,
  Credits,
  DirectUpload,
  ErrorCode,
  EventPage,
  AuditEventPage,
  AuditEventsParams,
  AccountList,
  AccountMembership,
  Invitation,
  InvitationRevoked,
  InviteMemberParams,
  Member,
  MemberList,
  MemberRemoved,
  ReceivedInvitationList,
  UpdateMemberParams,
  EventsParams,
  FollowEventsOptions,
  GenerateImageParams,
  GenerateVideoParams,
  ImagePage,
  ImageTask,
  KeyMode,
  ModelList,
  PageParams,
  TaskListParams,
  TaskEvent,
  Quote,
  QuoteParams,
  TransactionPage,
  UpdateAccountParams,
  UpdateKeyParams,
  UploadedImage,
  UsageParams,
  UsageReport,
  VideoPage,
  VideoTask,
  Webhook,
  WebhookDeliveryPage,
  WebhookEvent,
} from './types.js';

export type * from './types.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000/api/v1';

/** The mode a key works in, from its prefix: `vg_test_` keys see test data only. */
export function keyMode(apiKey: string): KeyMode {
  return apiKey.trim().startsWith('vg_test_') ? 'test' : 'live';
}

/** The subset of fetch the client uses; the global fetch fits. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Waits `ms` milliseconds; should reject with `signal.reason` when the signal aborts. */
export type SleepLike = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface RetryOptions {
  /** Retries after the first attempt (so at most maxRetries + 1 requests). Default 3; 0 turns retrying off. */
  maxRetries: number;
  /** First backoff delay; it doubles on every retry, with jitter. Default 500. */
  baseDelayMs: number;
  /** Upper bound of any single wait, Retry-After included. Default 30000. */
  maxDelayMs: number;
}

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  /** The failure that is being retried. */
  error: ApiError;
  method: string;
  url: string;
}

/** An account holder's access token (a session), or a function that answers a current one (refreshed as needed). */
export type SessionToken = string | (() => string | Promise<string>);

export interface VidgenClientOptions {
  /**
   * `vg_live_...` (or `vg_test_...` for test mode), sent as `Authorization: Bearer <apiKey>`.
   * Give this or `sessionToken`, not both.
   */
  apiKey?: string;
  /**
   * Instead of an API key: the access token of a signed-in account holder (from the identity
   * provider: Cognito on AWS, the local identity server locally), sent as `Authorization:
   * Bearer <token>`. A function is asked before each request, so a caller can refresh it.
   */
  sessionToken?: SessionToken;
  /**
   * With a session: the mode every request acts in (`Vidgen-Mode` header); default `live`. With an
   * API key the key's own mode applies: a different `mode` here is refused.
   */
  mode?: KeyMode;
  /**
   * With a session: the account every request acts on (`Vidgen-Account` header), one of those
   * listAccounts answers; default the holder's default account. An API key belongs to one
   * account, so with a key this is refused.
   */
  account?: string;
  /** Ends with /api/v1. Default http://127.0.0.1:3000/api/v1 (the local stack). */
  baseUrl?: string;
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
  retry?: Partial<RetryOptions>;
  /** Budget for one HTTP request (not for waitForVideo). Default 60000; 0 means none. */
  timeoutMs?: number;
  /** Used for retry delays and polling intervals; injectable for tests. */
  sleep?: SleepLike;
  /** Called before each retry, e.g. to log it. */
  onRetry?: (info: RetryInfo) => void;
}

export interface RequestOptions {
  /** Aborting rejects the call with the signal's reason (an AbortError by default). */
  signal?: AbortSignal;
}

export interface GenerateOptions extends RequestOptions {
  /**
   * Makes the start safe to retry: the API answers a repeat of the same request under the same
   * key (within 24 h) with the first answer and charges once. By default the client generates a
   * random key per call and reuses it across its own retries. Pass a key of your own to make
   * retries across processes safe too, or `null` to send none (then the call is not retried on
   * 5xx or network errors, since a retry could start and charge a second task).
   */
  idempotencyKey?: string | null;
}

export interface UploadOptions extends RequestOptions {
  /** Sent as the file part's name. Default `image`. */
  filename?: string;
  /** Sent as the part's type. The API decides the type from the bytes; this is informational. */
  contentType?: string;
  /**
   * `multipart`: POST /upload, through the API (on AWS it carries files up to about 4.5 MB).
   * `direct`: a presigned upload straight to storage (POST /uploads, the file, then complete).
   * `auto` (default): multipart up to 4 MB (DIRECT_UPLOAD_THRESHOLD), direct above.
   */
  via?: 'auto' | 'multipart' | 'direct';
}

export interface WaitOptions<T> extends RequestOptions {
  /** Time between polls. Default 5000 (the API suggests about 5 s). */
  intervalMs?: number;
  /** Give up after this long with a WaitTimeoutError. Default: wait as long as it takes. */
  timeoutMs?: number;
  /** Called with the task after every poll, the final one included. */
  onProgress?: (task: T) => void;
}

/**
 * Any failure of a call: an error answer of the API (its `code` and message), an answer that is
 * not the API's (a proxy's HTML page: `internal_error`, or `upstream_error` for 502/503/504), or
 * no answer at all (`network_error`, status 0).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The API's `error.code`, or one this client assigns (see above). */
  readonly code: ErrorCode;
  /** HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** The `X-Request-Id` of the answer: quote it in support requests. */
  readonly requestId: string | undefined;
  /** Seconds to wait before trying again (the `Retry-After` header), when the API said. */
  readonly retryAfter: number | undefined;

  constructor(
    message: string,
    details: { code: ErrorCode; status: number; requestId?: string; retryAfter?: number; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = details.code;
    this.status = details.status;
    this.requestId = details.requestId;
    this.retryAfter = details.retryAfter;
  }
}

/** waitForVideo / waitForImage ran out of `timeoutMs`; the task itself carries on. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
  constructor(
    message: string,
    /** The last state seen. */
    readonly lastTask: VideoTask | ImageTask,
  ) {
    super(message);
  }
}

/** Files larger than this (bytes) go to storage directly: a Lambda request carries about 4.5 MB. */
export const DIRECT_UPLOAD_THRESHOLD = 4_000_000;

/** A task list's query: `endUser` is the API's `end_user`. */
const taskListQuery = ({ endUser, ...page }: TaskListParams) => ({ ...page, end_user: endUser });

const DEFAULT_RETRY: RetryOptions = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000 };
const DEFAULT_TIMEOUT_MS = 60_000;
const RETRYABLE_5XX = new Set([500, 502, 503, 504]);
/** Errors the API itself answered (its envelope), as opposed to a proxy's page or no answer. */
const FROM_ENVELOPE = new WeakSet<ApiError>();

interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Under baseUrl, with the API key. */
  path: string;
  /** Instead of path: an absolute URL outside the API (storage), sent without the API key. */
  externalUrl?: string;
  /** How to read the answer; the API's envelope by default. */
  read?: (response: Response, text: string, what: string) => unknown;
  query?: Record<string, number | string | undefined>;
  json?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
  /** Safe to repeat after a 5xx or a network error (a 429 is always retried: nothing happened). */
  idempotent: boolean;
  signal?: AbortSignal | undefined;
}

export class VidgenClient {
  readonly baseUrl: string;
  /** `test` with a `vg_test_` key: every call works on test data, with test credits. */
  readonly mode: KeyMode;
  /** With a session: the account requests act on (`Vidgen-Account`); undefined, the holder's default. */
  readonly account: string | undefined;
  /** The API key or, for a session, what answers the current access token. */
  private readonly credential: () => string | Promise<string>;
  private readonly session: boolean;
  private readonly fetchImpl: FetchLike | undefined;
  private readonly retry: RetryOptions;
  private readonly timeoutMs: number;
  private readonly sleepImpl: SleepLike;
  private readonly onRetry: ((info: RetryInfo) => void) | undefined;

  constructor(options: VidgenClientOptions) {
    const hasKey = typeof options?.apiKey === 'string' && options.apiKey.trim() !== '';
    const token = options?.sessionToken;
    const hasSession = typeof token === 'function' || (typeof token === 'string' && token.trim() !== '');
    if (hasKey === hasSession) throw new TypeError('VidgenClient: apiKey is required (or sessionToken, for a signed-in account holder); give one, not both.');
    if (options.mode !== undefined && options.mode !== 'live' && options.mode !== 'test') {
      throw new TypeError(`VidgenClient: mode must be "live" or "test"; got "${String(options.mode)}".`);
    }
    if (options.account !== undefined && (typeof options.account !== 'string' || options.account.trim() === '')) {
      throw new TypeError(`VidgenClient: account must be an account id such as "acc_..."; got ${JSON.stringify(options.account)}.`);
    }
    if (hasKey && options.account !== undefined) {
      throw new TypeError('VidgenClient: an API key acts on its own account; account needs a session (sessionToken).');
    }
    this.session = hasSession;
    this.account = options.account?.trim();
    if (hasKey) {
      const apiKey = options.apiKey!.trim();
      this.mode = keyMode(apiKey);
      if (options.mode !== undefined && options.mode !== this.mode) {
        throw new TypeError(`VidgenClient: a ${this.mode} key always acts in ${this.mode} mode; mode "${options.mode}" needs a ${options.mode} key or a session.`);
      }
      this.credential = () => apiKey;
    } else {
      this.mode = options.mode ?? 'live';
      this.credential = typeof token === 'function' ? token : () => token!.trim();
    }
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.fetchImpl = options.fetch;
    this.retry = { ...DEFAULT_RETRY, ...definedOnly(options.retry ?? {}) };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.sleepImpl = options.sleep ?? defaultSleep;
    this.onRetry = options.onRetry;
  }

  /** POST /generate: starts a video task; resolves with it (status `processing`). */
  generateVideo(params: GenerateVideoParams, options: GenerateOptions = {}): Promise<VideoTask> {
    return this.start<VideoTask>('/generate', params, options);
  }

  /** GET /videos/{id}. */
  getVideo(videoId: string, options: RequestOptions = {}): Promise<VideoTask> {
    return this.request({ method: 'GET', path: `/videos/${encodeId(videoId)}`, idempotent: true, signal: options.signal });
  }

  /** GET /videos: the history, newest first. */
  listVideos(params: TaskListParams = {}, options: RequestOptions = {}): Promise<VideoPage> {
    return this.request({ method: 'GET', path: '/videos', query: taskListQuery(params), idempotent: true, signal: options.signal });
  }

  /** POST /generate-image: starts an image task; resolves with it (status `processing`). */
  generateImage(params: GenerateImageParams, options: GenerateOptions = {}): Promise<ImageTask> {
    return this.start<ImageTask>('/generate-image', params, options);
  }

  /** GET /images/{id}. */
  getImage(imageId: string, options: RequestOptions = {}): Promise<ImageTask> {
    return this.request({ method: 'GET', path: `/images/${encodeId(imageId)}`, idempotent: true, signal: options.signal });
  }

  /** GET /images: image tasks, newest first. */
  listImages(params: TaskListParams = {}, options: RequestOptions = {}): Promise<ImagePage> {
    return this.request({ method: 'GET', path: '/images', query: taskListQuery(params), idempotent: true, signal: options.signal });
  }

  /**
   * Uploads a JPEG, PNG or WebP image (at most 10 MiB) and resolves with its public URL, to
   * pass as `image_url` or in `images`. Files up to 4 MB go through POST /upload
   * (multipart/form-data, part `image`); larger ones straight to storage (see `via`).
   * POST /upload is retried on 429 only: after a 5xx the file may have been stored, so the
   * caller decides.
   */
  async uploadImage(data: Blob | Uint8Array, options: UploadOptions = {}): Promise<UploadedImage> {
    const blob = toBlob(data, options.contentType);
    const filename = options.filename ?? 'image';
    const via = options.via ?? 'auto';
    if (via === 'direct' || (via === 'auto' && blob.size > DIRECT_UPLOAD_THRESHOLD)) {
      return this.uploadDirect(blob, filename, options.signal);
    }
    const form = new FormData();
    form.append('image', blob, filename);
    return this.request({ method: 'POST', path: '/upload', form, idempotent: false, signal: options.signal });
  }

  /**
   * POST /uploads: a presigned form for uploading straight to storage (the path uploadImage
   * takes for files over 4 MB). POST `fields` and then the file as `file` to `upload_url`,
   * then call completeUpload. Creating an unused upload costs nothing, so this is retried.
   */
  createUpload(options: RequestOptions = {}): Promise<DirectUpload> {
    return this.request({ method: 'POST', path: '/uploads', idempotent: true, signal: options.signal });
  }

  /** POST /uploads/{id}/complete: checks the stored file's bytes and publishes it. */
  completeUpload(uploadId: string, options: RequestOptions = {}): Promise<UploadedImage> {
    const path = `/uploads/${encodeId(uploadId)}/complete`;
    return this.request({ method: 'POST', path, idempotent: false, signal: options.signal });
  }

  /**
   * POST /videos/{id}/cancel: a processing task fails as `canceled` and is refunded (409 once it
   * ended). Retried on 429 only: after a 5xx the cancel may have taken effect, and a repeat would
   * answer 409; read the task to see.
   */
  cancelVideo(videoId: string, options: RequestOptions = {}): Promise<VideoTask> {
    return this.request({ method: 'POST', path: `/videos/${encodeId(videoId)}/cancel`, idempotent: false, signal: options.signal });
  }

  /** POST /images/{id}/cancel (retried as cancelVideo). */
  cancelImage(imageId: string, options: RequestOptions = {}): Promise<ImageTask> {
    return this.request({ method: 'POST', path: `/images/${encodeId(imageId)}/cancel`, idempotent: false, signal: options.signal });
  }

  /**
   * DELETE /videos/{id}: deletes a final task's stored video and thumbnail (irreversible; charges
   * unchanged). The task stays, with `output_deleted_at`. Idempotent, so retried like a read;
   * a processing task, or one still being delivered to its `output_destination`, is 409 `task_not_final`.
   */
  deleteVideo(videoId: string, options: RequestOptions = {}): Promise<VideoTask> {
    return this.request({ method: 'DELETE', path: `/videos/${encodeId(videoId)}`, idempotent: true, signal: options.signal });
  }

  /** DELETE /images/{id}: as deleteVideo, for an image task's images. */
  deleteImage(imageId: string, options: RequestOptions = {}): Promise<ImageTask> {
    return this.request({ method: 'DELETE', path: `/images/${encodeId(imageId)}`, idempotent: true, signal: options.signal });
  }

  /**
   * POST /webhooks: registers an endpoint; the answer holds its signing secret, shown only here.
   * Not retried after a 5xx (the endpoint may exist: list them to see).
   */
  createWebhook(params: CreateWebhookParams, options: RequestOptions = {}): Promise<CreatedWebhook> {
    return this.request({ method: 'POST', path: '/webhooks', json: params, idempotent: false, signal: options.signal });
  }

  /** GET /webhooks. */
  listWebhooks(options: RequestOptions = {}): Promise<{ webhooks: Webhook[] }> {
    return this.request({ method: 'GET', path: '/webhooks', idempotent: true, signal: options.signal });
  }

  /** DELETE /webhooks/{id}. Retried on 429 only: a repeat of a delete that took effect answers 404. */
  deleteWebhook(webhookId: string, options: RequestOptions = {}): Promise<{ webhook_id: string; deleted: true }> {
    return this.request({ method: 'DELETE', path: `/webhooks/${encodeId(webhookId)}`, idempotent: false, signal: options.signal });
  }

  /** POST /webhooks/{id}/test: sends a `webhook.test` event (not retried after a 5xx: it may have been sent). */
  testWebhook(webhookId: string, options: RequestOptions = {}): Promise<{ event_id: string }> {
    return this.request({ method: 'POST', path: `/webhooks/${encodeId(webhookId)}/test`, idempotent: false, signal: options.signal });
  }

  /** GET /webhooks/{id}/deliveries: newest first. */
  listWebhookDeliveries(webhookId: string, params: PageParams = {}, options: RequestOptions = {}): Promise<WebhookDeliveryPage> {
    const path = `/webhooks/${encodeId(webhookId)}/deliveries`;
    return this.request({ method: 'GET', path, query: { ...params }, idempotent: true, signal: options.signal });
  }

  /** GET /events: your task endings (this key's mode), oldest first, after the cursor `after`. */
  listEvents(params: EventsParams = {}, options: RequestOptions = {}): Promise<EventPage> {
    return this.request({ method: 'GET', path: '/events', query: { ...params }, idempotent: true, signal: options.signal });
  }

  /**
   * POST /webhooks/{id}/deliveries/{event_id}/retry: sends the event to that endpoint again now,
   * under the same `webhook-id`. Safe to repeat: while its attempt is due a retry changes nothing.
   */
  retryDelivery(webhookId: string, eventId: string, options: RequestOptions = {}): Promise<{ event_id: string; status: 'pending' }> {
    const path = `/webhooks/${encodeId(webhookId)}/deliveries/${encodeId(eventId)}/retry`;
    return this.request({ method: 'POST', path, idempotent: true, signal: options.signal });
  }

  /**
   * Follows GET /events: yields each task ending once, oldest first, reading on with each page's
   * cursor and polling every `intervalMs` once caught up. Ends when `signal` aborts.
   */
  async *followEvents(options: FollowEventsOptions = {}): AsyncGenerator<TaskEvent, void, undefined> {
    const { intervalMs = 5000, limit, signal, onCursor } = options;
    let after = options.after;
    try {
      for (;;) {
        const page = await this.listEvents({ ...(after !== undefined && { after }), ...(limit !== undefined && { limit }) }, { signal });
        for (const event of page.events) yield event;
        after = page.next_after;
        onCursor?.(after);
        if (!page.has_more) await this.sleep(intervalMs, signal);
      }
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    }
  }

  /** GET /models: every model with its price, defaults, allowed values and capabilities. */
  listModels(options: RequestOptions = {}): Promise<ModelList> {
    return this.request({ method: 'GET', path: '/models', idempotent: true, signal: options.signal });
  }

  /**
   * POST /quote: what the start `params` describe (`kind: "video"` for generateVideo's
   * parameters, `"image"` for generateImage's) would charge, and whether it would be accepted
   * now (`reason` names the 403 it would get). Charges nothing, so it is retried like a GET.
   */
  quote(params: QuoteParams, options: RequestOptions = {}): Promise<Quote> {
    return this.request({ method: 'POST', path: '/quote', json: params, idempotent: true, signal: options.signal });
  }

  /** GET /account: the account behind the key or session, both balances, and (for a session) the holder's email. */
  getAccount(options: RequestOptions = {}): Promise<Account> {
    return this.request({ method: 'GET', path: '/account', idempotent: true, signal: options.signal });
  }

  /**
   * PATCH /account: how many days results are kept (`output_retention_days`, null: for good).
   * A session of an owner or admin only. The same change twice is harmless: retried.
   */
  updateAccount(params: UpdateAccountParams, options: RequestOptions = {}): Promise<Account> {
    return this.request({ method: 'PATCH', path: '/account', json: params, idempotent: true, signal: options.signal });
  }

  /** GET /keys: the account's API keys, newest first, revoked ones included (a session only: an API key gets 403). */
  listKeys(options: RequestOptions = {}): Promise<{ keys: ApiKey[] }> {
    return this.request({ method: 'GET', path: '/keys', idempotent: true, signal: options.signal });
  }

  /**
   * POST /keys: a new API key; `api_key` in the answer is the key itself, shown only here.
   * Not retried after a 5xx (the key may exist: list them to see).
   */
  createKey(params: CreateKeyParams, options: RequestOptions = {}): Promise<CreatedApiKey> {
    return this.request({ method: 'POST', path: '/keys', json: params, idempotent: false, signal: options.signal });
  }

  /** PATCH /keys/{id}: its name, scopes or monthly spend limit (null removes it). The same change twice is harmless: retried. */
  updateKey(keyId: string, params: UpdateKeyParams, options: RequestOptions = {}): Promise<ApiKey> {
    return this.request({ method: 'PATCH', path: `/keys/${encodeId(keyId)}`, json: params, idempotent: true, signal: options.signal });
  }

  /** DELETE /keys/{id}: revokes the key; revoking twice answers the same, so it is retried. */
  revokeKey(keyId: string, options: RequestOptions = {}): Promise<ApiKey> {
    return this.request({ method: 'DELETE', path: `/keys/${encodeId(keyId)}`, idempotent: true, signal: options.signal });
  }

  /** GET /accounts: every account the signed-in holder belongs to, the default first, with their role (a session only). */
  listAccounts(options: RequestOptions = {}): Promise<AccountList> {
    return this.request({ method: 'GET', path: '/accounts', idempotent: true, signal: options.signal });
  }

  /** GET /account/members: the account's members, earliest joined first, and its open invitations (an owner's or admin's session). */
  listMembers(options: RequestOptions = {}): Promise<MemberList> {
    return this.request({ method: 'GET', path: '/account/members', idempotent: true, signal: options.signal });
  }

  /**
   * PATCH /account/members/{holder_id}: a member's new role (409 `last_owner` when it would leave
   * no owner). The same change twice is harmless: retried.
   */
  updateMember(holderId: string, params: UpdateMemberParams, options: RequestOptions = {}): Promise<Member> {
    return this.request({ method: 'PATCH', path: `/account/members/${encodeId(holderId)}`, json: params, idempotent: true, signal: options.signal });
  }

  /**
   * DELETE /account/members/{holder_id}: removes a member (oneself too; 409 `last_owner` for the
   * last owner). Not retried after a 5xx: a repeat of a removal that went through answers 404.
   */
  removeMember(holderId: string, options: RequestOptions = {}): Promise<MemberRemoved> {
    return this.request({ method: 'DELETE', path: `/account/members/${encodeId(holderId)}`, idempotent: false, signal: options.signal });
  }

  /**
   * POST /account/members: invites an address with a role for 7 days (an owner's or admin's
   * session); inviting the same address again replaces the open invitation (and resends it), so
   * a repeat is harmless: retried.
   */
  inviteMember(params: InviteMemberParams, options: RequestOptions = {}): Promise<Invitation> {
    return this.request({ method: 'POST', path: '/account/members', json: params, idempotent: true, signal: options.signal });
  }

  /** DELETE /account/members/invitations/{invitation_id}: withdraws an open invitation. Not retried after a 5xx: a repeat of a revoke that went through answers 404. */
  revokeInvitation(invitationId: string, options: RequestOptions = {}): Promise<InvitationRevoked> {
    return this.request({ method: 'DELETE', path: `/account/members/invitations/${encodeId(invitationId)}`, idempotent: false, signal: options.signal });
  }

  /** GET /invitations: the open invitations to the signed-in holder's verified address, newest first (a session, whatever its account). */
  listInvitations(options: RequestOptions = {}): Promise<ReceivedInvitationList> {
    return this.request({ method: 'GET', path: '/invitations', idempotent: true, signal: options.signal });
  }

  /**
   * POST /invitations/{invitation_id}/accept: joins the invitation's account; answers it with the
   * role. Not retried after a 5xx: a repeat of an accept that went through answers 404. Refresh
   * the session's token to act on the new account at once.
   */
  acceptInvitation(invitationId: string, options: RequestOptions = {}): Promise<AccountMembership> {
    return this.request({ method: 'POST', path: `/invitations/${encodeId(invitationId)}/accept`, idempotent: false, signal: options.signal });
  }

  /**
   * GET /audit-events: the account's audit log, newest first (a session of its owner or admin: an
   * API key gets 403). Pass a page's `next_after` as `after` for the next, older page.
   */
  listAuditEvents(params: AuditEventsParams = {}, options: RequestOptions = {}): Promise<AuditEventPage> {
    return this.request({ method: 'GET', path: '/audit-events', query: { ...params }, idempotent: true, signal: options.signal });
  }

  /**
   * GET /audit-events with `Accept: text/csv`: the same page as the API's own CSV (RFC 4180, CRLF,
   * a header row first); its `Vidgen-Next-After` header is the cursor listAuditEvents answers as `next_after`.
   */
  getAuditEventsCsv(params: AuditEventsParams = {}, options: RequestOptions = {}): Promise<string> {
    return this.request({ method: 'GET', path: '/audit-events', query: { ...params }, headers: { Accept: 'text/csv' }, idempotent: true, read: readCsv, signal: options.signal });
  }

  /** GET /billing: packs, the plan, the subscription status and paid access (a session only: an API key gets 403). */
  getBilling(options: RequestOptions = {}): Promise<Billing> {
    return this.request({ method: 'GET', path: '/billing', idempotent: true, signal: options.signal });
  }

  /**
   * POST /billing/checkout: a Stripe Checkout page for a pack or the plan; send the holder to
   * `url`. Nothing is charged until the holder pays there, so a retry is harmless.
   */
  createCheckout(params: CheckoutParams, options: RequestOptions = {}): Promise<BillingRedirect> {
    return this.request({ method: 'POST', path: '/billing/checkout', json: params, idempotent: true, signal: options.signal });
  }

  /** POST /billing/portal: Stripe's customer portal for the account (card, cancellation, invoices). */
  createBillingPortal(options: RequestOptions = {}): Promise<BillingRedirect> {
    return this.request({ method: 'POST', path: '/billing/portal', idempotent: true, signal: options.signal });
  }

  /** POST /billing/test-credits: 1000 more test credits (test mode only). Each call grants, so it is not retried after a 5xx. */
  addTestCredits(options: RequestOptions = {}): Promise<Credits> {
    return this.request({ method: 'POST', path: '/billing/test-credits', idempotent: false, signal: options.signal });
  }

  /**
   * POST /billing/test-subscription: test mode gets paid access and an active subscription (test
   * mode only; play money). A repeat answers the same, so it is retried.
   */
  startTestSubscription(options: RequestOptions = {}): Promise<Credits> {
    return this.request({ method: 'POST', path: '/billing/test-subscription', idempotent: true, signal: options.signal });
  }

  /** DELETE /billing/test-subscription: test mode is back to the live account's access (test mode only). A repeat answers the same, so it is retried. */
  endTestSubscription(options: RequestOptions = {}): Promise<Credits> {
    return this.request({ method: 'DELETE', path: '/billing/test-subscription', idempotent: true, signal: options.signal });
  }

  /** GET /credits (the test balance with a test key or a test-mode session). */
  getCredits(options: RequestOptions = {}): Promise<Credits> {
    return this.request({ method: 'GET', path: '/credits', idempotent: true, signal: options.signal });
  }

  /** GET /credits/transactions: every grant, charge and refund, newest first. */
  listTransactions(params: PageParams = {}, options: RequestOptions = {}): Promise<TransactionPage> {
    return this.request({ method: 'GET', path: '/credits/transactions', query: { ...params }, idempotent: true, signal: options.signal });
  }

  /** GET /usage: what tasks cost over a range (default: this UTC month), by day, model, key or end user. */
  getUsage(params: UsageParams = {}, options: RequestOptions = {}): Promise<UsageReport> {
    return this.request({ method: 'GET', path: '/usage', query: { ...params }, idempotent: true, signal: options.signal });
  }

  /** GET /usage with `Accept: text/csv`: the report's rows as the API's own CSV (RFC 4180, CRLF), a header row first. */
  getUsageCsv(params: UsageParams = {}, options: RequestOptions = {}): Promise<string> {
    return this.request({ method: 'GET', path: '/usage', query: { ...params }, headers: { Accept: 'text/csv' }, idempotent: true, read: readCsv, signal: options.signal });
  }

  /**
   * Polls GET /videos/{id} every `intervalMs` until the task is `completed` or `failed` and
   * resolves with that final task. A failed task is a result, not an exception: check
   * `status` (and `error`). Rejects with an ApiError when a poll fails after its retries, with a
   * WaitTimeoutError after `timeoutMs`, and with the signal's reason as soon as it aborts.
   */
  waitForVideo(videoId: string, options: WaitOptions<VideoTask> = {}): Promise<VideoTask> {
    return this.waitFor(videoId, (signal) => this.getVideo(videoId, { signal }), options);
  }

  /** As waitForVideo, for GET /images/{id}. */
  waitForImage(imageId: string, options: WaitOptions<ImageTask> = {}): Promise<ImageTask> {
    return this.waitFor(imageId, (signal) => this.getImage(imageId, { signal }), options);
  }

  private async uploadDirect(blob: Blob, filename: string, signal: AbortSignal | undefined): Promise<UploadedImage> {
    const slot = await this.createUpload({ signal });
    const form = new FormData();
    for (const [name, value] of Object.entries(slot.fields)) form.append(name, value);
    form.append('file', blob, filename); // storage reads the fields before the file: it goes last
    // Storing under the same key again is harmless, so the storage POST is retried like a GET.
    await this.request({ method: 'POST', path: '', externalUrl: slot.upload_url, form, idempotent: true, read: readStorageAnswer, signal });
    return this.completeUpload(slot.upload_id, { signal });
  }

  private start<T>(path: string, params: object, options: GenerateOptions): Promise<T> {
    const key = options.idempotencyKey === undefined ? crypto.randomUUID() : options.idempotencyKey;
    return this.request({
      method: 'POST',
      path,
      json: params,
      headers: key === null ? {} : { 'Idempotency-Key': key },
      idempotent: key !== null,
      signal: options.signal,
    });
  }

  private async waitFor<T extends VideoTask | ImageTask>(
    id: string,
    poll: (signal: AbortSignal | undefined) => Promise<T>,
    options: WaitOptions<T>,
  ): Promise<T> {
    const { intervalMs = 5000, timeoutMs, onProgress, signal } = options;
    const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
    for (;;) {
      signal?.throwIfAborted();
      const task = await poll(signal);
      onProgress?.(task);
      if (task.status === 'completed' || task.status === 'failed') return task;
      let wait = intervalMs;
      if (deadline !== undefined) {
        const left = deadline - Date.now();
        if (left <= 0) throw new WaitTimeoutError(`${id} is still ${task.status} after ${timeoutMs} ms.`, task);
        wait = Math.min(wait, left);
      }
      await this.sleep(wait, signal);
    }
  }

  private async request<T>(call: Call): Promise<T> {
    const url = this.url(call);
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.attempt(call, url)) as T;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error; // an abort: never retried
        const delayMs = this.retryDelay(call, error, attempt);
        if (delayMs === undefined) throw error;
        this.onRetry?.({ attempt: attempt + 1, delayMs, error, method: call.method, url });
        await this.sleep(delayMs, call.signal);
      }
    }
  }

  /** The wait before the next attempt, or undefined when this failure is final. */
  private retryDelay(call: Call, error: ApiError, attempt: number): number | undefined {
    if (attempt >= this.retry.maxRetries) return undefined;
    if (error.status === 429) {
      return error.retryAfter !== undefined
        ? Math.min(error.retryAfter * 1000, this.retry.maxDelayMs)
        : backoffDelay(attempt, this.retry);
    }
    if (!call.idempotent) return undefined;
    // The API keeps its answer under an Idempotency-Key: its own 502 (the provider refused; the
    // credits were refunded) is that answer, and a retry under the same key can only replay it.
    if (call.headers?.['Idempotency-Key'] !== undefined && error.status === 502 && FROM_ENVELOPE.has(error)) return undefined;
    if (error.code === 'network_error' || RETRYABLE_5XX.has(error.status)) return backoffDelay(attempt, this.retry);
    return undefined;
  }

  private async attempt(call: Call, url: string): Promise<unknown> {
    const credential = call.externalUrl ? undefined : this.credential();
    // A session token may come from a refresh; an abort while it did is still the caller's.
    const token = typeof credential === 'string' || credential === undefined ? credential : await credential;
    call.signal?.throwIfAborted();
    const timeout = this.timeoutMs > 0 ? AbortSignal.timeout(this.timeoutMs) : undefined;
    const signals = [call.signal, timeout].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    // Never send the API key or session anywhere but the API.
    const headers: Record<string, string> = call.externalUrl
      ? { ...call.headers }
      : {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          ...(this.session && { 'Vidgen-Mode': this.mode }),
          ...(this.account !== undefined && { 'Vidgen-Account': this.account }),
          ...call.headers,
        };
    let body: string | FormData | undefined;
    if (call.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(call.json);
    } else if (call.form) {
      body = call.form; // fetch sets the multipart Content-Type with its boundary
    }

    const fetchImpl = this.fetchImpl ?? globalThis.fetch;
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(url, { method: call.method, headers, body, ...(signal && { signal }) });
      text = await response.text();
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      const what = `${call.method} ${url}`;
      const message = timeout?.aborted
        ? `No answer from ${what} within ${this.timeoutMs} ms.`
        : `Could not reach ${what}: ${describeCause(error)}.`;
      throw new ApiError(message, { code: 'network_error', status: 0, cause: error });
    }
    return (call.read ?? readEnvelope)(response, text, `${call.method} ${url}`);
  }

  private url(call: Call): string {
    if (call.externalUrl) return call.externalUrl;
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) query.set(name, String(value));
    }
    const search = query.toString();
    return `${this.baseUrl}${call.path}${search ? `?${search}` : ''}`;
  }

  private sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    const slept = this.sleepImpl(ms, signal);
    if (!signal) return slept;
    // Even an injected sleep that ignores the signal must not hold up an abort.
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      slept.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }
}

/** A CSV answer as its text; an error (always a JSON envelope) as an ApiError. */
function readCsv(response: Response, text: string, what: string): unknown {
  if (response.ok && /^text\/csv\b/i.test(response.headers.get('content-type') ?? '')) return text;
  return readEnvelope(response, text, what);
}

/**
 * Turns an answer into the envelope's data, or an ApiError. Exported for tests and for callers
 * that make their own requests (e.g. with their own HTTP stack).
 */
export function readEnvelope(response: Response, text: string, what = 'the request'): unknown {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isEnvelope(body)) {
    if (body.error === null && response.ok) return body.data;
    if (body.error !== null) {
      const error = new ApiError(body.error.message, { code: body.error.code, status: response.status, requestId, retryAfter });
      FROM_ENVELOPE.add(error);
      throw error;
    }
  }
  const type = response.headers.get('content-type')?.split(';')[0]?.trim() || 'no content type';
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  throw new ApiError(
    `Unexpected answer to ${what}: ${status} (${type}) is not the API's JSON envelope; ` +
      `a proxy or gateway in between may have answered.${snippet ? ` Body starts: ${snippet}` : ''}`,
    { code: codeForStatus(response.status), status: response.status, requestId, retryAfter },
  );
}

/**
 * The answer of storage to a presigned POST: 2xx (usually 204) is stored; anything else is S3's
 * XML error, e.g. EntityTooLarge when the file breaks the signed size limit.
 */
function readStorageAnswer(response: Response, text: string, what: string): undefined {
  if (response.ok) return undefined;
  const tag = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1]?.trim();
  const s3Code = tag('Code');
  const detail = [s3Code, tag('Message')].filter(Boolean).join(': ') || text.replace(/\s+/g, ' ').trim().slice(0, 200);
  const code: ErrorCode =
    response.status === 413 || s3Code === 'EntityTooLarge'
      ? 'payload_too_large'
      : response.status === 429
        ? 'rate_limit_exceeded'
        : response.status >= 500
          ? 'upstream_error'
          : 'validation_error';
  throw new ApiError(`Storage refused the upload (${what}: HTTP ${response.status}${detail ? `, ${detail}` : ''}).`, {
    code,
    status: response.status,
    requestId: response.headers.get('x-amz-request-id') ?? undefined,
    retryAfter: parseRetryAfter(response.headers.get('retry-after')),
  });
}

/** The code given to an answer that is not the API's envelope. */
function codeForStatus(status: number): ErrorCode {
  if (status === 429) return 'rate_limit_exceeded';
  if (status === 502 || status === 503 || status === 504) return 'upstream_error';
  return 'internal_error';
}

interface Envelope {
  data: unknown;
  error: { message: string; code: string } | null;
}

function isEnvelope(body: unknown): body is Envelope {
  if (typeof body !== 'object' || body === null || !('data' in body) || !('error' in body)) return false;
  const { error } = body as { error: unknown };
  if (error === null) return true;
  return (
    typeof error === 'object' &&
    typeof (error as { message?: unknown }).message === 'string' &&
    typeof (error as { code?: unknown }).code === 'string'
  );
}

/** Retry-After is whole seconds or an HTTP date; returns seconds (>= 0) or undefined. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  if (!/^[A-Za-z]{3}, /.test(trimmed)) return undefined; // an HTTP date: "Wed, 21 Oct 2026 07:28:00 GMT"
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** Exponential backoff with "equal jitter": between half and all of base * 2^attempt, capped. */
export function backoffDelay(attempt: number, retry: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'>): number {
  const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function toBlob(data: Blob | Uint8Array, contentType: string | undefined): Blob {
  if (data instanceof Blob) return contentType && data.type !== contentType ? new Blob([data], { type: contentType }) : data;
  // Blob parts must be backed by an ArrayBuffer (not a SharedArrayBuffer): copy if need be.
  const bytes = data.buffer instanceof ArrayBuffer ? (data as Uint8Array<ArrayBuffer>) : new Uint8Array(data);
  return new Blob([bytes], { type: contentType ?? 'application/octet-stream' });
}

function encodeId(id: string): string {
  if (typeof id !== 'string' || id === '') throw new TypeError('An id is required.');
  return encodeURIComponent(id);
}

function describeCause(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause;
  const inner = cause instanceof Error ? cause : error instanceof Error ? error : undefined;
  if (inner && 'errors' in inner && Array.isArray(inner.errors) && inner.errors[0] instanceof Error) {
    return inner.errors[0].message; // AggregateError from happy eyeballs
  }
  return inner?.message || String(error);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Why verifyWebhook refused a request. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** How far a webhook's timestamp may be from now (Standard Webhooks' default). */
const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

/**
 * Verifies a webhook request as Standard Webhooks defines it and returns its event: the
 * `webhook-signature` header must hold a `v1,` HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`
 * keyed with the base64-decoded secret (after `whsec_`), and the timestamp must be within 5
 * minutes. Pass the raw body exactly as received. Uses Web Crypto (Node 20+, browsers, workers).
 */
export async function verifyWebhook(
  body: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  secret: string,
  now: Date = new Date(),
): Promise<WebhookEvent> {
  const header = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return Array.isArray(found) ? found[0] : found;
  };
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature.');
  const seconds = Number(timestamp);
  if (!Number.isInteger(seconds)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds.');
  if (Math.abs(now.getTime() / 1000 - seconds) > WEBHOOK_TOLERANCE_SECONDS) {
    throw new WebhookVerificationError('webhook-timestamp is more than 5 minutes from now (a replay, or a wrong clock).');
  }
  const key = await crypto.subtle.importKey('raw', base64Bytes(secret.replace(/^whsec_/, '')), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  for (const candidate of signatures.split(' ')) {
    const [version, signature] = candidate.split(',');
    if (version !== 'v1' || !signature) continue;
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = base64Bytes(signature);
    } catch {
      continue;
    }
    // crypto.subtle.verify compares in constant time.
    if (await crypto.subtle.verify('HMAC', key, bytes, signed)) return JSON.parse(body) as WebhookEvent;
  }
  throw new WebhookVerificationError('No webhook-signature matches this body and secret.');
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

