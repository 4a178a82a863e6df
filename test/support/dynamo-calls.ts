import type { Db } from '#adapters/dynamodb/dynamo-client';

/** One DynamoDB call as the client sent it: the operation, and the key prefix of the item it names (if any). */
export interface DynamoCall {
  operation: string;
  /** The item's partition key up to its first '#' (RATE, ACCOUNT, ...), for Get/Put/Update/Delete. */
  keyPrefix?: string;
}

/** A call with its timing: what the round-trip bench (bench/roundtrips.ts) counts. */
export interface TimedCall extends DynamoCall {
  /** Which item: the key prefix, and in an account's partition the sort key's (`ACCOUNT/TASK`); `+` between a transaction's. */
  item?: string;
  /** Items a transaction or batch names (1 for a single-item call). */
  parts: number;
  /** performance.now() when the call was sent and when its answer (or error) came back. */
  startedAt: number;
  endedAt: number;
  /** HTTP attempts, the SDK's own retries included. */
  attempts: number;
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);
const TRANSACTIONS = new Set(['TransactWriteItems', 'TransactGetItems']);
export const isRead = (call: DynamoCall) => READS.has(call.operation);

function keyPrefixOf(input: Record<string, any>): string | undefined {
  const raw = (input.Key ?? input.Item)?.pk;
  // The document client's input is plain; a raw client's is marshalled ({ S: '...' }).
  const pk = typeof raw === 'string' ? raw : typeof raw?.S === 'string' ? raw.S : undefined;
  if (pk !== undefined) return pk.split('#')[0];
  const parts = partsOf(input);
  if (parts.length === 0) return undefined;
  const prefixes = [...new Set(parts.map((part) => keyPrefixOf(part) ?? '?'))];
  return prefixes.join('+');
}

/** The key prefix, and within an account's partition the sort key's too: `ACCOUNT/TASK`, `ACCOUNT/LEDGER`. */
function itemOf(input: Record<string, any>): string | undefined {
  if (typeof input.KeyConditionExpression === 'string') return typeof input.IndexName === 'string' ? input.IndexName : 'table';
  const key = input.Key ?? input.Item;
  const text = (value: any): string | undefined => (typeof value === 'string' ? value : typeof value?.S === 'string' ? value.S : undefined);
  const pk = text(key?.pk);
  if (pk !== undefined) {
    const prefix = pk.split('#')[0]!;
    // A provider's budget turns count in the rate counters too.
    if (prefix === 'RATE' && pk.startsWith('RATE#provider-')) return 'RATE(turn)';
    const sk = text(key?.sk);
    return prefix === 'ACCOUNT' && sk !== undefined ? `ACCOUNT/${sk.split('#')[0]}` : prefix;
  }
  const parts = partsOf(input);
  if (parts.length === 0) return undefined;
  return [...new Set(parts.map((part) => itemOf(part) ?? '?'))].join('+');
}

/** The items a transaction or a batch names, each as a single-item input. */
function partsOf(input: Record<string, any>): Record<string, any>[] {
  if (Array.isArray(input.TransactItems)) {
    return input.TransactItems.map((item: Record<string, any>) => Object.values(item)[0] as Record<string, any>);
  }
  if (input.RequestItems && typeof input.RequestItems === 'object') {
    return Object.values(input.RequestItems as Record<string, any>).flatMap((request: any) =>
      Array.isArray(request)
        ? request.map((write: Record<string, any>) => ({ Key: write.PutRequest?.Item ?? write.DeleteRequest?.Key }))
        : (request.Keys ?? []).map((Key: unknown) => ({ Key })),
    );
  }
  return [];
}

/**
 * Records every call a table client sends while `during` runs (a middleware on the client the
 * handlers share): how benchmarks and tests count what an endpoint reads.
 */
export async function recordDynamoCalls(db: Db, during: () => Promise<unknown>): Promise<DynamoCall[]> {
  const { calls } = await recordTimedCalls(db, during, { settleMs: 0 });
  return calls.map(({ operation, keyPrefix }) => ({ operation, ...(keyPrefix !== undefined && { keyPrefix }) }));
}

/**
 * Records every call with its timing while `during` runs, and after it (work a request left
 * behind: the copy worker, a queue's consumer) until `settleMs` pass without a new call.
 * `respondedAt` is when `during` settled: calls that start later are the request's `after`.
 */
