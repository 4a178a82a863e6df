import { parseArgs } from 'node:util';
import type { KeyMode, KeyScope, MemberRole, UsageParams } from '#client';
import { describeParseArgsError } from '../cli/parse-args-error';

/** A mistake in how the command was called: exit code 2. */
export class UsageError extends Error {}

/** How users run this CLI in this repository (package.json "bin"); messages name it. */
export const VIDGEN = 'npx vidgen';

export const USAGE = `Usage: ${VIDGEN} <command> [options]   (also: npm run -s vidgen -- <command> [options])

Commands:
  generate "PROMPT" [--model M] [--duration N] [--resolution R] [--aspect-ratio A]
                    [--image FILE|URL [--end-image FILE|URL]] [--seed N] [--negative TEXT]
                    [--end-user ID] [--metadata KEY=VALUE ...] [--wait] [--out FILE]
                    [--deliver-to URL [--deliver-header 'NAME: VALUE' ...] [--thumbnail-to URL]
                    [--no-keep-output]]
      Start a video. --image uploads FILE (or uses URL) and makes it image_to_video;
      --end-image is the frame it ends on (models with end_image: see "models").
      --deliver-to URL: once done, the video is PUT to your storage (a presigned PUT URL or
      an Azure SAS URL: docs/storage.md); --deliver-header adds a header to that PUT (repeat
      it, at most 10); --thumbnail-to is where the thumbnail goes; --no-keep-output deletes
      our copy once delivered.
  image "PROMPT" [--model M] [--resolution R] [--aspect-ratio A] [--format png|jpg|webp]
                 [--ref FILE|URL ...] [--seed N] [--negative TEXT] [--end-user ID]
                 [--metadata KEY=VALUE ...] [--wait] [--out FILE]
                 [--deliver-to URL [--deliver-header 'NAME: VALUE' ...] [--no-keep-output]]
      Start an image. --ref adds a reference image (edit mode); repeat it for more.
      --seed N (0 to 4294967295): the same seed and parameters give the same result.
      --negative TEXT: what the result should not show.
      --end-user ID: your own id of the user the task is for (kept and echoed with it);
      --metadata KEY=VALUE: a string kept with the task; repeat it for more (at most 16).
  models                              The models: prices, defaults, allowed values, capabilities.
  quote generate|image "PROMPT" [the options of generate or image, without --wait/--out]
      What that start would cost, your balance, and whether it would be accepted now.
      Nothing is charged (a local --image, --end-image or --ref file is uploaded).
  status ID [--wait] [--out FILE]
      Show a task: vid_... or img_...
  cancel ID                           Cancel a processing task (refunded); 409 once it ended.
  delete ID --yes                     Delete a final task's stored outputs (irreversible; charges
                                      unchanged); the task stays, with output_deleted_at.
  webhooks listen [--port N]
      Receive your events here: starts a receiver on 127.0.0.1 (a free port by default),
      registers it (the local stack accepts http to loopback), prints each verified event,
      and removes the endpoint on Ctrl-C.
  webhooks list                       Your webhook endpoints: id, URL, events, when added.
  webhooks delete WEBHOOK_ID          Remove an endpoint: nothing more is sent to it.
  webhooks deliveries WEBHOOK_ID [--page N] [--limit N]
      What was sent to an endpoint, newest first: status, attempts and why the last
      attempt failed (HTTP 500, connection refused, timeout after 10 s...).
  webhooks retry WEBHOOK_ID EVENT_ID  Send an event to an endpoint again (same webhook-id).
  events [--after CURSOR] [--limit N] [--follow] [--interval SEC]
      Your task endings, oldest first, whether or not a webhook got them (kept 30 days).
      --follow keeps polling and prints each new ending until Ctrl-C; the last cursor
      goes to stderr, to resume with --after.
  videos [--page N] [--limit N] [--end-user ID]
                                      Your videos, newest first (only that end user's with --end-user).
  images [--page N] [--limit N] [--end-user ID]
                                      Your images, newest first (only that end user's with --end-user).
  upload FILE                         Upload a JPEG, PNG or WebP; prints its URL.
  credits                             Credits, paid access and subscription.
  account                             Your account: id, both balances, access (and email when signed in).
  account retention DAYS|off          Keep results DAYS days after they complete, or for good (off);
                                      as the signed-in holder (owner or admin). Irreversible for
                                      results already older: they are deleted within minutes.
  login --email E --password P        Sign in as an account holder; vidgen then uses this session
                                      when no API key is set (VIDGEN_MODE=test for test mode).
  logout                              Forget the session.
  keys                                Your API keys (live and test): id, name, mode, prefix, scopes,
                                      spent this month of its limit, last use, expiry, revoked.
  keys create --name NAME [--mode live|test] [--scopes generate,read,webhooks]
              [--monthly-spend-limit CREDITS] [--expires-at DATE]
      A new key, printed once: store it. Default: live, every scope, no limit, no expiry.
      --expires-at takes an ISO 8601 date or time (a date alone: midnight UTC), at most a year ahead.
  keys update KEY_ID [--name NAME] [--scopes ...] [--monthly-spend-limit CREDITS|none]
      Change a key (KEY_ID: key_..., not the key itself); "none" removes its limit.
  keys revoke KEY_ID                  Revoke a key: it stops working within a minute.
      The keys commands act as the signed-in account holder (vidgen login), even when an API
      key is configured: API keys cannot manage keys.
  accounts                            The accounts you belong to and your role in each (default first).
  members                             The account's members and open invitations (owner or admin).
  members set-role HOLDER_ID ROLE     A member's new role: owner, admin, developer, billing or viewer.
  members remove HOLDER_ID            Remove a member (yourself too); the last owner cannot go.
  members invite EMAIL ROLE           Invite an address (valid 7 days; inviting again resends).
  members revoke INVITATION_ID        Withdraw an open invitation.
  invitations                         The open invitations to your (verified) address.
  invitations accept INVITATION_ID    Join that account in the role offered.
  audit [--after ID] [--limit N] [--csv]
      The account's audit log, newest first (owner or admin): who changed keys, members,
      webhooks, retention and billing. --after takes the next_after printed for older entries.
      The accounts, members, invitations and audit commands act as the signed-in account holder.
  transactions [--page N] [--limit N] Every grant, charge and refund of your credits, newest first.
  usage [--from DATE] [--to DATE] [--group-by day|model|key|end_user] [--csv]
      What your tasks cost, per day (default), model, API key or end user, with totals; the
      range is UTC days, both included (default: this month, at most 366 days). --csv prints
      the API's CSV (the rows only) as it comes.
  mcp                                 Serve the API's tools to an MCP client over stdio (for
                                      desktop agents): generate_video, wait_for_task, ...

Options:
  --wait            Poll until the task is completed or failed (progress on stderr).
  --out FILE        Download the result to FILE (implies --wait). More than one image:
                    FILE, FILE-2, FILE-3 ... before the extension.
  --interval SEC    Seconds between polls while waiting (default 5).
  --timeout SEC     Stop waiting after SEC seconds (exit 1); the task carries on.
  --json            Print only JSON on stdout (the API's data, or {"error": ...}).
  --account ACC_ID  Act as the signed-in holder in that account of theirs (see "accounts"),
                    even when an API key is set (also VIDGEN_ACCOUNT). Default: their own.
  -h, --help        This help.

Configuration: VIDGEN_API_KEY, or "apiKey" in ~/.config/vidgen/config.json (another file:
VIDGEN_CONFIG); without a key, the session of vidgen login (session.json beside it). Base URL:
VIDGEN_BASE_URL, else "baseUrl" in the file, else the local stack npm start runs from this
repository (whatever its port), else http://127.0.0.1:3000/api/v1. login signs in at
VIDGEN_IDENTITY_ENDPOINT with VIDGEN_CLIENT_ID ("identityEndpoint", "clientId" in the file), by
default the local stack's. A test key (vg_test_...) works on test data only (simulated
provider, test credits); vidgen says so on stderr before every command.

Exit codes: 0 done, 1 API or network error or failed task, 2 usage error, 130 interrupted.`;

