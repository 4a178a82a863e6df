import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { buildAppContext, type AppContext } from '#app-context';
import { createAccount } from '#domain/accounts/account-admin';
import { ledgerSum } from '#domain/accounts/ledger';
import { AccountBusyError } from '#domain/shared/errors';
import { cancelTask } from '#domain/tasks/cancel-task';
import { failTask } from '#domain/tasks/lifecycle/endings';
import { startTask, type StartDeps } from '#domain/tasks/start-task';
import { ScriptedProvider } from '#test-support/scripted-provider';
import { createTestDb, dropTestDb, testConfig } from '#test-support/test-db';

/**
 * A refund that meets another transaction on its items (TransactionConflict: on AWS, any two
 * transactions overlapping on the account item) tries again at once at the same ledger position,
 * one call a try: the next try's own conditions say whether the task moved or the count did, so
 * neither a task read nor a count read is spent on the conflict. Under a burst on one account
 * (a loaded machine's DynamoDB Local included) every call saved is a call less in the queue.
 */

let ctx: AppContext;
let deps: StartDeps;

beforeAll(async () => {
  const db = await createTestDb();
  db.doc.destroy();
  ctx = buildAppContext(testConfig(db.tableName), { provider: new ScriptedProvider() });
  deps = { ...ctx.lifecycle, provider: new ScriptedProvider() };
});

afterAll(async () => {
  await dropTestDb(ctx.db);
});

/**
 * Cancels the next `times` refund transactions as a concurrent transaction would, and logs every
 * command sent meanwhile (its name, and `refund` for the refund's transaction), in order.
 */
function conflictOnRefund(times: number): { sent: string[]; remove: () => void } {
  const name = `conflict-${Math.random()}`;
  const sent: string[] = [];
  let left = times;
  ctx.db.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const refund = context.commandName === 'TransactWriteItemsCommand' && JSON.stringify(args.input).includes('"refund"');
      sent.push(refund ? 'refund' : String(context.commandName));
      if (!refund || left === 0) return next(args);
      left -= 1;
      const parts = (args.input as { TransactItems: unknown[] }).TransactItems;
      throw new TransactionCanceledException({
        message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
        $metadata: {},
        CancellationReasons: parts.map((_, index) => ({ Code: index === 1 ? 'TransactionConflict' : 'None' })),
      });
    },
    { step: 'initialize', name },
  );
  return { sent, remove: () => ctx.db.doc.middlewareStack.remove(name) };
}

it('tries again after a conflict with one call a try: no task read, no count read', async () => {
  const { account } = await createAccount(ctx, { credits: 100 });
  const task = await startTask(deps, account.accountId, {
    kind: 'video',
    params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: 'a lighthouse at dusk', aspectRatio: '16:9', duration: 5, resolution: '720p' },
  });
  const injected = conflictOnRefund(3);
  try {
    await failTask(deps, task, { code: 'upstream_error', message: 'no' });
  } finally {
    injected.remove();
  }
  // 3 conflicts and the try that wins, one after the other: nothing read in between.
  const first = injected.sent.indexOf('refund');
  expect(injected.sent.slice(first, injected.sent.lastIndexOf('refund') + 1)).toEqual(['refund', 'refund', 'refund', 'refund']);
  const [account2, entries] = await Promise.all([ctx.accounts.get(account.accountId), ctx.ledger.listForAccount(account.accountId)]);
  expect(account2!.credits).toBe(100);
  expect(ledgerSum(entries)).toBe(100);
  expect(entries.map((entry) => entry.kind).sort()).toEqual(['charge', 'grant', 'refund']);
});

it('past the retry bound, a cancel is refused as AccountBusy (429), the task unchanged and nothing refunded', async () => {
  const { account } = await createAccount(ctx, { credits: 100 });
  const task = await startTask(deps, account.accountId, {
    kind: 'video',
    params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: 'a lighthouse at dusk', aspectRatio: '16:9', duration: 5, resolution: '720p' },
  });
  // Every refund meets another transaction: a burst of starts that never lets up.
  const injected = conflictOnRefund(Number.POSITIVE_INFINITY);
  try {
    await expect(cancelTask(deps, account.accountId, 'video', task.taskId)).rejects.toBeInstanceOf(AccountBusyError);
  } finally {
    injected.remove();
  }
  const [stored, account2, entries] = await Promise.all([
    ctx.tasks.get(account.accountId, task.taskId),
    ctx.accounts.get(account.accountId),
    ctx.ledger.listForAccount(account.accountId),
  ]);
  expect(stored!.status).toBe('processing');
  expect(account2!.credits).toBe(100 - task.creditsUsed);
  expect(ledgerSum(entries)).toBe(account2!.credits);
  // Once the account is free, the same cancel goes through, refunded once.
  expect((await cancelTask(deps, account.accountId, 'video', task.taskId)).status).toBe('failed');
  expect((await ctx.accounts.get(account.accountId))!.credits).toBe(100);
});
