import type { APIGatewayProxyEvent } from 'aws-lambda';
import { KEY_SCOPES, type KeyScope } from '#domain/accounts/api-key';
import { UnauthorizedError, ValidationError } from '#domain/shared/errors';
import { isTestPartition, KEY_MODES, modeOfPartition, partitionOf, type KeyMode } from '#domain/shared/partition';
import type { Principal, SessionPrincipal } from '#domain/accounts/principal';
import { headerValue } from './headers';

/** The header that picks a session's mode per request (an API key's own mode always applies). */
export const MODE_HEADER = 'Vidgen-Mode';

/**
 * What the authorizer put in its context, as the handler receives it. API Gateway (REST)
 * passes context values as strings, so numbers are parsed here.
 */
export function principalFrom(event: APIGatewayProxyEvent, modeOf: (event: APIGatewayProxyEvent) => KeyMode = requestedMode): Principal {
  const context = event.requestContext?.authorizer ?? {};
  // A context without a kind (an answer cached before there were kinds) is an API key's.
  const kind = context.kind ?? 'apiKey';
  if (kind === 'session') return sessionFrom(event, context, modeOf);
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

/**
 * A session acts on its holder's account in the mode the request asks for: the authorizer's
 * (cached) answer names the live account only, so one sign-in serves both modes.
 */
function sessionFrom(event: APIGatewayProxyEvent, context: Record<string, unknown>, modeOf: (event: APIGatewayProxyEvent) => KeyMode): SessionPrincipal {
  const { accountId, holderId, email } = context;
  const rateLimit = Number(context.rateLimit);
  if (typeof accountId !== 'string' || isTestPartition(accountId) || typeof holderId !== 'string' || typeof email !== 'string' || !Number.isInteger(rateLimit)) {
    throw new UnauthorizedError();
  }
  const mode = modeOf(event);
  return { kind: 'session', partitionId: partitionOf(accountId, mode), mode, holderId, email, rateLimit };
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
    // No mode: the answer is cached per token, and each request picks its own.
    return { kind: 'session', accountId: principal.partitionId, holderId: principal.holderId, email: principal.email, rateLimit: String(principal.rateLimit) };
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
