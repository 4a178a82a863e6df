/**
 * The domain grouped by aggregate (issue 32, design §9): moves functions/domain/*.ts into
 * shared/, catalogue/, accounts/, billing/, providers/, tasks/, webhooks/ and uploads/, and
 * rewrites every import of a moved file (`#domain/<old>` and relative specifiers) in functions/,
 * test/, bench/, bin/, lib/ and the console. Symbols that left a module for another are followed
 * too: a named import of one of them is split off to its new module.
 *
 * Idempotent: run it again after merging a branch that still imports the old paths. A moved
 * file leaves a shim at its old path (`export * from './tasks/task';`) so code written against
 * the old paths keeps compiling until this runs. The shims of issue 32's moves are gone (stop 42):
 * a branch written before them runs this with --no-move to rewrite its imports.
 *
 * Run: npx tsx bin/codemods/domain-moves.ts [--no-move]   (--no-move: rewrite imports only)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const DOMAIN = path.join(ROOT, 'functions', 'domain');

/** Old file (without .ts) -> new path under functions/domain (without .ts). */
export const FILE_MOVES: Readonly<Record<string, string>> = {
  errors: 'shared/errors',
  ids: 'shared/ids',
  telemetry: 'shared/telemetry',
  mode: 'shared/partition',
  catalogue: 'catalogue/catalogue',
  dimensions: 'catalogue/dimensions',
  'image-size': 'catalogue/image-size',
  'image-type': 'catalogue/image-type',
  'media-type': 'catalogue/media-type',
  account: 'accounts/account',
  'account-admin': 'accounts/account-admin',
  'get-account': 'accounts/get-account',
  holder: 'accounts/holder',
  'api-key': 'accounts/api-key',
  'key-management': 'accounts/key-management',
  principal: 'accounts/principal',
  authenticate: 'accounts/authenticate',
  'authenticate-caller': 'accounts/authenticate-caller',
  'authenticate-session': 'accounts/authenticate-session',
  'rate-limit': 'accounts/rate-limit',
  'list-transactions': 'accounts/list-transactions',
  ledger: 'accounts/ledger',
  'mode-accounts': 'accounts/partition-accounts',
  'key-spend': 'accounts/spending-key',
  billing: 'billing/billing',
  'billing-account': 'billing/billing-account',
  'billing-events': 'billing/billing-events',
  provider: 'providers/provider',
  'circuit-breaker': 'providers/circuit-breaker',
  'provider-choice': 'providers/choice',
  'provider-routing': 'providers/routing',
  'provider-budget': 'providers/budget',
  'provider-status': 'tasks/describe-task',
  task: 'tasks/task',
  'start-task': 'tasks/start-task',
  quote: 'tasks/quote',
  submission: 'tasks/submission',
  'routed-create': 'tasks/routed-create',
  'cancel-task': 'tasks/cancel-task',
  'get-task': 'tasks/get-task',
  'list-tasks': 'tasks/list-tasks',
  progress: 'tasks/progress',
  sweep: 'tasks/sweep',
  admission: 'tasks/start-rules',
  'task-lifecycle': 'tasks/lifecycle/deps',
  'provider-callbacks': 'tasks/callbacks',
  webhooks: 'webhooks/webhooks',
  'events-feed': 'webhooks/events-feed',
  'webhook-deliveries': 'webhooks/deliveries',
  uploads: 'uploads/uploads',
};

/**
 * Symbols that left a module (new path, without .ts) for another: a named import or re-export
 * of one of them from the old module is moved to the new one.
 */
