import { hasPaidAccess, type Account } from '../accounts/account';
import { imagePrice, subscriptionRequired, videoPrice } from '../catalogue/catalogue';
import {
  EndUserSpendLimitExceededError,
  InsufficientCreditsError,
  PaidAccessRequiredError,
  SpendLimitExceededError,
  UnauthorizedError,
  ValidationError,
} from '../shared/errors';
import type { SpendingKey } from '../accounts/spending-key';
import type { AccountStore } from '../accounts/ports';
import type { IdempotencyRecord, ReferenceUrlPolicy, StartRefusals } from './ports';
import type { ImageParams, VideoParams } from '../catalogue/params';
import type { Attribution } from './attribution';
import type { DeliveryRequest } from './destinations';

/**
 * Whether a start may go ahead, and at what price: the checks after validation, in the API's
 * documented order, written once for the start (which charges) and the quote (which only says).
 */

/** What to start; `endUser` and `metadata` (attribution.ts) and the destination (destinations.ts) are stored with the task, never priced. */
export type StartRequest = ({ kind: 'video'; params: VideoParams } | { kind: 'image'; params: ImageParams }) & Attribution & DeliveryRequest;

/** What a start would be refused with now; the start throws it, a quote names it. */
export type Refusal = PaidAccessRequiredError | SpendLimitExceededError | InsufficientCreditsError;

export interface Admission {
  account: Account;
  price: number;
  /** The first check the request fails, in order; undefined when it may start. */
  refusal?: Refusal;
}

/** What to do instead of passing a URL we refuse (the upload route's path, without the /api/v1 prefix). */
const UPLOAD_HINT = 'To use a file of your own, upload it with POST /upload and pass the URL it returns.';

export function priceOf(request: StartRequest): number {
  return request.kind === 'video'
    ? videoPrice(request.params.model, request.params.duration)
    : imagePrice(request.params.model);
}

/** Image generation needs paid access whatever the model; videos only for subscription models. */
export function needsPaidAccess(request: StartRequest): boolean {
  return request.kind === 'image' || subscriptionRequired(request.params.model);
}

/**
 * The account-dependent checks, in order: paid access (403 `paid_access_required`), the key's
 * monthly spend limit (403 `spend_limit_exceeded`), then credits (403 `insufficient_credits`).
 * One read: the account. Here the limit refuses a price above it outright; the month's spend
 * under it is judged by the store's conditional write when the start charges.
 */
export async function admit(
  accounts: Pick<AccountStore, 'get'>,
  partitionId: string,
  request: StartRequest,
  key?: SpendingKey,
): Promise<Admission> {
  const account = await accounts.get(partitionId);
  if (!account) throw new UnauthorizedError();
  const price = priceOf(request);
  const refusal =
    paidAccessRefusal(account, request) ?? spendLimitRefusal(key, price) ?? endUserLimitRefusal(key, request, price) ?? creditsRefusal(account, price);
  return { account, price, ...(refusal && { refusal }) };
}

function paidAccessRefusal(account: Account, request: StartRequest): Refusal | undefined {
  if (!needsPaidAccess(request) || hasPaidAccess(account)) return undefined;
  return paidAccessRequired(request);
}

function paidAccessRequired(request: StartRequest): PaidAccessRequiredError {
  return new PaidAccessRequiredError(
    request.kind === 'image'
      ? 'Image generation needs paid access and an active subscription.'
      : `The model ${request.params.model} needs paid access and an active subscription.`,
  );
}

function spendLimitRefusal(key: SpendingKey | undefined, price: number): Refusal | undefined {
  const limit = key?.monthlySpendLimit;
  return limit !== undefined && price > limit ? new SpendLimitExceededError(limit, price) : undefined;
}

/** A price above the key's limit per end user itself (the month's spend is the store's condition). */
function endUserLimitRefusal(key: SpendingKey | undefined, request: StartRequest, price: number): Refusal | undefined {
  const limit = key?.endUserMonthlySpendLimit;
  return limit !== undefined && request.endUser !== undefined && price > limit
    ? new EndUserSpendLimitExceededError(limit, price, request.endUser)
    : undefined;
}

function creditsRefusal(account: Account, price: number): Refusal | undefined {
  return account.credits < price ? new InsufficientCreditsError(price, account.credits) : undefined;
}

/** How a refused start is answered (judgeStart). */
export type StartJudgement =
  /** The Idempotency-Key is held by an earlier request: answer as it did (or 409). */
  | { type: 'replay'; record: IdempotencyRecord }
  /** A test partition whose balance is not opened yet: open it, then start again. */
  | { type: 'open' }
  | { type: 'refuse'; error: Refusal | UnauthorizedError };

/**
 * The answer to a start its store refused (StartRefusals: every rule that failed, nothing
 * written), in the API's documented order, with the errors and messages `admit` gives: a used
 * Idempotency-Key first, then paid access, the key's spend limit (a price above the limit
 * itself, or the month's spend), credits, and last an account that does not exist.
 */
export function judgeStart(
  refusals: StartRefusals,
  request: StartRequest,
  price: number,
  options: { key?: SpendingKey; testPartition: boolean },
): StartJudgement {
  if (refusals.claim) return { type: 'replay', record: refusals.claim };
  if (refusals.paidAccess) return { type: 'refuse', error: paidAccessRequired(request) };
  const limit = options.key?.monthlySpendLimit;
  if (refusals.spend && limit !== undefined) {
    const outright = spendLimitRefusal(options.key, price);
    return { type: 'refuse', error: outright ?? new SpendLimitExceededError(limit, price, refusals.spend.spent) };
  }
  // The key's own limit is named first when both refused.
  const endUserLimit = options.key?.endUserMonthlySpendLimit;
  if (refusals.endUserSpend && endUserLimit !== undefined && request.endUser !== undefined) {
    const outright = endUserLimitRefusal(options.key, request, price);
    return { type: 'refuse', error: outright ?? new EndUserSpendLimitExceededError(endUserLimit, price, request.endUser, refusals.endUserSpend.spent) };
  }
  if (refusals.credits) return { type: 'refuse', error: new InsufficientCreditsError(price, refusals.credits.available) };
  if (refusals.noAccount && options.testPartition) return { type: 'open' };
  return { type: 'refuse', error: new UnauthorizedError() };
}

/** The request's reference URLs with the field each came from (`image_url`, `end_image_url`, `images.N`). */
function referenceUrls(request: StartRequest): [string, string][] {
  if (request.kind === 'image') return (request.params.images ?? []).map((url, index) => [`images.${index}`, url]);
  const { imageUrl, endImageUrl } = request.params;
  return [
    ...(imageUrl !== undefined ? [['image_url', imageUrl] as [string, string]] : []),
    ...(endImageUrl !== undefined ? [['end_image_url', endImageUrl] as [string, string]] : []),
  ];
}

/** 400 naming each reference URL we would refuse to fetch: part of validation, before any account read. */
export async function checkReferenceUrls(policy: ReferenceUrlPolicy, request: StartRequest): Promise<void> {
  const verdicts = await Promise.all(
    referenceUrls(request).map(async ([field, url]) => ({ field, why: await policy.whyRefused(url) })),
  );
  const refused = verdicts.flatMap(({ field, why }) =>
    why === undefined ? [] : [{ field, message: `${field}: we will not fetch this URL: ${why}` }],
  );
  if (refused.length > 0) {
    const message = `${refused.map(({ message }) => message).join('; ')}. ${UPLOAD_HINT}`;
    throw new ValidationError(message, refused[0]!.field);
  }
}