const OPTIONS = {
  model: { type: 'string' },
  duration: { type: 'string' },
  resolution: { type: 'string' },
  'aspect-ratio': { type: 'string' },
  image: { type: 'string' },
  'end-image': { type: 'string' },
  seed: { type: 'string' },
  negative: { type: 'string' },
  format: { type: 'string' },
  ref: { type: 'string', multiple: true },
  'end-user': { type: 'string' },
  metadata: { type: 'string', multiple: true },
  'deliver-to': { type: 'string' },
  'deliver-header': { type: 'string', multiple: true },
  'thumbnail-to': { type: 'string' },
  'no-keep-output': { type: 'boolean' },
  wait: { type: 'boolean' },
  out: { type: 'string' },
  interval: { type: 'string' },
  timeout: { type: 'string' },
  page: { type: 'string' },
  limit: { type: 'string' },
  port: { type: 'string' },
  after: { type: 'string' },
  follow: { type: 'boolean' },
  yes: { type: 'boolean' },
  email: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'group-by': { type: 'string' },
  csv: { type: 'boolean' },
  password: { type: 'string' },
  name: { type: 'string' },
  mode: { type: 'string' },
  scopes: { type: 'string' },
  'monthly-spend-limit': { type: 'string' },
  'expires-at': { type: 'string' },
  account: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = keyof typeof OPTIONS;

const WAITING: OptionName[] = ['wait', 'out', 'interval', 'timeout'];
/** Delivery to the caller's storage (docs/storage.md); generate also takes --thumbnail-to. */
const DELIVERY: OptionName[] = ['deliver-to', 'deliver-header', 'no-keep-output'];

/** Which options each command takes (--json and --help go with all of them). */
const COMMANDS = {
  generate: {
    operand: 'PROMPT',
    options: ['model', 'duration', 'resolution', 'aspect-ratio', 'image', 'end-image', 'seed', 'negative', 'end-user', 'metadata', ...DELIVERY, 'thumbnail-to', ...WAITING],
  },
  image: { operand: 'PROMPT', options: ['model', 'resolution', 'aspect-ratio', 'format', 'ref', 'seed', 'negative', 'end-user', 'metadata', ...DELIVERY, ...WAITING] },
  models: { operand: undefined, options: [] },
  // Takes the options of the start it prices: parseCommand reads it as that start.
  quote: { operand: 'generate or image, then PROMPT', options: [] },
  status: { operand: 'ID', options: WAITING },
  cancel: { operand: 'ID', options: [] },
  delete: { operand: 'ID', options: ['yes'] },
  webhooks: { operand: 'listen, list, delete, deliveries or retry', options: ['port', 'page', 'limit'] },
  events: { operand: undefined, options: ['after', 'limit', 'follow', 'interval'] },
  videos: { operand: undefined, options: ['page', 'limit', 'end-user'] },
  images: { operand: undefined, options: ['page', 'limit', 'end-user'] },
  upload: { operand: 'FILE', options: [] },
  credits: { operand: undefined, options: [] },
  account: { operand: undefined, options: [] },
  login: { operand: undefined, options: ['email', 'password'] },
  logout: { operand: undefined, options: [] },
  transactions: { operand: undefined, options: ['page', 'limit'] },
  usage: { operand: undefined, options: ['from', 'to', 'group-by', 'csv'] },
  mcp: { operand: undefined, options: [] },
  // `keys` alone lists them; keysCommand checks each action's own options.
  keys: { operand: undefined, options: ['name', 'mode', 'scopes', 'monthly-spend-limit', 'expires-at'] },
  accounts: { operand: undefined, options: [] },
  members: { operand: undefined, options: [] },
  invitations: { operand: undefined, options: [] },
  audit: { operand: undefined, options: ['after', 'limit', 'csv'] },
} satisfies Record<string, { operand: string | undefined; options: OptionName[] }>;

export type CommandName = keyof typeof COMMANDS;

export interface WaitSettings {
  /** --wait or --out. */
  wait: boolean;
  out: string | undefined;
  intervalMs: number;
  timeoutMs: number | undefined;
}

/** What both starts may add. */
interface Extras {
  seed?: number;
  negative?: string;
  endUser?: string;
  metadata?: Record<string, string>;
  /** --deliver-to and its --deliver-header values. */
  deliverTo?: { url: string; headers: Record<string, string> };
  /** --thumbnail-to (generate only). */
  thumbnailTo?: string;
  /** --no-keep-output. */
  keepOutput?: false;
}

export type GenerateCommand = Extras & {
  name: 'generate';
  prompt: string;
  model?: string;
  duration?: number;
  resolution?: string;
  aspectRatio?: string;
  image?: string;
  endImage?: string;
  wait: WaitSettings;
  json: boolean;
};

export type ImageCommand = Extras & {
  name: 'image';
  prompt: string;
  model?: string;
  resolution?: string;
  aspectRatio?: string;
  format?: string;
  refs: string[];
  wait: WaitSettings;
  json: boolean;
};

export type Command =
  | { name: 'help' }
  | GenerateCommand
  | ImageCommand
  | { name: 'quote'; start: GenerateCommand | ImageCommand; json: boolean }
  | { name: 'models'; json: boolean }
  | { name: 'status'; id: string; kind: 'video' | 'image'; wait: WaitSettings; json: boolean }
  | { name: 'cancel'; id: string; kind: 'video' | 'image'; json: boolean }
  | { name: 'delete'; id: string; kind: 'video' | 'image'; json: boolean }
  | { name: 'webhooks'; action: 'listen'; port: number; json: boolean }
  | { name: 'webhooks'; action: 'list'; json: boolean }
  | { name: 'webhooks'; action: 'delete'; webhookId: string; json: boolean }
  | { name: 'webhooks'; action: 'deliveries'; webhookId: string; page?: number; limit?: number; json: boolean }
  | { name: 'webhooks'; action: 'retry'; webhookId: string; eventId: string; json: boolean }
  | { name: 'events'; after?: string; limit?: number; follow: boolean; intervalMs: number; json: boolean }
  | { name: 'videos' | 'images'; page?: number; limit?: number; endUser?: string; json: boolean }
  | { name: 'transactions'; page?: number; limit?: number; json: boolean }
  | { name: 'usage'; from?: string; to?: string; groupBy?: UsageGrouping; csv: boolean; json: boolean }
  | { name: 'upload'; file: string; json: boolean }
  | { name: 'credits' | 'account'; json: boolean }
  | { name: 'account'; retentionDays: number | null; json: boolean }
  | { name: 'mcp'; json: boolean }
  | { name: 'logout'; json: boolean }
  | { name: 'login'; email: string; password: string; json: boolean }
  | { name: 'accounts'; json: boolean }
  | { name: 'audit'; after?: string; limit?: number; csv: boolean; json: boolean }
  | { name: 'invitations'; action: 'list'; json: boolean }
  | { name: 'invitations'; action: 'accept'; invitationId: string; json: boolean }
  | KeysCommand
  | MembersCommand;

/** `members ...`: the team of the account in use. */
export type MembersCommand =
  | { name: 'members'; action: 'list'; json: boolean }
  | { name: 'members'; action: 'set-role'; holderId: string; role: MemberRole; json: boolean }
  | { name: 'members'; action: 'remove'; holderId: string; json: boolean }
  | { name: 'members'; action: 'invite'; email: string; role: MemberRole; json: boolean }
  | { name: 'members'; action: 'revoke'; invitationId: string; json: boolean };

/** The commands that act as the signed-in holder whatever credential is configured (API keys get 403 there). */
export const SESSION_COMMANDS: ReadonlySet<CommandName> = new Set(['keys', 'accounts', 'members', 'invitations', 'audit']);

/** Whether a command acts as the signed-in holder whatever credential is configured. */
export function actsAsHolder(command: Command): boolean {
  return command.name !== 'help' && (SESSION_COMMANDS.has(command.name) || (command.name === 'account' && 'retentionDays' in command));
}

/** A command and the account it acts in (--account or VIDGEN_ACCOUNT), when one is named. */
export type Invocation = Command & { account?: string };

/** `keys ...`; `keyName` is the key's --name (`name` names the command). */
export type KeysCommand =
  | { name: 'keys'; action: 'list'; json: boolean }
  | {
      name: 'keys';
      action: 'create';
      keyName: string;
      mode?: KeyMode;
      scopes?: KeyScope[];
      monthlySpendLimit?: number;
      expiresAt?: string;
      json: boolean;
    }
  | { name: 'keys'; action: 'update'; keyId: string; keyName?: string; scopes?: KeyScope[]; monthlySpendLimit?: number | null; json: boolean }
  | { name: 'keys'; action: 'revoke'; keyId: string; json: boolean };

type UsageGrouping = NonNullable<UsageParams['group_by']>;
/** A Record, so the type check fails if the API gains a grouping this lacks. */
const USAGE_GROUPING_SET: Record<UsageGrouping, true> = { day: true, model: true, key: true, end_user: true };
const USAGE_GROUPINGS = Object.keys(USAGE_GROUPING_SET);
const isUsageGrouping = (value: string): value is UsageGrouping => Object.hasOwn(USAGE_GROUPING_SET, value);

/** Every scope, in the API's order: a Record, so the type check fails if the API gains one this lacks. */
const KEY_SCOPES: Record<KeyScope, true> = { generate: true, read: true, webhooks: true };
const SCOPE_LIST = Object.keys(KEY_SCOPES).join(', ');

/** The command line, and the account it names (--account, else VIDGEN_ACCOUNT). */
export function parseInvocation(argv: string[], env: NodeJS.ProcessEnv = process.env): Invocation {
  const command = parseCommand(argv);
  if (command.name === 'help') return command;
  const given = accountOption(argv) ?? (env.VIDGEN_ACCOUNT?.trim() || undefined);
  if (given === undefined) return command;
  if (command.name === 'login' || command.name === 'logout' || command.name === 'mcp') {
    throw new UsageError(`--account (or VIDGEN_ACCOUNT) does not apply to "${command.name}".`);
  }
  if (!/^acc_[0-9A-Za-z]+$/.test(given)) throw new UsageError(`--account must be an account id such as acc_...; got "${given}".`);
  return { ...command, account: given };
}

/** --account as given (parseCommand has already checked the whole line). */
function accountOption(argv: string[]): string | undefined {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }).values.account;
}

