import path from 'node:path';
import type { Context } from 'aws-lambda';
import { installRuntimeGlobals } from '../lambda-streaming.cjs';

/** Loads functions/handlers/<name>.ts, as the Lambda runtime does (the context: ../lambda-context.cjs). */
const HANDLERS_DIR = path.resolve(__dirname, '..', '..', 'functions', 'handlers');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LambdaHandler = (event: any, context: Context) => Promise<any>;
// (A streaming handler takes (event, responseStream, context): call it with invokeStreaming.)

export function loadHandler(name: string): LambdaHandler {
  // A streaming handler's module calls the runtime's `awslambda.streamifyResponse` as it loads.
  installRuntimeGlobals();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(path.join(HANDLERS_DIR, name)) as { handler?: LambdaHandler };
  if (typeof module.handler !== 'function') {
    throw new Error(`functions/handlers/${name} does not export a handler function.`);
  }
  return module.handler;
}
