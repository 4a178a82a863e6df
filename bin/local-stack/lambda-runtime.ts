import path from 'node:path';
import type { Context } from 'aws-lambda';

/** Loads functions/handlers/<name>.ts and gives it a Lambda-like context, as the Lambda runtime does. */
const HANDLERS_DIR = path.resolve(__dirname, '..', '..', 'functions', 'handlers');
const TIMEOUT_MS = 30_000;

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

export function lambdaContext(functionName: string, requestId: string): Context {
  const deadline = Date.now() + TIMEOUT_MS;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