export function parseCommand(argv: string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    throw new UsageError(describeParseArgsError(error, Object.keys(OPTIONS)));
  }
  const { values, positionals } = parsed;
  const [name, ...operands] = positionals;
  if (values.help || name === 'help') return { name: 'help' };
  if (name === undefined) throw new UsageError('No command given.');
  if (!isCommand(name)) throw new UsageError(`Unknown command "${name}".`);

  if (name === 'quote') {
    if (operands.length === 0) throw new UsageError('"quote" needs generate or image, then PROMPT.');
    const at = parsed.tokens.find((token) => token.kind === 'positional')!.index;
    return quoteCommand([...argv.slice(0, at), ...argv.slice(at + 1)]);
  }
  const spec = COMMANDS[name];
  const allowed = new Set<OptionName>([...spec.options, 'json', 'help', 'account']);
  for (const option of Object.keys(values) as OptionName[]) {
    if (!allowed.has(option)) throw new UsageError(`--${option} is not an option of "${name}".`);
  }
  if (spec.operand && operands.length === 0) throw new UsageError(`"${name}" needs ${spec.operand}.`);
  const expected = operandCount(name, operands[0], spec.operand !== undefined);
  if (operands.length > expected) {
    const hint = spec.operand === 'PROMPT' ? ' Quote a prompt that has spaces.' : '';
    throw new UsageError(`Too many arguments for "${name}": ${operands.slice(expected).join(' ')}.${hint}`);
  }
  const operand = operands[0] ?? '';
  const json = values.json ?? false;

  switch (name) {
    case 'generate':
      return {
        name,
        prompt: nonEmpty(operand, 'PROMPT'),
        model: values.model,
        duration: number(values.duration, '--duration'),
        resolution: values.resolution,
        aspectRatio: values['aspect-ratio'],
        image: values.image,
        ...(values['end-image'] !== undefined && { endImage: nonEmpty(values['end-image'], '--end-image') }),
        ...extras(values),
        wait: waitSettings(values),
        json,
      };
    case 'image':
      return {
        name,
        prompt: nonEmpty(operand, 'PROMPT'),
        model: values.model,
        resolution: values.resolution,
        aspectRatio: values['aspect-ratio'],
        format: values.format,
        refs: values.ref ?? [],
        ...extras(values),
        wait: waitSettings(values),
        json,
      };
    case 'status':
      return { name, id: operand, kind: taskKind(operand), wait: waitSettings(values), json };
    case 'cancel':
      return { name, id: operand, kind: taskKind(operand), json };
    case 'delete':
      // Irreversible: said out loud, never by default (scripts pass --yes).
      if (values.yes !== true) throw new UsageError('"delete" deletes the outputs for good (charges are not refunded): pass --yes to confirm.');
      return { name, id: operand, kind: taskKind(operand), json };
    case 'webhooks': {
      if (operand === 'deliveries') {
        const webhookId = operands[1];
        if (webhookId === undefined) throw new UsageError('"webhooks deliveries" needs WEBHOOK_ID (whk_...).');
        for (const option of ['port'] as const) if (values[option] !== undefined) throw new UsageError(`--${option} is not an option of "webhooks deliveries".`);
        return { name, action: 'deliveries', webhookId, page: number(values.page, '--page'), limit: number(values.limit, '--limit'), json };
      }
      if (operand === 'retry') {
        const [, webhookId, eventId] = operands;
        if (webhookId === undefined || eventId === undefined) throw new UsageError('"webhooks retry" needs WEBHOOK_ID (whk_...) and EVENT_ID (evt_...).');
        for (const option of ['port', 'page', 'limit'] as const) if (values[option] !== undefined) throw new UsageError(`--${option} is not an option of "webhooks retry".`);
        return { name, action: 'retry', webhookId, eventId, json };
      }
      if (operand === 'list' || operand === 'delete') {
        for (const option of ['port', 'page', 'limit'] as const) if (values[option] !== undefined) throw new UsageError(`--${option} is not an option of "webhooks ${operand}".`);
        if (operand === 'list') return { name, action: 'list', json };
        const webhookId = operands[1];
        if (webhookId === undefined) throw new UsageError(`"webhooks delete" needs WEBHOOK_ID (whk_..., the first column of "${VIDGEN} webhooks list").`);
        if (!webhookId.startsWith('whk_')) throw new UsageError(`"${webhookId}" is not a webhook id: webhook ids start with whk_ (the first column of "${VIDGEN} webhooks list").`);
        return { name, action: 'delete', webhookId, json };
      }
      if (operand !== 'listen') {
        throw new UsageError(
          `Unknown webhooks command "${operand}": use "webhooks listen", "webhooks list", "webhooks delete WEBHOOK_ID", "webhooks deliveries WEBHOOK_ID" or "webhooks retry WEBHOOK_ID EVENT_ID".`,
        );
      }
      for (const option of ['page', 'limit'] as const) if (values[option] !== undefined) throw new UsageError(`--${option} is not an option of "webhooks listen".`);
      const port = number(values.port, '--port') ?? 0;
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a port number (0 for a free one).');
      return { name, action: 'listen', port, json };
    }
    case 'videos':
    case 'images':
      return {
        name,
        page: number(values.page, '--page'),
        limit: number(values.limit, '--limit'),
        ...(values['end-user'] !== undefined && { endUser: nonEmpty(values['end-user'], '--end-user') }),
        json,
      };
    case 'transactions':
      return { name, page: number(values.page, '--page'), limit: number(values.limit, '--limit'), json };
    case 'events': {
      const interval = number(values.interval, '--interval') ?? 5;
      if (!(interval > 0)) throw new UsageError('--interval must be a number of seconds above 0.');
      return {
        name,
        ...(values.after !== undefined && { after: values.after }),
        limit: number(values.limit, '--limit'),
        follow: values.follow ?? false,
        intervalMs: interval * 1000,
        json,
      };
    }
    case 'usage': {
      const groupBy = values['group-by'];
      if (groupBy !== undefined && !isUsageGrouping(groupBy)) throw new UsageError(`--group-by must be one of ${USAGE_GROUPINGS.join(', ')}; got "${groupBy}".`);
      if (values.csv && json) throw new UsageError('--csv and --json are two answers: pass one.');
      return {
        name,
        ...(values.from !== undefined && { from: values.from }),
        ...(values.to !== undefined && { to: values.to }),
        ...(groupBy !== undefined && { groupBy }),
        csv: values.csv ?? false,
        json,
      };
    }
    case 'upload':
      return { name, file: nonEmpty(operand, 'FILE'), json };
    case 'account': {
      if (operands.length === 0) return { name, json };
      const [action, days] = operands;
      if (action !== 'retention') throw new UsageError(`Unknown account command "${action}": use "account" or "account retention DAYS|off".`);
      if (days === undefined) throw new UsageError('"account retention" needs DAYS (1 to 3650) or off.');
      return { name, retentionDays: days === 'off' ? null : number(days, 'DAYS')!, json };
    }
    case 'credits':
    case 'mcp':
    case 'models':
    case 'logout':
      return { name, json };
    case 'keys':
      return keysCommand(operands, values, json);
    case 'accounts':
      return { name, json };
    case 'members':
      return membersCommand(operands, json);
    case 'invitations': {
      const [action = 'list', invitationId] = operands;
      if (action === 'list') return { name, action, json };
      if (action !== 'accept') throw new UsageError(`Unknown invitations command "${action}": use "invitations" or "invitations accept INVITATION_ID".`);
      if (invitationId === undefined || invitationId.trim() === '') throw new UsageError('"invitations accept" needs INVITATION_ID (inv_...).');
      return { name, action, invitationId, json };
    }
    case 'audit':
      if (values.csv && json) throw new UsageError('--csv and --json are two answers: pass one.');
      return {
        name,
        ...(values.after !== undefined && { after: nonEmpty(values.after, '--after') }),
        limit: number(values.limit, '--limit'),
        csv: values.csv ?? false,
        json,
      };
    case 'login': {
      const password = values.password ?? process.env.VIDGEN_PASSWORD;
      if (!values.email) throw new UsageError('"login" needs --email.');
      if (!password) throw new UsageError('"login" needs --password (or VIDGEN_PASSWORD, which keeps it out of your shell history).');
      return { name, email: values.email, password, json };
    }
  }
}

