'use strict';
/**
 * Runs one bundled Lambda handler the way the Node.js runtime does, in a fresh process: the
 * environment is the function's configuration (read at cold start), the bundle is required
 * from its asset folder, the export is called with (event, context), or for a streaming one
 * (awslambda.streamifyResponse) with a response stream, its streamed answer reported whole as
 * { statusCode, headers, body }. The handler's own output
 * (console.log, console.error) goes to stdout/stderr as in CloudWatch; the outcome is written
 * as one JSON line to file descriptor 3, so logs and result never mix.
 *
 * Usage (by bin/invoke.ts): node run-bundle.cjs <bundle file> <export name> <function name>
 * with the event as JSON on stdin.
 */
const fs = require('node:fs');
const { lambdaContext } = require('../lambda-context.cjs');
const { installRuntimeGlobals, invokeStreaming, isStreamingHandler, readAll } = require('../lambda-streaming.cjs');

const [file, exportName, functionName] = process.argv.slice(2);
const TIMEOUT_MS = Number(process.env.INVOKE_TIMEOUT_MS || 30000);

function report(outcome) {
  fs.writeSync(3, JSON.stringify(outcome) + '\n');
}

async function main() {
  const event = JSON.parse(fs.readFileSync(0, 'utf8'));
  const started = Date.now();
  let handler;
  try {
    installRuntimeGlobals();
    handler = require(file)[exportName];
  } catch (error) {
    report({ ok: false, phase: 'init', errorType: error.name, errorMessage: error.message, stack: error.stack });
    return;
  }
  if (typeof handler !== 'function') {
    report({ ok: false, phase: 'init', errorType: 'Runtime.HandlerNotFound', errorMessage: `${file} has no export ${exportName}` });
    return;
  }
  let timer;
  try {
    const result = await Promise.race([
      invoke(handler, event, lambdaContext(functionName, { timeoutMs: TIMEOUT_MS })),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(`Task timed out after ${TIMEOUT_MS} ms`), { name: 'Sandbox.Timedout' })), TIMEOUT_MS);
      }),
    ]);
    report({ ok: true, durationMs: Date.now() - started, result: result === undefined ? null : result });
  } catch (error) {
    report({ ok: false, phase: 'invoke', durationMs: Date.now() - started, errorType: error && error.name, errorMessage: error && error.message, stack: error && error.stack });
  } finally {
    clearTimeout(timer);
  }
}

async function invoke(handler, event, context) {
  if (!isStreamingHandler(handler)) return handler(event, context);
  const { body, ...metadata } = await invokeStreaming(handler, event, context);
  return { ...metadata, body: await readAll(body) };
}

main().then(
  () => {
    // Like a Lambda environment being frozen: work left running after the answer (sockets kept
    // alive by the SDK, an in-process copy) gets a short grace period, then the process ends.
    setTimeout(() => process.exit(0), Number(process.env.INVOKE_DRAIN_MS || 5000)).unref();
  },
  (error) => {
    report({ ok: false, phase: 'runner', errorType: error.name, errorMessage: error.message });
    process.exit(1);
  },
);
