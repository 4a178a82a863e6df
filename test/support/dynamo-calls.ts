import type { Db } from '#adapters/dynamodb/dynamo-client';

/** One DynamoDB call as the client sent it: the operation, and the key prefix of the item it names (if any). */
export interface DynamoCall {
  operation: string;
  /** The item's partition key up to its first '#' (RATE, ACCOUNT, ...), for Get/Put/Update/Delete. */
  keyPrefix?: string;
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
export const isRead = (call: DynamoCall) => READS.has(call.operation);

/**
 * Records every call a table client sends while `during` runs (a middleware on the client the
 * handlers share): how benchmarks and tests count what an endpoint reads.
 */
export async function recordDynamoCalls(db: Db, during: () => Promise<unknown>): Promise<DynamoCall[]> {
  const calls: DynamoCall[] = [];
  const name = `record-calls-${Math.random()}`;
  db.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      const input = args.input as { Key?: Record<string, unknown>; Item?: Record<string, unknown> };
      const pk = (input.Key ?? input.Item)?.pk;
      const keyPrefix = typeof pk === 'string' ? pk.split('#')[0] : undefined;
      calls.push({ operation, ...(keyPrefix !== undefined && { keyPrefix }) });
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await during();
  } finally {
    db.doc.middlewareStack.remove(name);
  }
  return calls;
}
