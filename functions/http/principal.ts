import type { APIGatewayProxyEvent } from 'aws-lambda';
import { KEY_SCOPES, type KeyScope } from '#domain/accounts/api-key';
import { UnauthorizedError, ValidationError } from '#domain/shared/errors';
import { KEY_MODES, modeOfPartition, type KeyMode } from '#domain/shared/partition';
import type { Principal, SessionMembership, SessionPrincipal } from '#domain/accounts/principal';
import { isRole } from '#domain/accounts/roles';
import { sessionActingOn, type SessionCaller } from '#domain/accounts/session-account';
import { headerValue } from './headers';

/** The header that picks a session's mode per request (an API key's own mode always applies). */
export const MODE_HEADER = 'Vidgen-Mode';

/**
 * What the authorizer put in its context, as the handler receives it. API Gateway (REST)
 * passes context values as strings, so numbers are parsed here.
 */
export function principalFrom(
  event: APIGatewayProxyEvent,
  modeOf: (event: APIGatewayProxyEvent) => KeyMode = requestedMode,
  accountOf: (event: APIGatewayProxyEvent) => string | undefined = requestedAccount,
): Principal {
  const context = event.requestContext?.authorizer ?? {};
  // A context without a kind (an answer cached before there were kinds) is an API key's.
  const kind = context.kind ?? 'apiKey';
  if (kind === 'session') return sessionFrom(event, context, modeOf, accountOf);
  if (kind !== 'apiKey') throw new UnauthorizedError();
  const accountId = context.accountId;
  const keyId = context.keyId;
  const rateLimit = Number(context.rateLimit);
  // A context without a mode (an answer cached before test mode existed) is a live key's.
  const mode = context.mode ?? 'live';
  if (
    typeof accountId !== 'string' ||
    typeof keyId !== 'string' ||
    !Number.isInteger(rateLimit) ||
    !(KEY_MODES as readonly unknown[]).includes(mode) ||
    // The partition and the mode travel separately; a context where they disagree is not ours.
    modeOfPartition(accountId) !== mode
  ) {
    // Only reachable if a route is deployed without the authorizer.
    throw new UnauthorizedError();
  }
  const scopes = scopesFrom(context.scopes);
  const monthlySpendLimit = context.monthlySpendLimit ? Number(context.monthlySpendLimit) : undefined;
  // Absent from answers cached before the field existed: no limit.
  const endUserMonthlySpendLimit = context.endUserMonthlySpendLimit ? Number(context.endUserMonthlySpendLimit) : undefined;
  const badLimit = [monthlySpendLimit, endUserMonthlySpendLimit].some((limit) => limit !== undefined && !Number.isInteger(limit));
  if (scopes === undefined || badLimit) throw new UnauthorizedError();
  return {
    kind: 'apiKey',
    partitionId: accountId,
    mode: mode as KeyMode,
    keyId,
    rateLimit,
    scopes,
    ...(monthlySpendLimit !== undefined && { monthlySpendLimit }),
    ...(endUserMonthlySpendLimit !== undefined && { endUserMonthlySpendLimit }),
  };
}

/** `generate,read`; absent (an answer cached before keys had scopes): every scope. */
function scopesFrom(value: unknown): KeyScope[] | undefined {
  if (value === undefined) return [...KEY_SCOPES];
  if (typeof value !== 'string') return undefined;
  const scopes = value === '' ? [] : value.split(',');
  return scopes.every((scope) => (KEY_SCOPES as readonly string[]).includes(scope)) ? (scopes as KeyScope[]) : undefined;
}

/** The authorizer's facts of a session, as its (cached) context carries them: no account or mode chosen yet. */
function sessionCallerFrom(context: Record<string, unknown>): SessionCaller {
  const { holderId, email } = context;
  const rateLimit = Number(context.rateLimit);
  if (typeof holderId !== 'string' || typeof email !== 'string' || !Number.isInteger(rateLimit)) throw new UnauthorizedError();
  return { holderId, email, rateLimit, memberships: membershipsFrom(context) };
}

