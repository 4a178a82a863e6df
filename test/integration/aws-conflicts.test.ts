import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { isConflict } from '#adapters/dynamodb/retry';
import { transact, TransactionRefused } from '#adapters/dynamodb/transaction';
import { emulateTransactionConflicts, type ConflictEmulator } from '#test-support/aws-conflicts';
import { createTestDb, dropTestDb } from '#test-support/test-db';

/**
 * The emulator of DynamoDB's transaction conflicts (test/support/aws-conflicts.ts) on DynamoDB
 * Local: a transaction held in flight (paused below the emulator) makes the rule observable
 * without a race.
 */

let db: Db;
let emulator: ConflictEmulator;
/** Transactions whose input names this marker wait for `release` before going to DynamoDB. */
let release: () => void = () => undefined;
/** Called when a paused transaction has reached its pause. */
let reached: () => void = () => undefined;
const PAUSE = 'paused-transaction';

beforeAll(async () => {
  db = await createTestDb();
  db.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand' && JSON.stringify(args.input).includes(PAUSE)) {
        await new Promise<void>((resolve) => {
          release = resolve;
          reached();
        });
      }
      return next(args);
    },
    // Below the emulator (initialize): the paused transaction holds its keys while it waits.
    { step: 'build', name: 'pause' },
  );
});

beforeEach(() => {
  emulator = emulateTransactionConflicts(db);
});

afterEach(() => emulator());

afterAll(async () => {
  await dropTestDb(db);
});

const key = (pk: string, sk = 'ITEM') => ({ pk, sk });
const update = (pk: string, marker = 'x') => ({
  Update: { TableName: db.tableName, Key: key(pk), UpdateExpression: 'ADD n :one SET marker = :marker', ExpressionAttributeValues: { ':one': 1, ':marker': marker } },
});
const put = (pk: string, sk: string) => ({ Put: { TableName: db.tableName, Item: { ...key(pk, sk), n: 1 } } });

/** Starts a transaction on `pks` that waits in flight (its keys held) until `release()`; resolves once it holds them. */
async function inFlight(pks: string[]): Promise<{ sent: Promise<unknown> }> {
  const atPause = new Promise<void>((resolve) => (reached = resolve));
  const sent = db.doc.send(new TransactWriteCommand({ TransactItems: pks.map((pk) => update(pk, PAUSE)) }));
  await atPause;
  // Wrapped: an async function returning the promise itself would wait for it.
  return { sent };
}

async function n(pk: string): Promise<number | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: key(pk), ConsistentRead: true }));
  return Item?.n as number | undefined;
}

it('cancels a transaction that meets one in flight on an item: TransactionConflict at that part, None elsewhere', async () => {
  const { sent: first } = await inFlight(['A1', 'B1']);
  const error = await db.doc
    .send(new TransactWriteCommand({ TransactItems: [put('C1', 'ITEM'), update('B1'), put('C1', 'OTHER')] }))
    .then(() => undefined, (thrown: unknown) => thrown);
  release();
  await first;
  expect(error).toMatchObject({
    name: 'TransactionCanceledException',
    CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }, { Code: 'None' }],
    $metadata: { httpStatusCode: 400 },
  });
  expect(isConflict(error)).toBe(true);
  // The cancelled one wrote nothing; the first did.
  expect(await n('C1')).toBeUndefined();
  expect(await Promise.all([n('A1'), n('B1')])).toEqual([1, 1]);
  expect(emulator.raised).toEqual({ transactions: 1, writes: 0 });
});

it('reaches transact() as DynamoDB would: a TransactionRefused that says conflict, with no part failed', async () => {
  const { sent: first } = await inFlight(['A2']);
  const refused = await transact(db, [
    ['other', update('B2')],
    ['account', update('A2')],
  ]).then(() => undefined, (thrown: unknown) => thrown);
  release();
  await first;
  expect(refused).toBeInstanceOf(TransactionRefused);
  expect((refused as TransactionRefused).conflict).toBe(true);
  expect((refused as TransactionRefused).anyFailed).toBe(false);
  // Once the first has ended, the same transaction passes.
  await transact(db, [
    ['other', update('B2')],
    ['account', update('A2')],
  ]);
  expect(await Promise.all([n('A2'), n('B2')])).toEqual([2, 1]);
});

it('refuses a single write on an item a transaction holds with TransactionConflictException; reads pass', async () => {
  const { sent: first } = await inFlight(['A3']);
  const single = await db.doc
    .send(new UpdateCommand({ TableName: db.tableName, Key: key('A3'), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }))
    .then(() => undefined, (thrown: unknown) => thrown);
  const putError = await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...key('A3'), n: 9 } })).then(() => undefined, (thrown: unknown) => thrown);
  // A read, and a write on another item of the same partition, pass.
  await db.doc.send(new GetCommand({ TableName: db.tableName, Key: key('A3') }));
  await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...key('A3', 'OTHER'), n: 1 } }));
  release();
  await first;
  expect(single).toMatchObject({ name: 'TransactionConflictException', $metadata: { httpStatusCode: 400 } });
  expect(putError).toMatchObject({ name: 'TransactionConflictException' });
  expect(isConflict(single)).toBe(true);
  expect(await n('A3')).toBe(1);
  expect(emulator.raised).toEqual({ transactions: 0, writes: 2 });
});

it('lets transactions on disjoint items both pass, and holds nothing once a transaction has ended', async () => {
  const { sent: first } = await inFlight(['A4']);
  await db.doc.send(new TransactWriteCommand({ TransactItems: [update('B4'), put('A4', 'OTHER')] }));
  release();
  await first;
  // A4 is free again: a single write and a transaction on it pass.
  await db.doc.send(new UpdateCommand({ TableName: db.tableName, Key: key('A4'), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }));
  await db.doc.send(new TransactWriteCommand({ TransactItems: [update('A4')] }));
  expect(await Promise.all([n('A4'), n('B4')])).toEqual([3, 1]);
  expect(emulator.raised).toEqual({ transactions: 0, writes: 0 });
});

it('holds nothing after a transaction DynamoDB refused', async () => {
  const refused = await db.doc
    .send(
      new TransactWriteCommand({
        TransactItems: [{ ConditionCheck: { TableName: db.tableName, Key: key('A5'), ConditionExpression: 'attribute_exists(pk)' } }],
      }),
    )
    .then(() => undefined, (thrown: unknown) => thrown);
  expect(refused).toMatchObject({ name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] });
  await db.doc.send(new TransactWriteCommand({ TransactItems: [update('A5')] }));
  expect(await n('A5')).toBe(1);
});

it('is gone once removed: overlapping transactions then both pass (DynamoDB Local serialises them)', async () => {
  emulator();
  const { sent: first } = await inFlight(['A6']);
  const second = db.doc.send(new TransactWriteCommand({ TransactItems: [update('A6')] }));
  release();
  await Promise.all([first, second]);
  expect(await n('A6')).toBe(2);
  emulator = emulateTransactionConflicts(db);
});