/** How many operands a command takes: `webhooks deliveries|delete` and `keys update` name an id too. */
function operandCount(name: CommandName, first: string | undefined, hasOperand: boolean): number {
  if (name === 'webhooks') return first === 'deliveries' || first === 'delete' ? 2 : first === 'retry' ? 3 : 1;
  if (name === 'keys') return first === 'update' || first === 'revoke' ? 2 : 1;
  if (name === 'members') return first === 'set-role' || first === 'invite' ? 3 : first === 'remove' || first === 'revoke' ? 2 : 1;
  if (name === 'invitations') return first === 'accept' ? 2 : 1;
  if (name === 'account') return first === 'retention' ? 2 : 0;
  return hasOperand ? 1 : 0;
}

/** A Record, so the type check fails if the API gains a role this lacks. */
const MEMBER_ROLES: Record<MemberRole, true> = { owner: true, admin: true, developer: true, billing: true, viewer: true };
const isMemberRole = (value: string): value is MemberRole => Object.hasOwn(MEMBER_ROLES, value);

/** `members [list]`, `members set-role HOLDER_ID ROLE`, `members remove HOLDER_ID`. */
function membersCommand(operands: string[], json: boolean): MembersCommand {
  const [action = 'list', holderId, role] = operands;
  if (action === 'list') return { name: 'members', action, json };
  if (action === 'invite') {
    if (holderId === undefined || role === undefined) throw new UsageError('"members invite" needs EMAIL and ROLE.');
    return { name: 'members', action, email: nonEmpty(holderId, 'EMAIL'), role: memberRole(role), json };
  }
  if (action === 'revoke') {
    if (holderId === undefined || holderId.trim() === '') throw new UsageError('"members revoke" needs INVITATION_ID (inv_..., as "members" lists them).');
    return { name: 'members', action, invitationId: holderId, json };
  }
  if (action !== 'set-role' && action !== 'remove') {
    throw new UsageError(
      `Unknown members command "${action}": use "members", "members set-role HOLDER_ID ROLE", "members remove HOLDER_ID", "members invite EMAIL ROLE" or "members revoke INVITATION_ID".`,
    );
  }
  if (holderId === undefined || holderId.trim() === '') throw new UsageError(`"members ${action}" needs HOLDER_ID (the holder_id "members" prints).`);
  if (action === 'remove') return { name: 'members', action, holderId, json };
  if (role === undefined) throw new UsageError('"members set-role" needs HOLDER_ID and ROLE.');
  return { name: 'members', action, holderId, role: memberRole(role), json };
}