export async function recordTimedCalls(
  db: Db,
  during: () => Promise<unknown>,
  { settleMs = 500 }: { settleMs?: number } = {},
): Promise<{ calls: TimedCall[]; respondedAt: number }> {
  const calls: TimedCall[] = [];
  const name = `record-calls-${Math.random()}`;
  const attemptsName = `${name}-attempts`;
  const current = Symbol('recorded call');
  db.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      const input = args.input as Record<string, any>;
      const keyPrefix = keyPrefixOf(input);
      const item = itemOf(input);
      const parts = partsOf(input).length || 1;
      const call: TimedCall = { operation, ...(keyPrefix !== undefined && { keyPrefix }), ...(item !== undefined && { item }), parts, startedAt: performance.now(), endedAt: NaN, attempts: 0 };
      (context as Record<symbol, TimedCall>)[current] = call;
      calls.push(call);
      try {
        return await next(args);
      } finally {
        call.endedAt = performance.now();
      }
    },
    { step: 'initialize', name },
  );
  // Below the retry middleware: once per HTTP attempt.
  db.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const call = (context as Record<symbol, TimedCall | undefined>)[current];
      if (call) call.attempts += 1;
      return next(args);
    },
    { step: 'deserialize', name: attemptsName },
  );
  try {
    await during();
    const respondedAt = performance.now();
    // Wait out work the request left behind: until settleMs pass with no new call and none open.
    if (settleMs > 0) {
      let seen = -1;
      while (seen !== calls.length || calls.some((call) => Number.isNaN(call.endedAt))) {
        seen = calls.length;
        await new Promise((resolve) => setTimeout(resolve, settleMs));
      }
    }
    return { calls, respondedAt };
  } finally {
    db.doc.middlewareStack.remove(name);
    db.doc.middlewareStack.remove(attemptsName);
  }
}

/** What one request cost in DynamoDB calls. */
export interface CallSummary {
  /** Calls made before the answer. */
  calls: number;
  /** The longest chain of calls each sent after the previous one answered: sequential round trips. */
  rounds: number;
  /** The most calls in flight at once. */
  maxParallel: number;
  reads: number;
  writes: number;
  transactions: number;
  /** HTTP attempts beyond one per call (SDK retries). */
  retries: number;
  /** Calls that started after the answer (copy worker, queue consumers), and their own rounds. */
  after: { calls: number; rounds: number };
  /** The calls round by round, as `Operation PREFIX` (transactions with their part count). */
  trace: string[];
}

/** Each call's round: depth(j) = 1 + max(depth(i) : i ended before j started). */
export function depthsOf(calls: readonly TimedCall[]): Map<TimedCall, number> {
  const sorted = [...calls].sort((a, b) => a.startedAt - b.startedAt);
  const depths = new Map<TimedCall, number>();
  for (const [j, call] of sorted.entries()) {
    let before = 0;
    for (let i = 0; i < j; i += 1) if (sorted[i]!.endedAt <= call.startedAt) before = Math.max(before, depths.get(sorted[i]!)!);
    depths.set(call, before + 1);
  }
  return depths;
}

/** The longest chain of calls each sent after the previous one answered. */
export const roundsOf = (calls: readonly TimedCall[]): number => Math.max(0, ...depthsOf(calls).values());

function maxParallelOf(calls: readonly TimedCall[]): number {
  const events = calls.flatMap((call) => [
    [call.startedAt, 1],
    [call.endedAt, -1],
  ] as const);
  // An answer at the same instant as a send frees its slot first.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, change] of events) {
    open += change;
    most = Math.max(most, open);
  }
  return most;
}

export function describeCall(call: TimedCall): string {
  const parts = TRANSACTIONS.has(call.operation) || call.operation.startsWith('Batch') ? `(${call.parts})` : '';
  return `${call.operation}${parts} ${call.item ?? ''}`.trim();
}

/** The calls round by round: `1: UpdateItem RATE`, `2: TransactWriteItems(4) ACCOUNT+TASK ∥ UpdateItem RATE`. */
function traceOf(calls: readonly TimedCall[]): string[] {
  const depths = depthsOf(calls);
  const rounds: string[][] = [];
  for (const call of [...calls].sort((a, b) => a.startedAt - b.startedAt)) (rounds[depths.get(call)! - 1] ??= []).push(describeCall(call));
  return rounds.map((round, index) => `${index + 1}: ${round.join(' ∥ ')}`);
}

export function summarize(calls: readonly TimedCall[], respondedAt: number): CallSummary {
  const during = calls.filter((call) => call.startedAt <= respondedAt);
  const after = calls.filter((call) => call.startedAt > respondedAt);
  return {
    calls: during.length,
    rounds: roundsOf(during),
    maxParallel: maxParallelOf(during),
    reads: during.filter(isRead).length,
    writes: during.filter((call) => WRITES.has(call.operation)).length,
    transactions: during.filter((call) => TRANSACTIONS.has(call.operation)).length,
    retries: during.reduce((sum, call) => sum + Math.max(0, call.attempts - 1), 0),
    after: { calls: after.length, rounds: roundsOf(after) },
    trace: traceOf(during),
  };
}
