'use strict';
/**
 * The Lambda `Context` every local caller hands a handler: the local stack, `npm run invoke`'s
 * bundle runner and the tests. Plain CommonJS because the bundle runner is spawned with bare
 * `node` (no TypeScript loader, as on Lambda); lambda-context.d.cts types it for the rest.
 */
const { randomUUID } = require('node:crypto');

const DEFAULT_TIMEOUT_MS = 30000;

function lambdaContext(functionName, options = {}) {
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: options.requestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

module.exports = { lambdaContext };