function memberRole(role: string): MemberRole {
  if (!isMemberRole(role)) throw new UsageError(`ROLE must be one of ${Object.keys(MEMBER_ROLES).join(', ')}; got "${role}".`);
  return role;
}

type KeyOption = 'name' | 'mode' | 'scopes' | 'monthly-spend-limit' | 'expires-at';

/** `keys [list]`, `keys create`, `keys update KEY_ID`, `keys revoke KEY_ID`, each with its own options. */
function keysCommand(operands: string[], values: Partial<Record<KeyOption, string>>, json: boolean): KeysCommand {
  const [action = 'list', keyIdGiven] = operands;
  const takes: Record<string, KeyOption[]> = {
    list: [],
    create: ['name', 'mode', 'scopes', 'monthly-spend-limit', 'expires-at'],
    update: ['name', 'scopes', 'monthly-spend-limit'],
    revoke: [],
  };
  const options = takes[action];
  if (!options) throw new UsageError(`Unknown keys command "${action}": use "keys", "keys create", "keys update KEY_ID" or "keys revoke KEY_ID".`);
  for (const option of COMMANDS.keys.options) {
    if (values[option] !== undefined && !options.includes(option)) throw new UsageError(`--${option} is not an option of "keys ${action}".`);
  }
  if (action === 'list') return { name: 'keys', action, json };
  if (action === 'create') {
    if (values.name === undefined) throw new UsageError('"keys create" needs --name NAME (what the key is for).');
    return {
      name: 'keys',
      action,
      keyName: nonEmpty(values.name, '--name'),
      ...(values.mode !== undefined && { mode: keyMode(values.mode) }),
      ...(values.scopes !== undefined && { scopes: keyScopes(values.scopes) }),
      ...(values['monthly-spend-limit'] !== undefined && { monthlySpendLimit: number(values['monthly-spend-limit'], '--monthly-spend-limit') }),
      ...(values['expires-at'] !== undefined && { expiresAt: instant(values['expires-at'], '--expires-at') }),
      json,
    };
  }
  if (keyIdGiven === undefined) throw new UsageError(`"keys ${action}" needs KEY_ID (key_...).`);
  const keyId = keyIdOf(keyIdGiven);
  if (action === 'revoke') return { name: 'keys', action, keyId, json };
  const limit = values['monthly-spend-limit'];
  if (values.name === undefined && values.scopes === undefined && limit === undefined) {
    throw new UsageError('"keys update" needs something to change: --name, --scopes or --monthly-spend-limit.');
  }
  return {
    name: 'keys',
    action: 'update',
    keyId,
    ...(values.name !== undefined && { keyName: nonEmpty(values.name, '--name') }),
    ...(values.scopes !== undefined && { scopes: keyScopes(values.scopes) }),
    ...(limit !== undefined && { monthlySpendLimit: limit.trim() === 'none' ? null : number(limit, '--monthly-spend-limit') }),
    json,
  };
}

