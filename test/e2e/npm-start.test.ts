import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canConnectNow, freePort } from '../../bin/local-stack/wait-for-port';
import { spawnScript } from '../support/run-script';

/**
 * `npm start` as a developer runs it: its own DynamoDB Local (a Java child process) and
 * s3rver, data under a data folder, the banner with key and URL, and Ctrl-C stopping it all.
 */
jest.setTimeout(90_000);

interface Started {
  child: ChildProcess;
  baseUrl: string;
  apiKey: string;
  output: () => string;
}

async function start(env: Record<string, string>): Promise<Started> {
  const child = spawnScript('bin/local.ts', [], env);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), 60_000);
    const check = () => {
      if (output.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
  const baseUrl = /Base URL\s+(\S+)/.exec(output)?.[1];
  const apiKey = /API key\s+(vg_live_\w+)/.exec(output)?.[1];
  if (!baseUrl || !apiKey) throw new Error(`banner without URL or key:\n${output}`);
  return { child, baseUrl, apiKey, output: () => output };
}

function interrupt(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill('SIGINT');
  });
}

describe('npm start', () => {
  it('serves the API with a seeded demo key, stops every child on Ctrl-C, and keeps data across restarts', async () => {
    const ports = { PORT: await freePort(), DYNAMODB_PORT: await freePort(), S3_PORT: await freePort() };
    const env = {
      PORT: String(ports.PORT),
      DYNAMODB_PORT: String(ports.DYNAMODB_PORT),
      S3_PORT: String(ports.S3_PORT),
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'vidgen-start-')),
      TABLE_NAME: 'vidgen-local',
    };

    const first = await start(env);
    expect(first.baseUrl).toBe(`http://127.0.0.1:${ports.PORT}/api/v1`);
    expect(first.output()).toContain('created now');
    const credits = await fetch(`${first.baseUrl}/credits`, { headers: { Authorization: `Bearer ${first.apiKey}` } });
    expect(credits.status).toBe(200);
    expect(await credits.json()).toEqual({
      data: { credits: 1000, paid_access: true, subscription_status: 'active' },
      error: null,
    });

    expect(await interrupt(first.child)).toBe(0);
    for (const port of Object.values(ports)) expect(await canConnectNow('127.0.0.1', port)).toBe(false);

    const second = await start(env);
    try {
      expect(second.apiKey).toBe(first.apiKey);
      expect(second.output()).not.toContain('created now');
      const again = await fetch(`${second.baseUrl}/credits`, { headers: { Authorization: `Bearer ${second.apiKey}` } });
      expect(again.status).toBe(200);
    } finally {
      expect(await interrupt(second.child)).toBe(0);
    }
  });
});
