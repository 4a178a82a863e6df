import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoHolderStore } from '#adapters/dynamodb/holder-repository';
import { DynamoTeamStore } from '#adapters/dynamodb/team-repository';
import { DynamoInvitationStore } from '#adapters/dynamodb/invitation-repository';
import { newHolderAccount } from '#domain/accounts/holder';
import { DynamoAccountDirectory } from '#adapters/dynamodb/account-directory';
import { DynamoAccountStore, PENDING_STARTS } from '#adapters/dynamodb/account-repository';
import { accountKey, auditKey, endUserKey, holderKey, teamKey } from '#adapters/dynamodb/keys';
import { LEDGER_COUNT, PENDING_CHARGES } from '#adapters/dynamodb/ledger-positions';
import { toTaskItem } from '#adapters/dynamodb/task-item';
import { DynamoApiKeyStore } from '#adapters/dynamodb/api-key-repository';
import { DynamoCallbackReceipts } from '#adapters/dynamodb/callback-receipt-repository';
import { DynamoDeliveryStore } from '#adapters/dynamodb/delivery-repository';
import { DynamoEventFeedStore } from '#adapters/dynamodb/event-feed-repository';
import { DynamoIdempotencyStore } from '#adapters/dynamodb/idempotency-repository';
import { DynamoLedgerStore } from '#adapters/dynamodb/ledger-repository';
import { DynamoRateCounter } from '#adapters/dynamodb/rate-counter-repository';
import { DynamoTaskStore } from '#adapters/dynamodb/task-repository';
import { settlePositions } from '#adapters/dynamodb/tasks/start';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { DynamoUploadPublications } from '#adapters/dynamodb/upload-publication-repository';
import { DynamoWebhookStore } from '#adapters/dynamodb/webhook-repository';
import { DynamoAuditLog } from '#adapters/dynamodb/audit/audit-put';
import { DynamoUsageReader } from '#adapters/dynamodb/usage/usage-reader';
import { newAccountId, newLedgerEntryId, newTaskId } from '#domain/shared/ids';
import { chargeEntry, refundEntry } from '#domain/tasks/charges';
import { type LedgerEntry } from '#domain/accounts/ledger';
import type { Task } from '#domain/tasks/task';
import { SILENT_TELEMETRY } from '#domain/shared/telemetry';
import { auditEntry } from '#domain/shared/audit';
import { getUsage } from '#domain/usage/report';
import { describeStoreContract } from '#test-support/store-contract';
import { createTestDb, dropTestDb } from '#test-support/test-db';
import { pollUntil } from '#test-support/wait';

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
      auditLog: new DynamoAuditLog(db),
      usage: new DynamoUsageReader(db),
      holders: new DynamoHolderStore(db),
      team: new DynamoTeamStore(db),
      invitations: new DynamoInvitationStore(db),
      feed: {
        entries: async (partitionId) => (await new DynamoEventFeedStore(db).after(partitionId, 0, 100)).events.map(({ eventId, position }) => ({ eventId, position })),
      },
    },
    close: () => dropTestDb(db),
    // As the holder repository wrote a holder before issue 36: the item alone.
    legacyHolder: async (holder) => {
      await db.doc.send(
        new PutCommand({
          TableName: db.tableName,
          Item: { ...holderKey(holder.holderId), type: 'holder', holder_id: holder.holderId, account_id: holder.accountId, email: holder.email, created_at: holder.createdAt },
        }),
      );
    },
  };
});

// The TEAM counter is the adapter's own (the owner invariant's condition): it equals the rows.
describe('DynamoDB holder store: the TEAM counter', () => {
  it('counts members and owners as the member rows stand, after sign-ins, attaches and racing adoptions', async () => {
    const db = await createTestDb();
    try {
      const holders = new DynamoHolderStore(db);
      const account = newHolderAccount(newAccountId(), 0, '2026-03-01T12:00:00.000Z');
      const owner = { holderId: 'h-owner', accountId: account.accountId, email: 'o@example.com', createdAt: account.createdAt };
      await holders.createWithAccount(owner, account);
      await holders.attach({ ...owner, holderId: 'h-dev', email: 'd@example.com' }, 'developer');
      const legacy = { ...owner, holderId: 'h-legacy', email: 'l@example.com' };
      await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...holderKey(legacy.holderId), type: 'holder', holder_id: legacy.holderId, account_id: legacy.accountId, email: legacy.email, created_at: legacy.createdAt } }));
      await Promise.all([1, 2, 3].map(() => holders.adoptLegacy(legacy, '2026-03-02T00:00:00.000Z')));
      const { Item: team } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: teamKey(account.accountId), ConsistentRead: true }));
      const { Items: rows } = await db.doc.send(
        new QueryCommand({ TableName: db.tableName, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :member)', ExpressionAttributeValues: { ':pk': `ACCOUNT#${account.accountId}`, ':member': 'MEMBER#' }, ConsistentRead: true }),
      );
      expect(rows!.map((row) => [row.holder_id, row.role]).sort()).toEqual([['h-dev', 'developer'], ['h-legacy', 'owner'], ['h-owner', 'owner']]);
      expect(team).toMatchObject({ members: 3, owners: 2 });
      const { Item: holderItem } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: holderKey(legacy.holderId), ConsistentRead: true }));
      expect(holderItem).toMatchObject({ accounts: 1, teams_at: '2026-03-02T00:00:00.000Z' });
    } finally {
      await dropTestDb(db);
    }
  });
});

