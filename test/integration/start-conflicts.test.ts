import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '#bin/local-stack/stack';
import { grantCredits } from '#domain/accounts/account-admin';
import { ledgerSum } from '#domain/accounts/ledger';
import { newAccount } from '#test-support/accounts';
import { emulateTransactionConflicts, type ConflictEmulator } from '#test-support/aws-conflicts';
import { post, startTestApi, type ApiReply, type Json } from '#test-support/local-api';

/**
 * Money stays exact when starts, cancels and grants race on ONE account with DynamoDB's
 * transaction conflicts emulated (design 32, 5.4; test/support/aws-conflicts.ts): on AWS, every
 * start is a transaction on the account item (then its settle), and so are refunds and grants, so
 * they cancel each other (TransactionConflict) where DynamoDB Local would serialise them. Over
 * real HTTP on the local stack, the emulator on the client its handlers share.
 */
jest.setTimeout(120_000);

const STARTS = 50;
const CANCELS = 10;
const GRANTS = 5;
const GRANT = 7;
const CREDITS = 10_000;

let stack: LocalStack;
let emulator: ConflictEmulator;

beforeAll(async () => {
  // The simulated jobs outlast the test: every task stays processing until cancelled.
  stack = await startTestApi({ SIM_DELAY_SECONDS: '3600', PROVIDER: 'simulated' });
  emulator = emulateTransactionConflicts(stack.context.db);
});

afterAll(async () => {
  emulator();
  await stack.stop();
});

it('50 starts, 10 cancels and grants racing on one account: exact balance, one charge per task, one refund per cancel, no 500', async () => {
  const { accountId, key } = await newAccount(stack, { credits: CREDITS });
  const cancels: ApiReply<Json>[] = [];
  const start = async (index: number) => {
    const reply = await post(stack, key, '/generate', { prompt: `race ${index}`, duration: 3 });
    // The first ten cancel their task at once, while the other starts are still racing.
    if (index < CANCELS && reply.status === 200) cancels.push(await post(stack, key, `/videos/${reply.body.data!.video_id}/cancel`));
    return reply;
  };
  const [starts, grantResults] = await Promise.all([
    Promise.all(Array.from({ length: STARTS }, (_, index) => start(index))),
    Promise.allSettled(Array.from({ length: GRANTS }, () => grantCredits(stack.context, accountId, GRANT, 'race'))),
  ]);
  // A grant past the retry bound writes nothing and says so (the operator runs it again).
  const granted = grantResults.filter((result) => result.status === 'fulfilled').length;
  for (const result of grantResults) if (result.status === 'rejected') expect(result.reason).toMatchObject({ name: 'RetriesExhaustedError' });

  // Every start either started or was refused cleanly (AccountBusy past the retry bound).
  const statuses = starts.map((reply) => reply.status);
  expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
  for (const reply of starts.filter((r) => r.status === 429)) expect(reply.body.error).toMatchObject({ code: 'rate_limit_exceeded' });
  const started = starts.filter((reply) => reply.status === 200).map((reply) => reply.body.data as Json);
  // Every start that answered 200 among the first ten was cancelled, or refused cleanly likewise
  // (its refund past the retry bound: 429, the task unchanged).
  expect(cancels).toHaveLength(starts.slice(0, CANCELS).filter((reply) => reply.status === 200).length);
  expect(cancels.map((reply) => reply.status).filter((status) => status !== 200 && status !== 429)).toEqual([]);
  const cancelled = new Set(cancels.filter((reply) => reply.status === 200).map((reply) => reply.body.data!.video_id as string));
  for (const reply of cancels.filter((r) => r.status === 200)) expect(reply.body.data).toMatchObject({ status: 'failed' });

  // The ledger, entry by entry.
  const entries = await stack.context.ledger.listForAccount(accountId);
  const charges = entries.filter((entry) => entry.kind === 'charge');
  const refunds = entries.filter((entry) => entry.kind === 'refund');
  const grants = entries.filter((entry) => entry.kind === 'grant');
  const ids = started.map((task) => task.video_id as string);
  // One charge per started task, none twice, none for a start refused.
  expect(charges.map((entry) => entry.taskId).sort()).toEqual([...ids].sort());
  // One refund per cancelled task, of its charge; none for the others.
  expect(refunds.map((entry) => entry.taskId).sort()).toEqual([...cancelled].sort());
  for (const refund of refunds) expect(refund.amount).toBe(-charges.find((charge) => charge.taskId === refund.taskId)!.amount);
  // The opening grant and the racing ones.
  expect(grants.map((entry) => entry.amount).sort((a, b) => a - b)).toEqual([...Array(granted).fill(GRANT), CREDITS].sort((a, b) => a - b));

  // The balance is the ledger's sum, and what the answers add up to.
  const db = stack.context.db;
  const { Item: account } = await db.doc.send(
    new GetCommand({ TableName: db.tableName, Key: { pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' }, ConsistentRead: true }),
  );
  const charged = charges.reduce((sum, entry) => sum - entry.amount, 0);
  const refunded = refunds.reduce((sum, entry) => sum + entry.amount, 0);
  expect(account!.credits).toBe(ledgerSum(entries));
  expect(account!.credits).toBe(CREDITS + granted * GRANT - charged + refunded);
  // Every start settled: no note left, positions 1..n on the tasks, one task item per 200.
  expect(account!.pending_starts).toEqual({});
  const { Items: tasks } = await db.doc.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :task)',
      ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':task': 'TASK#' },
      ConsistentRead: true,
    }),
  );
  expect((tasks ?? []).map((task) => task.seq as number).sort((a, b) => a - b)).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));

  // It proves something only if DynamoDB's rule bit.
  const { transactions, writes } = emulator.raised;
  console.log(
    `start-conflicts: ${started.length} started, ${STARTS - started.length} refused 429, ${cancelled.size} cancelled (${cancels.length - cancelled.size} refused 429), ${granted} of ${GRANTS} grants; ` +
      `conflicts raised: ${transactions} transactions cancelled, ${writes} single writes refused`,
  );
  expect(transactions + writes).toBeGreaterThan(0);
});