function keyMode(value: string): KeyMode {
  if (value !== 'live' && value !== 'test') throw new UsageError(`--mode must be live or test, got "${value}".`);
  return value;
}

/** `generate,read`: known scopes, each once, at least one. */
function keyScopes(value: string): KeyScope[] {
  const given = value.split(',').map((scope) => scope.trim()).filter((scope) => scope !== '');
  if (given.length === 0) throw new UsageError(`--scopes needs at least one of ${SCOPE_LIST} (comma-separated).`);
  const unknown = given.find((scope) => !Object.hasOwn(KEY_SCOPES, scope));
  if (unknown !== undefined) throw new UsageError(`--scopes: unknown scope "${unknown}"; the scopes are ${SCOPE_LIST} (comma-separated).`);
  return [...new Set(given as KeyScope[])];
}

/** A key's id; never echoes an API key given by mistake (it is a secret). */
function keyIdOf(value: string): string {
  if (/^vg_(live|test)_/.test(value)) throw new UsageError(`That is an API key itself: give its id instead (key_..., the first column of "${VIDGEN} keys").`);
  if (!value.startsWith('key_')) throw new UsageError(`"${value}" is not a key id: key ids start with key_ (the first column of "${VIDGEN} keys").`);
  return value;
}

/** An ISO 8601 date or time as an exact UTC instant (a date alone is midnight UTC); the API judges the range. */
function instant(value: string, name: string): string {
  const time = Date.parse(value);
  if (value.trim() === '' || Number.isNaN(time)) throw new UsageError(`${name} must be an ISO 8601 date or time (2027-01-31 or 2027-01-31T12:00:00Z), got "${value}".`);
  return new Date(time).toISOString();
}

