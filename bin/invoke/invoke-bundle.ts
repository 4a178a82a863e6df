import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { BundledFunction } from './assembly';

const RUNNER = path.join(__dirname, 'run-bundle.cjs');

export type InvokeOutcome =
  | { ok: true; durationMs: number; result: unknown }
  | { ok: false; phase: 'init' | 'invoke' | 'runner'; errorType?: string; errorMessage?: string; stack?: string; durationMs?: number };

export interface InvokeResult {
  outcome: InvokeOutcome;
  /** What the handler logged (stdout and stderr of its process). */
  logs: string;
}

export interface InvokeOptions {
  /** The complete environment of the function's process (nothing is inherited). */
  environment: Record<string, string>;
  /** Forward the handler's log lines as they come (the CLI passes process.stderr). */
  logTo?: NodeJS.WritableStream;
  timeoutMs?: number;
}

/**
 * Runs a bundled handler from the cloud assembly in a fresh `node` process (no tsx, no jest
 * transforms: the same file Lambda would load), with exactly the given environment.
 */
export function invokeBundle(fn: BundledFunction, event: unknown, options: InvokeOptions): Promise<InvokeResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUNNER, path.join(fn.assetDir, fn.file), fn.exportName, fn.handler], {
      cwd: fn.assetDir,
      env: {
        ...options.environment,
        ...(options.timeoutMs && { INVOKE_TIMEOUT_MS: String(options.timeoutMs) }),
        PATH: process.env.PATH ?? '',
      },
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    let logs = '';
    let report = '';
    const collect = (stream: Readable | null) =>
      stream?.on('data', (chunk: Buffer) => {
        logs += chunk.toString();
        options.logTo?.write(chunk);
      });
    collect(child.stdout);
    collect(child.stderr);
    (child.stdio[3] as Readable).on('data', (chunk: Buffer) => (report += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const line = report.trim().split('\n').pop();
      if (!line) {
        resolve({ outcome: { ok: false, phase: 'runner', errorMessage: `The function process exited with code ${code} without an answer.` }, logs });
        return;
      }
      resolve({ outcome: JSON.parse(line) as InvokeOutcome, logs });
    });
    child.stdin?.end(JSON.stringify(event));
  });
}