export const SYMBOL_MOVES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'ports': {
    AccountStore: 'accounts/ports',
    AccountDirectory: 'accounts/ports',
    HolderStore: 'accounts/ports',
    IdentityProvider: 'accounts/ports',
    ApiKeyStore: 'accounts/ports',
    ApiKeyChanges: 'accounts/ports',
    LedgerStore: 'accounts/ports',
    CheckoutRequest: 'billing/ports',
    PaymentGateway: 'billing/ports',
    BillingStore: 'billing/ports',
    NewTaskRequest: 'tasks/ports',
    TaskRef: 'tasks/ports',
    StartRepair: 'tasks/ports',
    CreateTaskResult: 'tasks/ports',
    TaskStore: 'tasks/ports',
    SubmissionRequest: 'tasks/ports',
    TaskEvents: 'tasks/ports',
    FailOptions: 'tasks/ports',
    IdempotencyClaim: 'tasks/ports',
    IdempotencyRecord: 'tasks/ports',
    IdempotencyStore: 'tasks/ports',
    MediaStore: 'tasks/ports',
    Thumbnails: 'tasks/ports',
    CopyRequest: 'tasks/ports',
    CopyQueue: 'tasks/ports',
    ReferenceUrlPolicy: 'tasks/ports',
    CallbackReceipts: 'tasks/ports',
    ProviderBudget: 'providers/ports',
    UploadStorage: 'uploads/ports',
    PublishedUpload: 'uploads/ports',
    UploadPublications: 'uploads/ports',
    MessageQueue: 'shared/ports',
    MAX_QUEUE_DELAY_SECONDS: 'shared/ports',
  },
  'webhooks/webhooks': {
    WebhookStore: 'webhooks/ports',
    DestinationPolicy: 'webhooks/ports',
  },
  'webhooks/deliveries': {
    DeliveryStore: 'webhooks/ports',
  },
  'webhooks/events-feed': {
    EventFeedStore: 'webhooks/ports',
  },
  'providers/circuit-breaker': {
    CircuitRecord: 'providers/ports',
    CircuitStore: 'providers/ports',
  },
  'tasks/list-tasks': {
    Page: 'shared/page',
  },
  'accounts/rate-limit': {
    RateWindow: 'shared/counter',
    RateCounter: 'shared/counter',
  },
  'tasks/task': {
    GenerationExtras: 'catalogue/params',
    VideoParams: 'catalogue/params',
    ImageParams: 'catalogue/params',
  },
  'accounts/ledger': {
    chargeEntry: 'tasks/charges',
    refundEntry: 'tasks/charges',
  },
  'tasks/lifecycle/deps': {
    failTask: 'tasks/lifecycle/endings',
    announceEnded: 'tasks/lifecycle/endings',
    FAILURE_MESSAGES: 'tasks/lifecycle/endings',
    logProviderDetail: 'tasks/lifecycle/endings',
    refreshTask: 'tasks/lifecycle/outcomes',
    applyOutcome: 'tasks/lifecycle/outcomes',
    copyOutputs: 'tasks/lifecycle/outputs',
    copyRequested: 'tasks/lifecycle/outputs',
    jobFor: 'tasks/lifecycle/outputs',
  },
  'tasks/describe-task': {
    CircuitView: 'providers/status',
    circuitsOf: 'providers/status',
  },
  'providers/routing': {
    ProviderRoutes: 'providers/choice',
  },
};

const SOURCE_DIRS = ['functions', 'test', 'bench', 'bin', 'lib', 'console/src', 'client/src'];
const SKIP = /(^|\/)(node_modules|generated|dist|cdk\.out)(\/|$)/;

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (SKIP.test(path.relative(ROOT, full))) return [];
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts|cts)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Where a domain module (path under functions/domain, no .ts) lives after the moves. */
function movedModule(domainPath: string): string {
  return FILE_MOVES[domainPath] ?? domainPath;
}

/** The file (absolute, no extension) a specifier written in `from` names, or undefined outside the domain. */
function domainTarget(specifier: string, from: string): string | undefined {
  if (specifier.startsWith('#domain/')) return specifier.slice('#domain/'.length);
  if (!specifier.startsWith('.')) return undefined;
  const absolute = path.resolve(path.dirname(from), specifier);
  const relative = path.relative(DOMAIN, absolute);
  return relative.startsWith('..') || path.isAbsolute(relative) ? undefined : relative.split(path.sep).join('/');
}

/** The specifier for `target` (domain path) as written from the file that will live at `from`. */
function specifierFor(target: string, from: string, original: string): string {
  if (original.startsWith('#domain/')) return `#domain/${target}`;
  let relative = path.relative(path.dirname(from), path.join(DOMAIN, target)).split(path.sep).join('/');
  if (!relative.startsWith('.')) relative = `./${relative}`;
  return relative;
}

