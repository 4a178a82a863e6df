import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger, LogLevelThreshold, type LogItem } from '@aws-lambda-powertools/logger';
import type { ConstructorOptions, LogItemExtraInput, LogItemMessage } from '@aws-lambda-powertools/logger/types';
import { formatPretty, prettyLogs } from './log-format';

/**
 * Keys that belong to one request (request_id, account_id, task_id) and the invocation that
 * serves it. Kept per async call chain rather than with `logger.appendKeys` and Powertools'
 * Lambda context, which are process-wide: the local stack runs many requests of several
 * functions at once in one process, and each line must name its own.
 */
interface RequestScope {
  keys: Record<string, unknown>;
  invocation: { function_name?: string; function_arn?: string; function_request_id?: string };
}
const requestScope = new AsyncLocalStorage<RequestScope>();

/** Runs `fn` with its own set of request keys (empty until `addRequestKeys`). */
export function inRequestScope<T>(fn: () => T): T {
  return requestScope.run({ keys: {}, invocation: {} }, fn);
}

/** Adds keys to every later line of the current request (ignored outside one). */
export function addRequestKeys(keys: Record<string, unknown>): void {
  const scope = requestScope.getStore();
  if (!scope) return;
  for (const [key, value] of Object.entries(keys)) if (value !== undefined) scope.keys[key] = value;
}

/** Names the function and Lambda request id serving the current request. */
export function setInvocation(
  context: { functionName?: string; invokedFunctionArn?: string; awsRequestId?: string } = {},
): void {
  const scope = requestScope.getStore();
  if (!scope) return;
  scope.invocation = {
    function_name: context.functionName,
    function_arn: context.invokedFunctionArn,
    function_request_id: context.awsRequestId,
  };
}

/**
 * Powertools Logger: JSON lines with service, cold start, function name and request ids, plus
 * the current request's keys. With LOG_FORMAT=pretty (the local stack) the same entries print
 * as one readable line each.
 */
class VidGenLogger extends Logger {
  protected override createLogger(options?: ConstructorOptions): Logger {
    return new VidGenLogger(options);
  }

  protected override createAndPopulateLogItem(
    logLevel: number,
    input: LogItemMessage,
    extraInput: LogItemExtraInput,
  ): LogItem {
    const item = super.createAndPopulateLogItem(logLevel, input, extraInput);
    const scope = requestScope.getStore();
    if (scope) {
      const attributes = item.getAttributes();
      for (const [key, value] of Object.entries(scope.invocation)) if (value !== undefined) attributes[key] = value;
      // A field passed with the line wins over the request's.
      for (const [key, value] of Object.entries(scope.keys)) if (!(key in attributes)) attributes[key] = value;
    }
    return item;
  }

  protected override printLog(logLevel: number, log: LogItem): void {
    if (!prettyLogs()) return super.printLog(logLevel, log);
    log.prepareForPrint();
    const stream = logLevel >= LogLevelThreshold.WARN ? process.stderr : process.stdout;
    stream.write(`${formatPretty(log.getAttributes())}\n`);
  }
}

export const logger = new VidGenLogger({
  // POWERTOOLS_SERVICE_NAME (vidgen-<stage>) on AWS.
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'vidgen-local',
});
