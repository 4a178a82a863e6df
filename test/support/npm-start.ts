import type { ChildProcess } from 'node:child_process';
import { spawnScript } from './run-script';

/** `npm start` (bin/local.ts) as a child process, as a developer runs it. */
export interface Started {
  child: ChildProcess;
  baseUrl: string;
  apiKey: string;
  output: () => string;
}

/**
 * By default as package.json's start script runs it: node itself, so Ctrl-C reaches the stack's
 * handler (tsx's CLI waits 30 ms for a child to claim a signal, then kills it: exit 130 when
 * loaded). `wrapped`: under tsx's CLI, a parent process that can die alone, as npm can.
 */
export async function start(env: Record<string, string>, wrapped = false): Promise<Started> {
  const child = spawnScript('bin/local.ts', [], env, wrapped ? 'tsx' : 'node --import tsx');
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

export function interrupt(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill('SIGINT');
  });
}