// Only the adapter can be cut short between a start's transaction and its settle; the sweeper's
// settle (the same call) gives the positions with no gap, and money is exact at every instant.
describe('DynamoDB task store: a start cut short', () => {
  async function accountWith100(db: Awaited<ReturnType<typeof createTestDb>>) {
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
      unsent: true,
      createdAt,
      updatedAt: createdAt,
    } as Omit<Task, 'seq'>;
    return { accountId, task };
  }

  it('between its transaction and its settle: charged and whole; a later settle gives the positions once', async () => {
    const db = await createTestDb();
    try {
      const { accountId, task } = await accountWith100(db);
      const charge = chargeEntry(task);
      const tasks = new DynamoTaskStore(db, SILENT_TELEMETRY);
      expect(await tasks.start({ task, charge })).toEqual({ type: 'started', task: { ...task, seq: 0, usageCounted: true } });
      // The process dies here: no settle. The ledger already sums to the balance.
      const ledger = new DynamoLedgerStore(db);
      expect(await new DynamoAccountStore(db).get(accountId)).toMatchObject({ credits: 75 });
      expect((await ledger.listForAccount(accountId)).reduce((sum, entry) => sum + entry.amount, 0)).toBe(75);
      expect(await tasks.get(accountId, task.taskId)).toEqual({ ...task, seq: 0, usageCounted: true });
      // Two settles race (the request's and the sweeper's): one position each, notes gone.
      const settled = await Promise.all([tasks.settlePositions({ ...task, seq: 0 } as Task), tasks.settlePositions({ ...task, seq: 0 } as Task)]);
      expect(settled.map((one) => one.seq)).toEqual([1, 1]);
      expect(await tasks.get(accountId, task.taskId)).toMatchObject({ seq: 1, phase: 'claimed' });
      expect((await ledger.listPage(accountId, 1, 10)).entries.map((entry) => entry.entryId)).toEqual([charge.entryId, expect.any(String)]);
      expect((await tasks.listPage(accountId, 'video', 1, 10)).tasks.map((listed) => listed.taskId)).toEqual([task.taskId]);
    } finally {
      await dropTestDb(db);
    }
  });

  it("a settle that finds the note gone because the other settle committed between its two reads returns the other's position", async () => {
    // Each settle reads the account's note and the task side by side. Here this one's task read goes
    // first (no position yet) and its account read waits until the other settle has committed (note
    // gone): the other's success, not a task without positions.
    const db = await createTestDb();
    try {
      const { task } = await accountWith100(db);
      const started = await new DynamoTaskStore(db, SILENT_TELEMETRY).start({ task, charge: chargeEntry(task) });
      if (started.type !== 'started') throw new Error('not started');
      let other: Promise<Task> | undefined;
      const racing: Db = {
        ...db,
        doc: {
          send: async (command: unknown) => {
            if (command instanceof GetCommand && (command.input.Key as { sk?: string }).sk === accountKey(task.partitionId).sk && other === undefined) {
              other = settlePositions(db, started.task);
              await other;
            }
            return db.doc.send(command as never);
          },
        } as unknown as Db['doc'],
      };
      expect((await settlePositions(racing, started.task)).seq).toBe(1);
      expect(other).toBeDefined();
      await expect(other).resolves.toMatchObject({ seq: 1 });
    } finally {
      await dropTestDb(db);
    }
  });

  it('a refused start (a transaction that fails) writes nothing, and an item written before the notes gets them once', async () => {
    const db = await createTestDb();
    try {
      const { accountId, task } = await accountWith100(db);
      const tasks = new DynamoTaskStore(db, SILENT_TELEMETRY);
      await db.doc.send(
        new UpdateCommand({
          TableName: db.tableName,
          Key: accountKey(accountId),
          UpdateExpression: 'REMOVE #pending, #charges',
          ExpressionAttributeNames: { '#pending': PENDING_STARTS, '#charges': PENDING_CHARGES },
        }),
      );
      expect(await tasks.start({ task, charge: chargeEntry(task) })).toMatchObject({ type: 'started' });
      expect((await tasks.settlePositions({ ...task, seq: 0 } as Task)).seq).toBe(1);
      const poor = { ...task, taskId: newTaskId('video'), creditsUsed: 80 };
      expect(await tasks.start({ task: poor, charge: chargeEntry(poor) })).toEqual({ type: 'refused', refusals: { credits: { available: 75 } } });
      expect(await tasks.get(accountId, poor.taskId)).toBeUndefined();
    } finally {
      await dropTestDb(db);
    }
  });

  it("cut short before its settle, a start naming an end user is repaired into that end user's history, its note gone", async () => {
    const db = await createTestDb();
    try {
      const { accountId, task: plain } = await accountWith100(db);
      const task = { ...plain, endUser: 'alice' } as Omit<Task, 'seq'>;
      const tasks = new DynamoTaskStore(db, SILENT_TELEMETRY);
      expect(await tasks.start({ task, charge: chargeEntry(task) })).toMatchObject({ type: 'started' });
      // Counted at once, listed once positioned: the total is the end user's item, the page its index.
      expect(await tasks.listEndUserPage(accountId, 'alice', 'video', 1, 10)).toEqual({ tasks: [], total: 1 });
      const now = '2026-03-01T12:05:00.000Z';
      expect(await tasks.repairStart({ ...task, seq: 0 } as Task, { code: 'internal_error', message: 'cut short' }, now)).toBe('refunded');
      const page = await pollUntil(async () => {
        const listed = await tasks.listEndUserPage(accountId, 'alice', 'video', 1, 10);
        return listed.tasks.length > 0 && listed;
      });
      expect(page).toMatchObject({ total: 1, tasks: [{ taskId: task.taskId, seq: 1, status: 'failed', endUser: 'alice' }] });
      const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: endUserKey(accountId, 'alice'), ConsistentRead: true }));
      expect(Object.keys(Item ?? {}).filter((name) => name.startsWith('pending_'))).toEqual([]);
      // A settle after the repair finds nothing to do.
      expect((await tasks.settlePositions({ ...task, seq: 0 } as Task)).seq).toBe(1);
    } finally {
      await dropTestDb(db);
    }
  });

  it('a legacy draft (the start before issue 32) is still repaired: refunded at its reserved position', async () => {
    const db = await createTestDb();
    try {
      const { accountId, task } = await accountWith100(db);
      const draft = { ...task, seq: 0, phase: 'draft' } as Task;
      // As the old start left it: the draft, and the account charged with its notes.
      await db.doc.send(new PutCommand({ TableName: db.tableName, Item: toTaskItem(draft) }));
      await db.doc.send(
        new UpdateCommand({
          TableName: db.tableName,
          Key: accountKey(accountId),
          UpdateExpression: 'SET credits = credits - :price, video_count = :one, #pending.#task = :one, #ledgerCount = #ledgerCount + :one, #charges.#task = #ledgerCount + :one',
          ExpressionAttributeNames: { '#pending': PENDING_STARTS, '#charges': PENDING_CHARGES, '#task': task.taskId, '#ledgerCount': LEDGER_COUNT },
          ExpressionAttributeValues: { ':price': 25, ':one': 1 },
        }),
      );
      const tasks = new DynamoTaskStore(db, SILENT_TELEMETRY);
      expect((await tasks.get(accountId, task.taskId))?.phase).toBe('draft');
      const now = '2026-03-01T12:05:00.000Z';
      expect(await tasks.repairStart(draft, { code: 'internal_error', message: 'cut short' }, now)).toBe('refunded');
      const repaired = { ...task, seq: 1 } as Task;
      const entries = (await new DynamoLedgerStore(db).listForAccount(accountId)).filter((entry) => entry.taskId === task.taskId);
      const withoutId = ({ entryId: _entryId, ...entry }: LedgerEntry) => entry;
      expect(entries.map(withoutId)).toEqual([withoutId(chargeEntry(repaired)), withoutId(refundEntry(repaired, now, { code: 'internal_error' }))]);
      expect(await tasks.get(accountId, task.taskId)).toMatchObject({ seq: 1, status: 'failed', completedAt: now, error: { code: 'internal_error' } });
      expect(await new DynamoAccountStore(db).get(accountId)).toMatchObject({ credits: 100 });
      // Its charge predates the usage roll-ups (no usage_rollup mark), so its refund is not in them either: no negative row.
      const usage = await getUsage(new DynamoUsageReader(db), accountId, { from: '2026-03-01', to: '2026-03-01', groupBy: 'model' }, new Date(now));
      expect(usage.rows).toEqual([]);
    } finally {
      await dropTestDb(db);
    }
  });
});

// Issue 36: what only the table shows of an audit entry: its own partition and its TTL a year on.
describe('DynamoDB audit log: the item', () => {
  it('lives under AUDIT#<account> by its ULID, expires a year after it was written', async () => {
    const db = await createTestDb();
    try {
      const accountId = newAccountId();
      const entry = auditEntry(
        { actor: { type: 'operator', id: 'operator', email: null }, origin: { ip: null, userAgent: 'vidgen-admin/1' } },
        accountId,
        'credits.granted',
        { type: 'account', id: accountId },
        { amount: 5 },
        new Date('2026-03-01T12:00:00.000Z'),
      );
      await new DynamoAuditLog(db).record(entry);
      const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: auditKey(accountId, entry.id) }));
      expect(Item).toMatchObject({ pk: `AUDIT#${accountId}`, sk: entry.id.slice(4), type: 'audit_entry', expires_at: Date.parse('2027-03-01T12:00:00.000Z') / 1000 });
    } finally {
      await dropTestDb(db);
    }
  });
});