/** `quote generate|image PROMPT [options]`: the start it prices, parsed as that start. */
function quoteCommand(startArgv: string[]): Command {
  const start = parseCommand(startArgv);
  if (start.name !== 'generate' && start.name !== 'image') {
    throw new UsageError('"quote" prices a start: quote generate "PROMPT" [options] or quote image "PROMPT" [options].');
  }
  if (start.wait.wait || start.wait.timeoutMs !== undefined) throw new UsageError('"quote" starts nothing: --wait, --out and --timeout do not apply.');
  return { name: 'quote', start, json: start.json };
}

/** --seed and --negative, as given: the API judges them (a whole number in range; 1 to 2000 characters). */
function extras(values: {
  seed?: string;
  negative?: string;
  'end-user'?: string;
  metadata?: string[];
  'deliver-to'?: string;
  'deliver-header'?: string[];
  'thumbnail-to'?: string;
  'no-keep-output'?: boolean;
}): Extras {
  const deliverTo = values['deliver-to'];
  if (deliverTo === undefined) {
    const needs = (['deliver-header', 'thumbnail-to', 'no-keep-output'] as const).find((name) => values[name] !== undefined);
    if (needs) throw new UsageError(`--${needs} needs --deliver-to URL.`);
  }
  return {
    ...(deliverTo !== undefined && { deliverTo: { url: nonEmpty(deliverTo, '--deliver-to'), headers: deliveryHeaders(values['deliver-header'] ?? []) } }),
    ...(values['thumbnail-to'] !== undefined && { thumbnailTo: nonEmpty(values['thumbnail-to'], '--thumbnail-to') }),
    ...(values['no-keep-output'] === true && { keepOutput: false as const }),
    ...(values.seed !== undefined && { seed: number(values.seed, '--seed') }),
    ...(values.negative !== undefined && { negative: values.negative }),
    ...(values['end-user'] !== undefined && { endUser: nonEmpty(values['end-user'], '--end-user') }),
    ...(values.metadata !== undefined && { metadata: metadataOf(values.metadata) }),
  };
}

