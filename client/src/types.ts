/**
 * The API's resources as it returns them (CONTRACT.md): snake_case field names, ISO 8601 UTC
 * timestamps. Type-only: nothing here exists at run time.
 *
 * Every shape comes from the published OpenAPI document: ./generated/openapi.ts is generated
 * from docs/openapi.json (`npm run client:types`, checked fresh by a test). This file only gives
 * the client's public names to those schemas; field documentation comes with them. Change the
 * API's contract, not these types.
 */
import type { components, operations } from './generated/openapi.js';

type Schemas = components['schemas'];

/**
 * A video task, as returned by generateVideo, getVideo and listVideos.
 *
 * A union on `status` (the document's `oneOf` of processing/completed/failed). The document also
 * says which fields each status carries (`video_url` and `completed_at` when completed, `error`
 * and `completed_at` when failed, none of them while processing); openapi-typescript cannot
 * express those per-branch `required`/`not` rules, so the fields stay optional here and callers
 * check for them. Weaker than the document, never contrary to it; restating the rules by hand
 * would be a second copy of the contract that could drift.
 */
export type VideoTask = Schemas['VideoTask'];

/** An image task, as returned by generateImage, getImage and listImages. Status rules as VideoTask. */
export type ImageTask = Schemas['ImageTask'];

/** `processing` until the task ends; `completed` and `failed` are final and never change again. */
export type TaskStatus = Schemas['TaskStatus'];

/** Why a task failed. */
export type TaskError = Schemas['TaskError'];

export type VideoModel = VideoTask['model'];
export type GenerationType = VideoTask['generation_type'];
export type VideoAspectRatio = VideoTask['aspect_ratio'];
export type VideoResolution = VideoTask['resolution'];

export type ImageModel = ImageTask['model'];
export type ImageResolution = ImageTask['resolution'];
export type ImageAspectRatio = ImageTask['aspect_ratio'];
export type ImageFormat = ImageTask['output_format'];

export type SubscriptionStatus = Credits['subscription_status'];

/**
 * Body of POST /generate. Only `prompt` is required; the API applies the documented defaults.
 * (The document's rule "`image_url` with `image_to_video`, and only with it" is checked by the API.)
 */
export type GenerateVideoParams = Schemas['GenerateVideoRequest'];

/** Body of POST /generate-image. Needs paid access and an active subscription. */
export type GenerateImageParams = Schemas['GenerateImageRequest'];

export type Pagination = Schemas['Pagination'];

/** GET /videos: newest first. A page past the end is an empty list. */
export type VideoPage = Schemas['VideoPage'];

/** GET /images: newest first. */
export type ImagePage = Schemas['ImagePage'];

/** The `page` and `limit` query parameters of the paged lists. */
export type PageParams = Pick<NonNullable<operations['listVideos']['parameters']['query']> & NonNullable<operations['listImages']['parameters']['query']>, 'page' | 'limit'>;

/** GET /videos and GET /images: a page, of one end user's tasks only with `endUser` (the `end_user` query parameter). */
export interface TaskListParams extends PageParams {
  endUser?: string;
}

/** POST /upload and POST /uploads/{upload_id}/complete. */
export type UploadedImage = Schemas['UploadedImage'];

/** POST /uploads: a presigned form for uploading straight to storage. */
export type DirectUpload = Schemas['DirectUpload'];

/** GET /credits. */
export type Credits = Schemas['Credits'];

/** GET /models: videos first. */
export type ModelList = Schemas['ModelList'];

/** One model of GET /models: a video model (`kind: "video"`) or an image model (`kind: "image"`). */
export type ModelInfo = ModelList['models'][number];

/** Body of POST /quote: `kind` and the parameters of the start it prices. */
export type QuoteParams = Schemas['QuoteRequest'];

/** POST /quote's answer: the price, the balance, and whether the start would be accepted now. */
export type Quote = Schemas['Quote'];
/** GET /account. */
export type Account = Schemas['Account'];

/** Body of PATCH /account: `output_retention_days` (1–3650, or null to keep results for good). */
export type UpdateAccountParams = Schemas['UpdateAccountRequest'];

/** GET /billing: the packs for sale, the plan, and the account's subscription and paid access. */
export type Billing = Schemas['Billing'];

/** Body of POST /billing/checkout: `{ pack_id }` for a pack or `{ plan: true }` for the subscription. */
export type CheckoutParams = Schemas['CheckoutRequest'];

/** POST /billing/checkout and /billing/portal: where to send the holder (Stripe's page). */
export type BillingRedirect = Schemas['BillingRedirect'];

/** Every error answer the document describes: `{ data: null, error: { message, code } }`. */
export type ErrorEnvelope = {
  [Name in keyof Schemas]: Schemas[Name] extends { data: null; error: { code: string } } ? Schemas[Name] : never;
}[keyof Schemas];

/**
 * The error codes the API documents, plus `network_error`, which this client assigns when the
 * API could not be reached (status 0). Open-ended: the API may add codes, and a client built
 * today must still accept them.
 */
export type ErrorCode = ErrorEnvelope['error']['code'] | 'network_error' | (string & {});

/** A webhook endpoint as listed (the secret is shown only when it is created). */
export type Webhook = Schemas['Webhook'];

/** POST /webhooks' answer: the endpoint and its signing secret (`whsec_…`), shown this once. */
export type CreatedWebhook = Schemas['CreatedWebhook'];

