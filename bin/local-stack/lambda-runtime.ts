import path from 'node:path';
import type { Context } from 'aws-lambda';

/** Loads functions/handlers/<name>.ts, as the Lambda runtime does (the context: ../lambda-context.cjs). */
const HANDLERS_DIR = path.resolve(__dirname, '..', '..', 'functions', 'handlers');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LambdaHandler = (event: any, context: Context) => Promise<any>;

export function loadHandler(name: string): LambdaHandler {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require(path.join(HANDLERS_DIR, name)) as { handler?: LambdaHandler };
  if (typeof module.handler !== 'function') {
    throw new Error(`functions/handlers/${name} does not export a handler function.`);
  }
  return module.handler;
}