/** `--metadata k=v`, repeated: split at the first `=` (a value may hold more); the API checks keys and values. */
function metadataOf(pairs: string[]): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new UsageError(`--metadata: expected key=value, got "${pair}".`);
    const key = pair.slice(0, at);
    if (Object.hasOwn(metadata, key)) throw new UsageError(`--metadata: "${key}" is given twice.`);
    metadata[key] = pair.slice(at + 1);
  }
  return metadata;
}

/** `--deliver-header 'name: value'`, repeated: split at the first `:`, the value trimmed; the API checks names, values and count. */
function deliveryHeaders(pairs: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf(':');
    const name = pair.slice(0, Math.max(at, 0)).trim();
    if (at < 0 || name === '' || /\s/.test(name)) throw new UsageError(`--deliver-header: expected NAME: VALUE, got "${pair}".`);
    if (Object.keys(headers).some((seen) => seen.toLowerCase() === name.toLowerCase())) throw new UsageError(`--deliver-header: "${name}" is given twice.`);
    headers[name] = pair.slice(at + 1).trim();
  }
  return headers;
}

function taskKind(id: string): 'video' | 'image' {
  const kind = id.startsWith('vid_') ? 'video' : id.startsWith('img_') ? 'image' : undefined;
  if (!kind) throw new UsageError(`"${id}" is not a task id: video ids start with vid_, image ids with img_.`);
  return kind;
}

function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

function waitSettings(values: { wait?: boolean; out?: string; interval?: string; timeout?: string }): WaitSettings {
  const interval = number(values.interval, '--interval');
  const timeout = number(values.timeout, '--timeout');
  if (interval !== undefined && interval <= 0) throw new UsageError('--interval must be more than 0 seconds.');
  if (timeout !== undefined && timeout <= 0) throw new UsageError('--timeout must be more than 0 seconds.');
  if (values.out === '') throw new UsageError('--out needs a file name.');
  return {
    wait: Boolean(values.wait || values.out),
    out: values.out,
    intervalMs: Math.round((interval ?? 5) * 1000),
    timeoutMs: timeout === undefined ? undefined : Math.round(timeout * 1000),
  };
}

/** A number as given; the API judges its range (and whether it must be whole). */
function number(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new UsageError(`${name} must be a number, got "${value}".`);
  return parsed;
}

function nonEmpty(value: string, what: string): string {
  if (value.trim() === '') throw new UsageError(`${what} must not be empty.`);
  return value;
}
