import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoAccountDirectory } from '#adapters/dynamodb/account-directory';
import { DynamoAccountStore } from '#adapters/dynamodb/account-repository';
import { DynamoApiKeyStore } from '#adapters/dynamodb/api-key-repository';
import { DynamoCallbackReceipts } from '#adapters/dynamodb/callback-receipt-repository';
import { DynamoDeliveryStore } from '#adapters/dynamodb/delivery-repository';
import { DynamoIdempotencyStore } from '#adapters/dynamodb/idempotency-repository';
import { DynamoLedgerStore } from '#adapters/dynamodb/ledger-repository';
import { DynamoRateCounter } from '#adapters/dynamodb/rate-counter-repository';
import { DynamoTaskStore } from '#adapters/dynamodb/task-repository';
import { DynamoUploadPublications } from '#adapters/dynamodb/upload-publication-repository';
import { DynamoWebhookStore } from '#adapters/dynamodb/webhook-repository';
import { newAccountId, newLedgerEntryId, newTaskId } from '#domain/shared/ids';
import { chargeEntry, refundEntry } from '#domain/tasks/charges';
import { type LedgerEntry } from '#domain/accounts/ledger';
import type { Task } from '#domain/tasks/task';
import { SILENT_TELEMETRY } from '#domain/shared/telemetry';
import { describeStoreContract } from '#test-support/store-contract';
import { createTestDb, dropTestDb } from '#test-support/test-db';

// The suite the in-memory fakes pass (test/unit/memory-stores.test.ts), here against the
// DynamoDB adapters on DynamoDB Local: a fresh table per test, since the sweeper's list spans
// the whole table.
describeStoreContract('DynamoDB stores', async () => {
  const db = await createTestDb();
  return {
    stores: {
      accounts: new DynamoAccountStore(db),
      accountDirectory: new DynamoAccountDirectory(db),
      apiKeys: new DynamoApiKeyStore(db),
      ledger: new DynamoLedgerStore(db),
      tasks: new DynamoTaskStore(db, SILENT_TELEMETRY),
      idempotency: new DynamoIdempotencyStore(db),
      rates: new DynamoRateCounter(db),
      callbackReceipts: new DynamoCallbackReceipts(db),
      webhooks: new DynamoWebhookStore(db),
      deliveries: new DynamoDeliveryStore(db),
      uploadPublications: new DynamoUploadPublications(db),
    },
    close: () => dropTestDb(db),
  };
});

// Only the adapter can be cut short between the steps of a start; its repair writes the same
// fail-and-refund transaction as every failure, with the domain's charge and refund entries.
describe('DynamoDB task store: the repair of a start cut short', () => {
  it("writes the domain's charge and refund entries, at the task's reserved position", async () => {
    const db = await createTestDb();
    try {
      const accountId = newAccountId();
      const createdAt = '2026-03-01T12:00:00.000Z';
      await new DynamoAccountStore(db).create(
        { accountId, credits: 100, paidAccess: false, subscriptionStatus: 'none', taskCounts: { video: 0, image: 0 }, createdAt, updatedAt: createdAt },
        { entryId: newLedgerEntryId(), accountId, kind: 'grant', amount: 100, reason: 'grant', createdAt },
      );
      const task = {
        kind: 'video',
        params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: 'p', aspectRatio: '16:9', duration: 5, resolution: '720p' },
        taskId: newTaskId('video'),
        partitionId: accountId,
        phase: 'claimed',
        status: 'processing',
        creditsUsed: 25,
        progress: 0,
        copyAttempts: 0,
        createdAt,
        updatedAt: createdAt,
      } as Omit<Task, 'seq'>;
      // The process dies just after the charge: the task never gets its position.
      const doc = new Proxy(db.doc, {
        get: (target, property, receiver) =>
          property !== 'send'
            ? Reflect.get(target, property, receiver)
            : (command: unknown) =>
                command instanceof TransactWriteCommand && JSON.stringify(command.input).includes('SET seq = :seq, lsi1sk = :position')
                  ? Promise.reject(new Error('crashed'))
                  : target.send(command as never),
      });
      const crashing = new DynamoTaskStore({ doc, tableName: db.tableName }, SILENT_TELEMETRY);
      await expect(crashing.create({ task, charge: chargeEntry(task), expectedCount: 0 })).rejects.toThrow('crashed');

      const tasks = new DynamoTaskStore(db, SILENT_TELEMETRY);
      const now = '2026-03-01T12:05:00.000Z';
      expect(await tasks.repairStart({ ...task, seq: 0 } as Task, { code: 'internal_error', message: 'cut short' }, now)).toBe('refunded');
      const repaired = { ...task, seq: 1 } as Task;
      const entries = (await new DynamoLedgerStore(db).listForAccount(accountId)).filter((entry) => entry.taskId === task.taskId);
      const withoutId = ({ entryId: _entryId, ...entry }: LedgerEntry) => entry;
      expect(entries.map(withoutId)).toEqual([withoutId(chargeEntry(repaired)), withoutId(refundEntry(repaired, now, { code: 'internal_error' }))]);
      expect(await tasks.get(accountId, task.taskId)).toMatchObject({ seq: 1, status: 'failed', completedAt: now, error: { code: 'internal_error' } });
      expect(await new DynamoAccountStore(db).get(accountId)).toMatchObject({ credits: 100 });
    } finally {
      await dropTestDb(db);
    }
  });
});
