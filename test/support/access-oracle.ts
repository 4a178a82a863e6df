import type { KeyScope } from '#domain/accounts/api-key';
import { decide, type CallerFacts } from '#http/access';
import { isHttpSpec, type FunctionSpec } from '#spec/function-spec';

/**
 * Who may call what, written from CONTRACT.md ("Self-serve API keys", "Teams", "Billing"), never
 * from the specs: the access matrix (test/unit/access-matrix.test.ts) holds every spec's access
 * decision (functions/http/access.ts) to it, for every caller kind. Rule-based, so a new endpoint
 * in an existing family needs no edit here.
 */
type Capability = 'read' | 'generate' | 'webhooks' | 'keys' | 'billing' | 'members' | 'holder';
type Role = 'owner' | 'admin' | 'developer' | 'billing' | 'viewer';

/** CONTRACT.md, "Teams": what sessions of each role may do. */
const ROLE_MAY: Readonly<Record<Role, readonly Capability[]>> = {
  owner: ['read', 'generate', 'webhooks', 'keys', 'billing', 'members'],
  admin: ['read', 'generate', 'webhooks', 'keys', 'billing', 'members'],
  developer: ['read', 'generate', 'webhooks', 'keys'],
  billing: ['read', 'billing'],
  viewer: ['read'],
};

/** Paths the gateway runs no authorizer on: nothing to guard, or the function checks a signature. */
const PUBLIC_PATHS = [/^\/provider-callbacks\//, /^\/billing\/stripe-webhook$/, /^\/openapi\.json$/, /^\/docs(\/|$)/];
/** Paths for signed-in account holders only: every API key is refused. */
const SESSION_PATHS = [/^\/keys(\/|$)/, /^\/billing(\/|$)/, /^\/account\/members(\/|$)/, /^\/invitations(\/|$)/, /^\/audit-events$/, /^\/accounts$/];
/**
 * A signed-in holder's own routes, whatever their role or account (CONTRACT.md, "Teams": `GET
 * /accounts`, and the holder's own invitations, matched by their verified email).
 */
const HOLDER_ROUTES = ['GET /accounts', 'GET /invitations', 'POST /invitations/{invitation_id}/accept'];
/** Routes for sessions only on a path keys may otherwise use (CONTRACT.md, "Retention and deletion": PATCH /account is a session's). */
const SESSION_ROUTES = ['PATCH /account'];
/** Routes whose capability the general rule below does not give. */
const EXCEPTIONS: Readonly<Record<string, Capability>> = {
  // CONTRACT.md, "Teams": retention is in the members row (owner, admin).
  'PATCH /account': 'members',
};

/** The capability a route needs (CONTRACT.md: GET, quotes and MCP read; /webhooks; keys; billing; members; the rest generate). */
export function capabilityOf(method: string, routePath: string): Capability {
  const exception = EXCEPTIONS[`${method} ${routePath}`];
  if (exception) return exception;
  if (HOLDER_ROUTES.includes(`${method} ${routePath}`)) return 'holder';
  if (/^\/webhooks(\/|$)/.test(routePath)) return 'webhooks';
  if (/^\/keys(\/|$)/.test(routePath)) return 'keys';
  // The test subscription (issue 31) is test mode's billing beside test credits: the same row.
  if (/^\/billing\/(checkout|portal|test-credits|test-subscription)$/.test(routePath)) return 'billing';
  if (/^\/(account\/members|invitations|audit-events)(\/|$)/.test(routePath)) return 'members';
  if (method === 'GET' || routePath === '/quote' || routePath === '/mcp') return 'read';
  return 'generate';
}

/** The columns of the matrix: every kind of caller the API can meet, and one it cannot. */
export interface Column {
  label: string;
  facts: CallerFacts;
}
const SCOPES: readonly KeyScope[] = ['read', 'generate', 'webhooks'];
export const COLUMNS: readonly Column[] = [
  { label: 'no credential', facts: { kind: 'anonymous' } },
  ...SCOPES.map((scope) => ({ label: `key(${scope})`, facts: { kind: 'apiKey', scopes: [scope] } as const })),
  { label: 'key(all scopes)', facts: { kind: 'apiKey', scopes: SCOPES } },
  { label: 'key(no scope)', facts: { kind: 'apiKey', scopes: [] } },
  ...(Object.keys(ROLE_MAY) as Role[]).map((role) => ({ label: `session(${role})`, facts: { kind: 'session', role } as const })),
  // A holder who is no member of the account their request picked (or of any account).
  { label: 'session(no member)', facts: { kind: 'session', role: null, accountId: 'acc_2', refusal: 'You are not a member of acc_2.' } },
  // A kind of caller no spec names yet (an operator's token, say): refused until one does.
  { label: 'operator', facts: { kind: 'operator' } },
];

/** What CONTRACT.md says about one caller on one route: allow or not, and the rule that says so. */
export function oracle(spec: FunctionSpec, column: Column): { allow: boolean; rule: string } {
  if (!isHttpSpec(spec)) return { allow: false, rule: 'behind no route: no request reaches it' };
  const { method, path: routePath } = spec.trigger;
  if (PUBLIC_PATHS.some((pattern) => pattern.test(routePath))) return { allow: true, rule: 'public path' };
  const capability = capabilityOf(method, routePath);
  const facts = column.facts as { kind: string; scopes?: readonly string[]; role?: Role | null };
  if (facts.kind === 'apiKey') {
    if (SESSION_PATHS.some((pattern) => pattern.test(routePath)) || SESSION_ROUTES.includes(`${method} ${routePath}`)) return { allow: false, rule: 'sessions only' };
    return { allow: facts.scopes!.includes(capability), rule: `Self-serve API keys: ${capability}` };
  }
  if (facts.kind === 'session') {
    if (capability === 'holder') return { allow: true, rule: "Teams: the holder's own" };
    if (facts.role === null || facts.role === undefined) return { allow: false, rule: 'Teams: not a member' };
    return { allow: ROLE_MAY[facts.role].includes(capability), rule: `Teams: ${capability}` };
  }
  return { allow: false, rule: 'unknown caller' };
}

/** Every cell where the spec's decision and the contract disagree, one line each (empty: none). */
export function accessProblems(specs: readonly FunctionSpec[]): string[] {
  const problems: string[] = [];
  for (const spec of specs) {
    const route = isHttpSpec(spec) ? `${spec.trigger.method} /api/v1${spec.trigger.path}` : `${spec.name} (${spec.trigger.kind})`;
    for (const column of COLUMNS) {
      const expected = oracle(spec, column);
      const decided = decide(column.facts, spec.access);
      if (decided.allow !== expected.allow) {
        problems.push(`${route} × ${column.label}: expected ${expected.allow ? 'allow' : 'forbidden'} (${expected.rule}), got ${decided.allow ? 'allow' : 'forbidden'}`);
      }
    }
  }
  return problems;
}
