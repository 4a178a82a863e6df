import { TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { TABLE_DEFINITION } from '#adapters/dynamodb/table-definition';

/**
 * DynamoDB's transaction conflicts, which DynamoDB Local never reports (it locks per item and
 * serialises), emulated on a client (design 32, 5.4 `--aws-conflicts`). The rule, from "Amazon
 * DynamoDB Transactions: How it works", section "Transaction conflict handling in DynamoDB"
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling):
 *   - a PutItem, UpdateItem or DeleteItem on an item conflicts with an ongoing TransactWriteItems
 *     that includes the item: it fails with TransactionConflictException;
 *   - an item of a TransactWriteItems that is part of another ongoing TransactWriteItems: the
 *     transaction is cancelled, TransactionCanceledException with a `TransactionConflict`
 *     cancellation reason at that part.
 * So while a TransactWriteItems is in flight (its `next`), the keys of its items are held. Not
 * emulated: TransactGetItems meeting a write (reads pass), BatchWriteItem, and a write in flight
 * cancelling a transaction (the doc lists only the two cases above for writes).
 */
export interface ConflictEmulator {
  /** Takes the middleware off the client. */
  (): void;
  /** Conflicts raised so far: transactions cancelled, single writes refused. */
  readonly raised: { transactions: number; writes: number };
}

const SINGLE_WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand']);

/** A key value as text, whether the input is the document client's (plain) or marshalled ({ S: '...' }). */
function keyText(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/** Table and primary key: one item. */
function itemKey(tableName: unknown, keyOrItem: Record<string, unknown> | undefined): string {
  const { partitionKey, sortKey } = TABLE_DEFINITION;
  return `${String(tableName)}|${keyText(keyOrItem?.[partitionKey])}|${keyText(keyOrItem?.[sortKey])}`;
}

/** Put names its item; Update, Delete and ConditionCheck their Key. */
function partKey(part: Record<string, Record<string, any>>): string {
  const [kind, body] = Object.entries(part)[0]!;
  return itemKey(body.TableName, kind === 'Put' ? body.Item : body.Key);
}

/** Attempt figures as the SDK's own errors carry them: a 400 answered on the first attempt. */
const metadata = () => ({ httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 });

export function emulateTransactionConflicts(db: Db): ConflictEmulator {
  const held = new Set<string>();
  const raised = { transactions: 0, writes: 0 };
  const name = `aws-conflicts-${Math.random()}`;
  db.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, any>;
      if (context.commandName === 'TransactWriteItemsCommand') {
        const keys = (input.TransactItems as Record<string, Record<string, any>>[]).map(partKey);
        if (keys.some((key) => held.has(key))) {
          raised.transactions += 1;
          const codes = keys.map((key) => (held.has(key) ? 'TransactionConflict' : 'None'));
          throw new TransactionCanceledException({
            message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
            $metadata: metadata(),
            CancellationReasons: codes.map((Code) => ({ Code })),
          });
        }
        // Checked and taken with no await between: no other call runs in this window.
        for (const key of keys) held.add(key);
        try {
          return await next(args);
        } finally {
          for (const key of keys) held.delete(key);
        }
      }
      if (SINGLE_WRITES.has(String(context.commandName)) && held.has(itemKey(input.TableName, input.Key ?? input.Item))) {
        raised.writes += 1;
        throw new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata: metadata() });
      }
      return next(args);
    },
    // At `initialize`, above the SDK's retry middleware (finalizeRequest): the SDK never retries
    // these, as on AWS (neither is a throttling or transient error), and the hold spans the whole
    // call. Below the client's own `busyOrAsIs` (priority high), so the error travels up exactly
    // as one the service answered would; the adapter sees the SDK's own exception classes.
    { step: 'initialize', priority: 'low', name },
  );
  const remove = () => {
    db.doc.middlewareStack.remove(name);
  };
  return Object.assign(remove, { raised });
}
