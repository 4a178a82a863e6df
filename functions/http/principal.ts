import type { APIGatewayProxyEvent } from 'aws-lambda';
import { KEY_SCOPES, type KeyScope } from '#domain/api-key';
import { UnauthorizedError } from '#domain/errors';
import { KEY_MODES, modeOfScope, type KeyMode } from '#domain/mode';
import type { ApiKeyPrincipal, Principal } from '#domain/principal';

/**
 * What the authorizer put in its context, as the handler receives it. API Gateway (REST)
 * passes context values as strings, so numbers are parsed here.
 */
export function principalFrom(event: APIGatewayProxyEvent): Principal {
  const context = event.requestContext?.authorizer ?? {};
  // A context without a kind (an answer cached before there were kinds) is an API key's.
  const kind = context.kind ?? 'apiKey';
  // No authorizer issues a session yet (no route accepts one): a context claiming one is not ours.
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
    // The scope and the mode travel separately; a context where they disagree is not ours.
    modeOfScope(accountId) !== mode
  ) {
    // Only reachable if a route is deployed without the authorizer.
    throw new UnauthorizedError();
  }
  const scopes = scopesFrom(context.scopes);
  const monthlySpendLimit = context.monthlySpendLimit ? Number(context.monthlySpendLimit) : undefined;
  if (scopes === undefined || (monthlySpendLimit !== undefined && !Number.isInteger(monthlySpendLimit))) throw new UnauthorizedError();
  return {
    kind: 'apiKey',
    accountId,
    mode: mode as KeyMode,
    keyId,
    rateLimit,
    scopes,
    ...(monthlySpendLimit !== undefined && { monthlySpendLimit }),
  };
}

/** `generate,read`; absent (an answer cached before keys had scopes): every scope. */
function scopesFrom(value: unknown): KeyScope[] | undefined {
  if (value === undefined) return [...KEY_SCOPES];
  if (typeof value !== 'string') return undefined;
  const scopes = value === '' ? [] : value.split(',');
  return scopes.every((scope) => (KEY_SCOPES as readonly string[]).includes(scope)) ? (scopes as KeyScope[]) : undefined;
}

/** The authorizer's context, as strings, the way API Gateway hands it to the integration. */
export function authorizerContext(principal: ApiKeyPrincipal): Record<string, string> {
  return {
    kind: principal.kind,
    accountId: principal.accountId,
    mode: principal.mode,
    keyId: principal.keyId,
    rateLimit: String(principal.rateLimit),
    scopes: principal.scopes.join(','),
    // Empty for no limit: a context value must be a string, number or boolean.
    monthlySpendLimit: principal.monthlySpendLimit === undefined ? '' : String(principal.monthlySpendLimit),
  };
}
