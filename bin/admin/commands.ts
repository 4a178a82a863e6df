import { parseArgs } from 'node:util';
import { indexStoredOutputs, UnknownResumeKeyError } from '#adapters/dynamodb/tasks/outputs-backfill';
import { describeParseArgsError } from '../cli/parse-args-error';
import { isSubscriptionStatus, SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '#domain/accounts/account';
import { KEY_SCOPES, type KeyScope } from '#domain/accounts/api-key';
import {
  createAccount,
  createApiKey,
  describeAccount,
  grantCredits,
  listAccountKeys,
  listAccounts,
  MAX_LISTED_ACCOUNTS,
  revokeApiKey,
  setAccess,
} from '#domain/accounts/account-admin';
import { CONFIG_DEFAULTS } from '#config';
import { operatorStamp } from '#domain/shared/audit';
import { listAuditEvents } from '#domain/accounts/audit-events';
import { auditEventPageView, auditEventsQuery } from '#contract/audit';
import { partitionOf } from '#domain/shared/partition';
import { circuitsOf } from '#domain/providers/status';
import { describeTask } from '#domain/tasks/describe-task';
import { PROVIDER_NAMES } from '#providers/settings-registry';
import type { AdminConnection, TargetOptions } from './target';
import { accountView, circuitView, keyDetailView, listingView, summaryView, taskView } from './views';
import { createUser, identityTarget, holderIdOf, signIn } from './users';
import { addMember, removeMember } from '#domain/accounts/members';
import { isRole, ROLES, type Role } from '#domain/accounts/roles';
import { NotFoundError } from '#domain/shared/errors';

import { UsageError } from './errors';

export { UsageError };

export const USAGE = `Usage: npm run -s admin -- <command> [options]

  account create [--credits N] [--paid] [--subscription ${SUBSCRIPTION_STATUSES.join('|')}]
  account list   [--limit N]         every account, newest first (reads the whole table)
  account show   --account ID
  account set    --account ID [--paid true|false] [--subscription STATUS]
  credits grant  --account ID --amount N --reason TEXT [--test]
  key create     --account ID [--rate-limit N] [--test] [--name TEXT] [--scopes generate,read,webhooks]
                 [--monthly-spend-limit N] [--end-user-monthly-spend-limit N] [--expires-at ISO_INSTANT]
  key list       --account ID        its keys, live and test (never the keys themselves)
  key revoke     --key KEY_ID
  audit          --account ID [--limit N] [--after AUD_ID]   its audit log, newest first
  member add     --account ID --email E --role ${ROLES.join('|')}
  member remove  --account ID (--email E | --holder HOLDER_ID)   an owner only while another remains
  user create    --email E --password P [--account ID [--role R]]
  user sign-in   --email E --password P
  task show      --account ID --task TASK_ID [--test]
  circuits
  outputs index  [--resume KEY] [--max-pages N]   lists old completed tasks for retention (once)

Target: the running local stack by default. --aws uses the deployed table named by
TABLE_NAME (or --table) in AWS_REGION (or --region) with your AWS credentials.
user create makes a verified account holder in the identity provider (the local identity
server, or with --aws the Cognito user pool named by USER_POOL_ID and USER_POOL_CLIENT_ID),
a member of the account given (as --role, owner unless said) or the owner of a new one; user
sign-in prints an access token for it.
task show prints a task as operators follow it: the provider and job it runs on, how its
submission stands (queued, sent with its answer lost...) and that provider's circuit; circuits
prints every provider's circuit breaker (closed, open until, half_open: the next start probes).
member add makes a holder who has signed in at least once (or was made by user create) a
member of the account, through the identity provider to find them by email; member remove
finds them among the account's members. Both are audited as the operator.
outputs index enters tasks completed before retention existed into the list the expiry reads
(until then their outputs never expire); idempotent; a bounded run prints resume_key.
Every command prints one JSON object on stdout. --test: a vg_test_ key, a grant to the
account's test balance, or a test-mode task (test mode: separate data, the simulated provider,
1000 test credits).`;

const OPTIONS = {
  account: { type: 'string' },
  credits: { type: 'string' },
  paid: { type: 'string' },
  subscription: { type: 'string' },
  amount: { type: 'string' },
  reason: { type: 'string' },
  key: { type: 'string' },
  task: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  holder: { type: 'string' },
  password: { type: 'string' },
  'rate-limit': { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  'monthly-spend-limit': { type: 'string' },
  'end-user-monthly-spend-limit': { type: 'string' },
  'expires-at': { type: 'string' },
  limit: { type: 'string' },
  after: { type: 'string' },
  resume: { type: 'string' },
  'max-pages': { type: 'string' },
  test: { type: 'boolean' },
  aws: { type: 'boolean' },
  table: { type: 'string' },
  region: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

export interface ParsedCommand {
  name: string;
  values: Values;
  target: TargetOptions;
}

/** `--paid` may stand alone as a flag ("account create --paid") or take true/false. */
function paidAsFlag(argv: string[]): string[] {
  return argv.map((arg, i) => {
    const next = argv[i + 1];
    return arg === '--paid' && (next === undefined || next.startsWith('--')) ? '--paid=true' : arg;
  });
}

export function parseCommand(argv: string[]): ParsedCommand {
  let parsed;
  try {
    parsed = parseArgs({ args: paidAsFlag(argv), options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(describeParseArgsError(error, Object.keys(OPTIONS)));
  }
  const { values, positionals } = parsed;
  if (values.help || (positionals.length === 1 && positionals[0] === 'help')) return { name: 'help', values, target: {} };
  // No command is a usage mistake like any other (exit 2), so a script that forgot it fails.
  if (positionals.length === 0) throw new UsageError('No command given.');
  const oneWord = positionals.length === 1 && ONE_WORD_COMMANDS.includes(positionals[0]!);
  if (positionals.length !== 2 && !oneWord) throw new UsageError(`Expected "<group> <action>", got "${positionals.join(' ')}".`);
  return {
    name: positionals.join(' '),
    values,
    target: { aws: values.aws ?? false, table: values.table, region: values.region },
  };
}

/** Commands of one word (the others are "<group> <action>"). */
const ONE_WORD_COMMANDS: readonly string[] = ['circuits', 'audit'];

function need(values: Values, name: 'account' | 'amount' | 'reason' | 'key' | 'email' | 'password' | 'task'): string {
  const value = values[name];
  if (!value) throw new UsageError(`--${name} is required.`);
  return value;
}

function role(raw: string | undefined): Role {
  if (!raw) throw new UsageError('--role is required.');
  if (!isRole(raw)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}; got "${raw}".`);
  return raw;
}

function wholeNumber(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number; got "${raw}".`);
  return Number(raw);
}

/** `--scopes generate,read`: the scopes a key gets (default: all). */
function scopeList(raw: string | undefined): KeyScope[] | undefined {
  if (raw === undefined) return undefined;
  const scopes = raw.split(',').map((scope) => scope.trim());
  const unknown = scopes.filter((scope) => !(KEY_SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0 || scopes.length === 0) throw new UsageError(`--scopes must be a comma-separated list of ${KEY_SCOPES.join(', ')}; got "${raw}".`);
  return KEY_SCOPES.filter((scope) => scopes.includes(scope));
}

function boolean(raw: string | undefined, name: string): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw !== 'true' && raw !== 'false') throw new UsageError(`--${name} must be true or false; got "${raw}".`);
  return raw === 'true';
}

function subscription(raw: string | undefined): SubscriptionStatus | undefined {
  if (raw === undefined) return undefined;
  if (!isSubscriptionStatus(raw)) {
    throw new UsageError(`--subscription must be one of ${SUBSCRIPTION_STATUSES.join(', ')}; got "${raw}".`);
  }
  return raw;
}

/**
 * How long a gateway keeps a key's authorization (API Gateway's authorizer cache, the local
 * gateway's copy of it): a revoked key works that much longer where it was used recently. The
 * deployed value is a deploy setting this CLI cannot read; it is the same default unless changed.
 */
export function authCacheTtlSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.AUTH_CACHE_TTL_SECONDS?.trim();
  return raw && /^\d+$/.test(raw) ? Number(raw) : CONFIG_DEFAULTS.authCacheTtlSeconds;
}

/** The circuit settings as the functions read them (CIRCUIT_*, else the defaults): the CLI cannot read the deployed ones. */
function circuitSettings(env: NodeJS.ProcessEnv = process.env): { failure_threshold: number; cool_down_seconds: number } {
  const read = (raw: string | undefined, fallback: number) => (raw && /^\d+$/.test(raw.trim()) ? Number(raw) : fallback);
  return {
    failure_threshold: read(env.CIRCUIT_FAILURE_THRESHOLD, CONFIG_DEFAULTS.circuitFailureThreshold),
    cool_down_seconds: read(env.CIRCUIT_COOL_DOWN_SECONDS, CONFIG_DEFAULTS.circuitCoolDownSeconds),
  };
}

/** SIGNUP_CREDITS, as the deployed functions read it: a new holder's live balance. */
function loadSignupCredits(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SIGNUP_CREDITS?.trim();
  return raw && /^\d+$/.test(raw) ? Number(raw) : CONFIG_DEFAULTS.signupCredits;
}

/** The operator's changes are audited as `operator`, with the CLI's version as user agent. */
const OPERATOR = operatorStamp(process.env.npm_package_version ?? 'dev');

/** Runs one command and returns the object to print. */
export async function runCommand(command: ParsedCommand, stores: AdminConnection): Promise<object> {
  const { values } = command;
  switch (command.name) {
    case 'account create': {
      const { account, key } = await createAccount(stores, {
        credits: wholeNumber(values.credits, 'credits'),
        paidAccess: boolean(values.paid, 'paid'),
        subscriptionStatus: subscription(values.subscription),
      }, undefined, OPERATOR);
      return { ...accountView(account), key_id: key.keyId, api_key: key.apiKey };
    }
    case 'account list': {
      const limit = wholeNumber(values.limit, 'limit') ?? 100;
      if (limit < 1 || limit > MAX_LISTED_ACCOUNTS) throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LISTED_ACCOUNTS}; got "${values.limit}".`);
      const { accounts, total } = await listAccounts(stores.directory, limit);
      return { accounts: accounts.map(listingView), total };
    }
    case 'audit': {
      // The same page and shape as GET /audit-events (its query rules too: 400s become usage mistakes).
      const query = auditEventsQuery.safeParse({ after: values.after, limit: values.limit });
      if (!query.success) throw new UsageError(`--${String(query.error.issues[0]?.path[0] ?? 'limit')}: ${query.error.issues[0]?.message ?? 'invalid'}.`);
      const accountId = need(values, 'account');
      const page = await listAuditEvents(stores.auditLog, accountId, query.data.after, query.data.limit);
      return { account_id: accountId, ...auditEventPageView(page) };
    }
    case 'key list': {
      const accountId = need(values, 'account');
      return { account_id: accountId, keys: (await listAccountKeys(stores, accountId)).map((key) => keyDetailView(key)) };
    }
    case 'account show':
      return summaryView(await describeAccount(stores, need(values, 'account')));
    case 'account set':
      return accountView(
        await setAccess(stores, need(values, 'account'), {
          paidAccess: boolean(values.paid, 'paid'),
          subscriptionStatus: subscription(values.subscription),
        }, undefined, OPERATOR),
      );
    case 'credits grant': {
      const amount = wholeNumber(need(values, 'amount'), 'amount')!;
      const mode = values.test ? 'test' : 'live';
      const account = await grantCredits(stores, need(values, 'account'), amount, need(values, 'reason'), { mode, stamp: OPERATOR });
      // A test grant prints the test balance, under the account's own id.
      return { ...accountView(account), account_id: need(values, 'account'), mode, granted: amount };
    }
    case 'key create': {
      const accountId = need(values, 'account');
      const rateLimit = wholeNumber(values['rate-limit'], 'rate-limit');
      const monthlySpendLimit = wholeNumber(values['monthly-spend-limit'], 'monthly-spend-limit');
      const endUserMonthlySpendLimit = wholeNumber(values['end-user-monthly-spend-limit'], 'end-user-monthly-spend-limit');
      const scopes = scopeList(values.scopes);
      const key = await createApiKey(stores, accountId, {
        ...(rateLimit !== undefined && { rateLimit }),
        ...(monthlySpendLimit !== undefined && { monthlySpendLimit }),
        ...(endUserMonthlySpendLimit !== undefined && { endUserMonthlySpendLimit }),
        ...(scopes && { scopes }),
        ...(values.name !== undefined && { name: values.name }),
        ...(values['expires-at'] !== undefined && { expiresAt: values['expires-at'] }),
        mode: values.test ? 'test' : 'live',
      }, undefined, OPERATOR);
      return {
        key_id: key.keyId,
        api_key: key.apiKey,
        account_id: accountId,
        mode: key.mode,
        rate_limit: rateLimit ?? null,
        monthly_spend_limit: monthlySpendLimit ?? null,
        end_user_monthly_spend_limit: endUserMonthlySpendLimit ?? null,
        scopes: scopes ?? [...KEY_SCOPES],
      };
    }
    case 'key revoke': {
      const key = await revokeApiKey(stores, need(values, 'key'), undefined, OPERATOR);
      const ttl = authCacheTtlSeconds();
      return {
        key_id: key.keyId,
        account_id: key.accountId,
        status: 'revoked',
        revoked_at: key.revokedAt,
        effective_everywhere_within_seconds: ttl,
        note: `The key may still be accepted for up to ${ttl} s where it was used recently: the gateway caches each key's authorization that long (AUTH_CACHE_TTL_SECONDS locally, the authCacheTtlSeconds deploy setting on AWS; ${CONFIG_DEFAULTS.authCacheTtlSeconds} s unless set).`,
      };
    }
    case 'user create': {
      // Checked before the identity provider is asked for anything: a refused role makes nothing.
      if (values.role !== undefined && !values.account) throw new UsageError('--role needs --account: a holder with a new account is its owner.');
      const memberRole = values.account ? role(values.role ?? 'owner') : 'owner';
      const { holder, createdAccount } = await createUser(await identityTarget(stores.local), stores, {
        email: need(values, 'email'),
        password: need(values, 'password'),
        ...(values.account && { accountId: values.account, role: memberRole }),
        signupCredits: loadSignupCredits(),
      });
      return { holder_id: holder.holderId, email: holder.email, account_id: holder.accountId, role: memberRole, created_account: createdAccount };
    }
    case 'member add': {
      const [accountId, email, memberRole] = [need(values, 'account'), need(values, 'email').trim().toLowerCase(), role(values.role)];
      // The pool's sub is the holder's id; the team store refuses a holder never recorded (never signed in).
      const holderId = await holderIdOf(await identityTarget(stores.local), email);
      if (!(await stores.holders.get(holderId))) throw new NotFoundError(`${email} has never signed in: they sign in once (or use user create --account ${accountId} --email ${email}), then add them.`);
      await addMember(stores.team, { accountId, holderId, email, role: memberRole }, OPERATOR, stores.clock());
      return { account_id: accountId, holder_id: holderId, email, role: memberRole };
    }
    case 'member remove': {
      const accountId = need(values, 'account');
      if (!values.email === !values.holder) throw new UsageError('member remove needs exactly one of --email and --holder.');
      // The account's own members list finds them: no identity provider needed, and a former holder is found too.
      const email = values.email?.trim().toLowerCase();
      const member = (await stores.team.list(accountId)).find((each) => (email ? each.email.toLowerCase() === email : each.holderId === values.holder));
      if (!member) throw new NotFoundError(`${email ?? values.holder} is not a member of ${accountId}.`);
      await removeMember(stores.team, { accountId, holderId: member.holderId, actor: null }, OPERATOR, stores.clock());
      return { account_id: accountId, holder_id: member.holderId, email: member.email, removed: true };
    }
    case 'task show': {
      const scope = partitionOf(need(values, 'account'), values.test ? 'test' : 'live');
      const { task, circuit } = await describeTask(stores, scope, need(values, 'task'), Date.now());
      return taskView(task, circuit);
    }
    case 'circuits': {
      const circuits = await circuitsOf(stores.circuits, PROVIDER_NAMES, Date.now());
      return {
        circuits: circuits.map(circuitView),
        ...circuitSettings(),
        note: 'A circuit opens after failure_threshold consecutive creates that got no answer or a 5xx (a 4xx or a 429 resets the count) and skips its provider for cool_down_seconds; then one start probes it. The deployed values are the circuitFailureThreshold and circuitCoolDownSeconds deploy settings (CIRCUIT_* locally).',
      };
    }
    case 'outputs index': {
      const maxPages = wholeNumber(values['max-pages'], 'max-pages');
      if (maxPages === 0) throw new UsageError('--max-pages must be a whole number of at least 1; got "0".');
      const run = await indexStoredOutputs(stores.db, { ...(values.resume && { resumeKey: values.resume }), ...(maxPages && { maxPages }) }).catch((error: unknown) => {
        throw error instanceof UnknownResumeKeyError ? new UsageError(`--resume ${error.message}; got "${values.resume}".`) : error;
      });
      return { found: run.found, indexed: run.indexed, resume_key: run.resumeKey ?? null };
    }
    case 'user sign-in': {
      const { accessToken, expiresIn } = await signIn(await identityTarget(stores.local), need(values, 'email'), need(values, 'password'));
      return { access_token: accessToken, expires_in: expiresIn };
    }
    default:
      throw new UsageError(`Unknown command "${command.name}".`);
  }
}