/** Body of POST /webhooks. */
export type CreateWebhookParams = Schemas['CreateWebhookRequest'];

/** One delivery of an event to an endpoint. */
export type WebhookDelivery = Schemas['Delivery'];

/** One movement of the balance: a grant, a task's charge or a failed task's refund. */
export type CreditTransaction = Schemas['CreditTransaction'];

/** GET /credits/transactions: newest first; the sum of every amount is the balance. */
export type TransactionPage = Schemas['TransactionPage'];

/** `live` for `vg_live_` keys; `test` for `vg_test_` keys (test data, simulated provider, test credits). */
export type KeyMode = 'live' | 'test';

/** GET /webhooks/{id}/deliveries: newest first. */
export type WebhookDeliveryPage = Schemas['DeliveryPage'];

/** The body of every event a webhook endpoint receives. */
export interface WebhookEvent {
  id: string;
  type: 'video.completed' | 'video.failed' | 'image.completed' | 'image.failed' | 'webhook.test';
  created_at: string;
  /** False for test mode's events (a `vg_test_` key's tasks and endpoints). */
  livemode: boolean;
  /** The task as GET /videos/{id} or /images/{id} returns it; `{ webhook_id }` for a test. */
  data: VideoTask | ImageTask | { webhook_id: string };
}


/** A task's ending as GET /events lists it: the same object its webhooks carry. */
export type TaskEvent = Schemas['TaskEvent'];

/** GET /events: endings oldest first, and the cursor to read on from. */
export type EventPage = Schemas['EventPage'];

/** An entry of the account's audit log (GET /audit-events): who changed what, when, from where. */
export type AuditEvent = Schemas['AuditEvent'];

/** GET /audit-events: newest first, and the cursor to the older page (null at the end). */
export type AuditEventPage = Schemas['AuditEventPage'];

/** GET /audit-events's query: `after` (a `next_after`) and `limit` (1-100). */
export type AuditEventsParams = NonNullable<operations['listAuditEvents']['parameters']['query']>;

/** GET /usage: the range, the grouping, one row per group and the totals (they agree with the ledger). */
export type UsageReport = Schemas['UsageReport'];

/** One row of a usage report: a day, a model, an API key id or an end user (null: no key, or no end user). */
export type UsageRow = Schemas['UsageRow'];

/** GET /usage's query: `from`, `to` (YYYY-MM-DD, UTC, at most 366 days) and `group_by` (day, model, key, end_user). */
export type UsageParams = NonNullable<operations['getUsage']['parameters']['query']>;

/** GET /events's query: `after` (a `next_after`) and `limit` (1-100). */
export type EventsParams = NonNullable<operations['listEvents']['parameters']['query']>;

/** How `followEvents` reads the feed. */
export interface FollowEventsOptions {
  /** Start after this cursor (a `next_after`); from the oldest kept event without it. */
  after?: string;
  /** Wait between polls once caught up (default 5000 ms). */
  intervalMs?: number;
  /** Events per request, 1-100. */
  limit?: number;
  /** Stops following: the iteration ends (no exception). */
  signal?: AbortSignal;
  /** Told the cursor after each page, so a follower can resume where it stopped. */
  onCursor?: (nextAfter: string) => void;
}
/** An API key as GET /keys lists it (never the key itself after its creation). */
export type ApiKey = Schemas['ApiKey'];

/** POST /keys: the key object plus `api_key`, the key itself, shown only in this answer. */
export type CreatedApiKey = Schemas['CreatedApiKey'];

/** Body of POST /keys. */
export type CreateKeyParams = Schemas['CreateKeyRequest'];

/** Body of PATCH /keys/{key_id}; `monthly_spend_limit: null` removes the limit. */
export type UpdateKeyParams = Schemas['UpdateKeyRequest'];

/** What a key may do. */
export type KeyScope = ApiKey['scopes'][number];

/** GET /accounts: every account the signed-in holder belongs to, the default first, with their role there. */
export type AccountList = Schemas['AccountList'];

/** One of the holder's accounts and their role in it. */
export type AccountMembership = Schemas['AccountMembership'];

/** GET /account/members: the members and the open invitations. */
export type MemberList = Schemas['MemberList'];

/** A member of the account. */
export type Member = Schemas['Member'];

/** A member's role: owner, admin, developer, billing or viewer. */
export type MemberRole = Member['role'];

/** Body of PATCH /account/members/{holder_id}. */
export type UpdateMemberParams = Schemas['UpdateMemberRequest'];

/** DELETE /account/members/{holder_id}. */
export type MemberRemoved = Schemas['MemberRemoved'];

/** An open invitation to the account (POST /account/members answers one). */
export type Invitation = Schemas['Invitation'];

/** Body of POST /account/members: the address to invite and the role it gets. */
export type InviteMemberParams = Schemas['InviteMemberRequest'];

/** DELETE /account/members/invitations/{invitation_id}. */
export type InvitationRevoked = Schemas['InvitationRevoked'];

/** GET /invitations: the open invitations to the signed-in holder's verified address, each with its account. */
export type ReceivedInvitationList = Schemas['ReceivedInvitationList'];

/** One invitation the signed-in holder received. */
export type ReceivedInvitation = Schemas['ReceivedInvitation'];