/**
 * `acc_X=owner acc_Y=viewer`, default first. A context without the field (an answer cached
 * before teams) names the holder's one account, which they owned. Anything malformed: 401.
 */
function membershipsFrom(context: Record<string, unknown>): SessionMembership[] {
  const { memberships, accountId } = context;
  if (memberships === undefined) {
    if (typeof accountId !== 'string' || !ACCOUNT_IN_CONTEXT.test(accountId)) throw new UnauthorizedError();
    return [{ accountId, role: 'owner' }];
  }
  if (typeof memberships !== 'string') throw new UnauthorizedError();
  return memberships === ''
    ? []
    : memberships.split(' ').map((pair) => {
        const [id, role, ...rest] = pair.split('=');
        if (rest.length > 0 || id === undefined || !ACCOUNT_IN_CONTEXT.test(id) || !isRole(role)) throw new UnauthorizedError();
        return { accountId: id, role };
      });
}

/** A live account id as the authorizer writes one (never a test partition). */
const ACCOUNT_IN_CONTEXT = /^acc_[0-9A-Za-z]+$/;

/**
 * A session acts on the account its request picks (`Vidgen-Account`, only among the holder's
 * own memberships) in the mode it asks for: the authorizer's (cached) answer lists the holder's
 * live accounts only, so one sign-in serves every account and both modes.
 */
function sessionFrom(
  event: APIGatewayProxyEvent,
  context: Record<string, unknown>,
  modeOf: (event: APIGatewayProxyEvent) => KeyMode,
  accountOf: (event: APIGatewayProxyEvent) => string | undefined,
): SessionPrincipal {
  const caller = sessionCallerFrom(context);
  return sessionActingOn(caller, accountOf(event), modeOf(event));
}

/** The header that picks, among a session's accounts, the one a request acts on (an API key's own account always applies). */
export const ACCOUNT_HEADER = 'Vidgen-Account';
const ACCOUNT_ID = /^acc_[0-9A-HJKMNP-TV-Z]{26}$/;

/** `Vidgen-Account: acc_…`; undefined (the default account) when absent. */
export function requestedAccount(event: Pick<APIGatewayProxyEvent, 'headers'>): string | undefined {
  const value = headerValue(event, ACCOUNT_HEADER);
  if (value === undefined) return undefined;
  if (ACCOUNT_ID.test(value)) return value;
  throw new ValidationError(`${ACCOUNT_HEADER}: must be an account id (acc_ and 26 characters); got "${value.slice(0, 40)}".`, ACCOUNT_HEADER);
}

/** `Vidgen-Mode: live | test`; live when absent. */
export function requestedMode(event: Pick<APIGatewayProxyEvent, 'headers'>): KeyMode {
  const value = headerValue(event, MODE_HEADER);
  if (value === undefined) return 'live';
  if ((KEY_MODES as readonly string[]).includes(value)) return value as KeyMode;
  throw new ValidationError(`${MODE_HEADER}: must be "live" or "test"; got "${value.slice(0, 40)}".`, MODE_HEADER);
}

/** The authorizer's context, as strings, the way API Gateway hands it to the integration. */
export function authorizerContext(principal: Principal): Record<string, string> {
  if (principal.kind === 'session') {
    // No mode and no chosen account: the answer is cached per token, and each request picks its own.
    return {
      kind: 'session',
      holderId: principal.holderId,
      email: principal.email,
      rateLimit: String(principal.rateLimit),
      memberships: principal.memberships.map(({ accountId, role }) => `${accountId}=${role}`).join(' '),
    };
  }
  return {
    kind: principal.kind,
    accountId: principal.partitionId,
    mode: principal.mode,
    keyId: principal.keyId,
    rateLimit: String(principal.rateLimit),
    scopes: principal.scopes.join(','),
    // Empty for no limit: a context value must be a string, number or boolean.
    monthlySpendLimit: principal.monthlySpendLimit === undefined ? '' : String(principal.monthlySpendLimit),
    endUserMonthlySpendLimit: principal.endUserMonthlySpendLimit === undefined ? '' : String(principal.endUserMonthlySpendLimit),
  };
}