const NAMED = /(import|export)(\s+type)?\s*\{([^}]*)\}\s*from\s*'([^']+)';/g;
const ANY_SPECIFIER = /(from\s*'|import\(\s*'|require\(\s*'|mock\(\s*')([^']+)'/g;

/** Rewrites one file's text, as it will read at `newPath`. */
function rewrite(text: string, oldPath: string, newPath: string): string {
  // Named imports first: symbols that moved go to their new module (one statement per module).
  let out = text.replace(NAMED, (statement, keyword: string, typeOnly: string | undefined, names: string, specifier: string) => {
    const target = domainTarget(specifier, oldPath);
    if (target === undefined) return statement;
    const module = movedModule(target);
    const moves = SYMBOL_MOVES[module];
    if (!moves) return statement;
    const groups = new Map<string, string[]>();
    for (const raw of names.split(',').map((name) => name.trim()).filter(Boolean)) {
      const symbol = raw.replace(/^type\s+/, '').split(/\s+as\s+/)[0]!;
      const destination = moves[symbol] ?? module;
      groups.set(destination, [...(groups.get(destination) ?? []), raw]);
    }
    return [...groups.entries()]
      .map(([destination, list]) => `${keyword}${typeOnly ?? ''} { ${list.join(', ')} } from '${specifierFor(destination, newPath, specifier)}';`)
      .join('\n');
  });
  out = out.replace(ANY_SPECIFIER, (match, lead: string, specifier: string) => {
    const target = domainTarget(specifier, oldPath);
    if (target === undefined) {
      // A relative import out of a file that moved deeper into the domain names the same file from its new place.
      if (!specifier.startsWith('.') || oldPath === newPath) return match;
      const absolute = path.resolve(path.dirname(oldPath), specifier);
      let relative = path.relative(path.dirname(newPath), absolute).split(path.sep).join('/');
      if (!relative.startsWith('.')) relative = `./${relative}`;
      return `${lead}${relative}'`;
    }
    return `${lead}${specifierFor(movedModule(target), newPath, specifier)}'`;
  });
  return out;
}

function main(): void {
  const move = !process.argv.includes('--no-move');
  const pending = Object.entries(FILE_MOVES).filter(([from]) => isRealModule(path.join(DOMAIN, `${from}.ts`)));
  const newPathOf = new Map<string, string>(
    pending.map(([from, to]) => [path.join(DOMAIN, `${from}.ts`), path.join(DOMAIN, `${to}.ts`)]),
  );
  const files = SOURCE_DIRS.flatMap((dir) => sourceFiles(path.join(ROOT, dir)));
  const rewritten = new Map<string, string>();
  for (const file of files) {
    if (isShim(file)) continue;
    const destination = move ? (newPathOf.get(file) ?? file) : file;
    const text = readFileSync(file, 'utf8');
    const next = rewrite(text, file, destination);
    if (next !== text || destination !== file) rewritten.set(file, next);
  }
  for (const [file, text] of rewritten) {
    const destination = move ? (newPathOf.get(file) ?? file) : file;
    if (destination !== file) {
      mkdirSync(path.dirname(destination), { recursive: true });
      execFileSync('git', ['mv', file, destination], { cwd: ROOT });
    }
    writeFileSync(destination, text);
  }
  if (move) {
    for (const [from, to] of pending) {
      const shim = path.join(DOMAIN, `${from}.ts`);
      writeFileSync(shim, `${SHIM_NOTE}\nexport * from './${to}';\n`);
      execFileSync('git', ['add', shim], { cwd: ROOT });
    }
  }
  console.log(`${pending.length} files moved, ${rewritten.size} files rewritten.`);
}

const SHIM_NOTE = '// Moved (issue 32): the old path for code not rewritten yet (bin/codemods/domain-moves.ts); removed in C15.';

const isShim = (file: string) => existsSync(file) && readFileSync(file, 'utf8').startsWith(SHIM_NOTE);
const isRealModule = (file: string) => existsSync(file) && !isShim(file);

main();
