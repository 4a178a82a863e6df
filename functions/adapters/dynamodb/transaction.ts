import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteItem } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Db } from './dynamo-client';

/**
 * One TransactWriteItems whose parts have names (issue 32): a cancelled transaction is read by
 * the name of the part that refused it (`refused.failed('account')`), never by its position, and
 * a part whose condition failed hands back the item as it stood (ALL_OLD), so a refusal can be
 * explained without another read.
 */

/** A named part; `false` and `undefined` leave a part out, so optional parts read inline. */
export type NamedPart<N extends string> = readonly [N, TransactWriteItem] | false | undefined;

interface CancellationReason {
  Code?: string;
  Item?: Record<string, AttributeValue>;
}

/** The transaction was cancelled: which named parts failed their condition, and whether another writer got in the way. */
export class TransactionRefused<N extends string = string> extends Error {
  private readonly reasons: ReadonlyMap<N, CancellationReason>;

  constructor(names: readonly N[], reasons: readonly CancellationReason[], options?: { cause?: unknown }) {
    super(`Transaction cancelled: ${names.map((name, index) => `${name} ${reasons[index]?.Code ?? 'None'}`).join(', ')}.`, options);
    this.name = 'TransactionRefused';
    this.reasons = new Map(names.map((name, index) => [name, reasons[index] ?? {}]));
  }

  /** The part's condition failed. */
  failed(name: N): boolean {
    return this.reasons.get(name)?.Code === 'ConditionalCheckFailed';
  }

  /** The part's item as it stood when its condition failed (undefined when it passed, or had no item). */
  old(name: N): Record<string, unknown> | undefined {
    const item = this.reasons.get(name)?.Item;
    return this.failed(name) && item ? unmarshall(item) : undefined;
  }

  /** Another transaction (or a write) held one of the items: the whole transaction may simply be tried again. */
  get conflict(): boolean {
    return [...this.reasons.values()].some((reason) => reason.Code === 'TransactionConflict');
  }

  /** Some part failed its condition. */
  get anyFailed(): boolean {
    return [...this.reasons.values()].some((reason) => reason.Code === 'ConditionalCheckFailed');
  }
}

/**
 * Sends the parts as one transaction. Every conditional part asks for its item back on failure
 * (`ALL_OLD`). Throws TransactionRefused, naming the parts, when DynamoDB cancels it; any other
 * error as it came.
 */
export async function transact<N extends string>(db: Db, parts: ReadonlyArray<NamedPart<N>>, options: { token?: string } = {}): Promise<void> {
  const present = parts.filter((part): part is readonly [N, TransactWriteItem] => Boolean(part));
  try {
    await db.doc.send(
      new TransactWriteCommand({
        TransactItems: present.map(([, item]) => withOldItem(item)),
        ...(options.token !== undefined && { ClientRequestToken: options.token }),
      }),
    );
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') throw error;
    const reasons = (error as Error & { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
    throw new TransactionRefused(
      present.map(([name]) => name),
      reasons,
      { cause: error },
    );
  }
}

function withOldItem(item: TransactWriteItem): TransactWriteItem {
  const [kind, body] = Object.entries(item)[0] as [keyof TransactWriteItem, { ConditionExpression?: string }];
  if (!body?.ConditionExpression) return item;
  return { [kind]: { ...body, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } } as TransactWriteItem;
}
