import type { Account } from '#domain/accounts/account';
import type { ApiKeyRecord } from '#domain/accounts/api-key';
import { NotFoundError } from '#domain/shared/errors';
import { newAccountId, newLedgerEntryId, newTaskId } from '#domain/shared/ids';
import { grantAudit, ledgerSum, type LedgerEntry } from '#domain/accounts/ledger';
import { accessChangeAudit } from '#domain/accounts/account-admin';
import { retentionChangeAudit } from '#domain/accounts/get-account';
import { refundEntry } from '#domain/tasks/charges';
import type { AccountDirectory, AccountStore, ApiKeyChanges, ApiKeyStore, HolderStore, Invitation, InvitationStore, LedgerStore, TeamStore } from '#domain/accounts/ports';
import { changeMemberRole, removeMember } from '#domain/accounts/members';
import { LastOwnerError } from '#domain/accounts/roles';
import { HolderExistsError, newHolderAccount, type Holder } from '#domain/accounts/holder';
import type { Role } from '#domain/accounts/roles';
import { keyChangeAudit, keyRevokeAudit } from '#domain/accounts/key-management';
import type { CallbackReceipts, IdempotencyClaim, IdempotencyStore, InFlightList, StartResult, StartWrite, TaskStore } from '#domain/tasks/ports';
import type { UploadPublications } from '#domain/uploads/ports';
import { windowAt } from '#domain/accounts/rate-limit';
import { type RateCounter } from '#domain/shared/counter';
import type { Task, TaskKind } from '#domain/tasks/task';
import type { MonthlyKeySpend } from '#domain/accounts/spending-key';
import { move, TRANSITIONS, type TaskEvent, type TaskPatch } from '#domain/tasks/transitions';
import { PHASE_NAMES, type Phase } from '#domain/tasks/phase';
import { SWEPT_LISTS } from '#domain/tasks/sweep-table';
import type { AttemptOutcome, Delivery, DeliveryMessage } from '#domain/webhooks/deliveries';
import type { DeliveryStore } from '#domain/webhooks/ports';
import type { WebhookEndpoint } from '#domain/webhooks/webhooks';
import type { WebhookStore } from '#domain/webhooks/ports';
import { auditEntry, OPERATOR_STAMP, type AuditEntry, type AuditStamp } from '#domain/shared/audit';
import { pollUntil } from './wait';
import type { AuditLog } from '#domain/shared/ports';
import type { UsageReader } from '#domain/usage/ports';
import { getUsage, USAGE_GROUPINGS } from '#domain/usage/report';
import { usageOracle } from './usage-oracle';

/**
 * The behaviour the use cases rely on from the store ports, as one suite run against every
 * implementation: the DynamoDB adapters on DynamoDB Local (test/integration) and the
 * in-memory fakes (test/unit), so a fast use-case test can trust its fake.
 */
export interface StoreSet {
  accounts: AccountStore;
  accountDirectory: AccountDirectory;
  apiKeys: ApiKeyStore;
  ledger: LedgerStore;
  tasks: TaskStore;
  idempotency: IdempotencyStore;
  rates: RateCounter;
  callbackReceipts: CallbackReceipts;
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  uploadPublications: UploadPublications;
  auditLog: AuditLog;
  usage: UsageReader;
  holders: HolderStore;
  team: TeamStore;
  invitations: InvitationStore;
  /** The events feed as the announce writes it (TaskPatch.feedEntry): each entry's id and position, in order. */
  feed: { entries(partitionId: string): Promise<{ eventId: string; position: number }[]> };
}

/**
 * Opens an empty set of stores (a fresh table) for one test. `legacyHolder` records a holder as
 * code from before teams did (no memberships), which no port may write any more.
 */
export type OpenStores = () => Promise<{ stores: StoreSet; close(): Promise<void>; legacyHolder(holder: Holder): Promise<void> }>;

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

export function describeStoreContract(name: string, open: OpenStores): void {
  describe(`${name}: store contract`, () => {
    let stores: StoreSet;
    let close: () => Promise<void>;
    let legacyHolder: (holder: Holder) => Promise<void>;

    beforeEach(async () => {
      ({ stores, close, legacyHolder } = await open());
    });
    afterEach(async () => {
      await close();
    });

    async function newAccount(credits: number, overrides: Partial<Account> = {}): Promise<string> {
      const account: Account = {
        accountId: newAccountId(),
        credits,
        paidAccess: false,
        subscriptionStatus: 'none',
        taskCounts: { video: 0, image: 0 },
        createdAt: at(0),
        updatedAt: at(0),
        ...overrides,
      };
      await stores.accounts.create(account, credits > 0 ? grantOf(account.accountId, credits) : undefined);
      return account.accountId;
    }

    /** An access change as the admin CLI makes one: with its `account.access_changed` entry. */
    const updateAccessAudited = (accountId: string, changes: Parameters<AccountStore['updateAccess']>[1], now: string) =>
      stores.accounts.updateAccess(accountId, changes, now, accessChangeAudit(OPERATOR_STAMP, new Date(now)));
    /** A grant as the admin CLI makes one: with its `credits.granted` entry. */
    const grantAudited = (entry: LedgerEntry) => stores.accounts.grant(entry, grantAudit(OPERATOR_STAMP, 'credits.granted', entry));

    async function money(accountId: string) {
      const account = await stores.accounts.get(accountId);
      const entries = await stores.ledger.listForAccount(accountId);
      return { balance: account!.credits, ledger: ledgerSum(entries), entries };
    }

    /** A start request for `price` credits, as startTask builds it. */
    function startOf(
      accountId: string,
      options: {
        price?: number;
        kind?: TaskKind;
        createdAt?: string;
        claim?: string;
        paidAccess?: true;
        unsent?: true;
        keySpend?: MonthlyKeySpend;
        endUser?: string;
      } = {},
    ): StartWrite {
      const kind = options.kind ?? 'video';
      const price = options.price ?? 25;
      const createdAt = options.createdAt ?? at(0);
      const taskId = newTaskId(kind);
      const params =
        kind === 'video'
          ? { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: `p ${taskId}`, aspectRatio: '16:9', duration: 5, resolution: '720p' }
          : { model: 'image-2', prompt: `p ${taskId}`, resolution: '1k', aspectRatio: '1:1', outputFormat: 'png' };
      return {
        task: {
          kind,
          params,
          taskId,
          partitionId: accountId,
          // Without the unsent mark, a start as the code before the mark wrote it: a create may have gone out.
          phase: options.unsent ? 'claimed' : 'sending',
          status: 'processing',
          creditsUsed: price,
          progress: 0,
          copyAttempts: 0,
          ...(options.unsent && { unsent: true }),
          ...(options.endUser !== undefined && { endUser: options.endUser }),
          ...(options.keySpend && {
            chargedTo: { keyId: options.keySpend.keyId, month: options.keySpend.month, ...(options.keySpend.endUser !== undefined && { endUser: options.keySpend.endUser }) },
          }),
          createdAt,
          updatedAt: createdAt,
        } as Omit<Task, 'seq'>,
        charge: { entryId: newLedgerEntryId(), accountId, kind: 'charge', amount: -price, reason: 'test', taskId, createdAt },
        ...(options.paidAccess && { paidAccess: true }),
        ...(options.claim && { idempotency: claimOf(accountId, options.claim, taskId) }),
        ...(options.keySpend && { keySpend: options.keySpend }),
      };
    }

    /** A start as the domain runs it: the transaction, then its positions settled. */
    async function settledStart(write: StartWrite): Promise<StartResult> {
      const result = await stores.tasks.start(write);
      return result.type === 'started' ? { type: 'started', task: await stores.tasks.settlePositions(result.task) } : result;
    }

    async function started(accountId: string, options: Parameters<typeof startOf>[1] = {}): Promise<Task> {
      const result = await settledStart(startOf(accountId, options));
      if (result.type !== 'started') throw new Error(`expected a task, got ${JSON.stringify(result.refusals)}`);
      return result.task;
    }

    type Code = 'upstream_error' | 'internal_error' | 'canceled' | 'timeout';
    const error = (code: Code = 'upstream_error') => ({ code, message: code });
    /** A failure event's patch, as the domain builds it (lifecycle/endings.ts). */
    const ending = (task: Task, ms: number, code?: Code, progress = 10): TaskPatch => ({
      at: at(ms),
      set: { error: error(code), completedAt: at(ms), progress },
      remove: ['pendingOutputs'],
      refund: refundEntry(task, at(ms), error(code)),
    });
    const winners = (results: (Task | undefined)[]) => results.filter((result) => result !== undefined);
    const acceptJ1: TaskPatch = { at: at(1), set: { provider: { name: 'p', jobId: 'j1' }, lastCheckedAt: at(1) }, remove: ['queuedAt'], guard: { jobId: 'j1' } };
    /** Walks a started task into `phase` by the table's own events. */
    async function walk(task: Task, phase: Phase): Promise<Task> {
      const path = (<Record<Phase, [TaskEvent, TaskPatch][]>>{
        draft: [],
        claimed: [],
        queued: [['queue', { at: at(1), set: { queuedAt: at(1), submitAttempts: 0 }, guard: { sentAt: task.sentAt ?? null } }]],
        sending: task.phase === 'sending' ? [] : [['send', { at: at(1), set: { sentAt: at(1) } }]],
        running: [['accept', acceptJ1]],
        storing: [
          ['accept', acceptJ1],
          ['outputs', { at: at(2), set: { pendingOutputs: ['https://p/1'] } }],
        ],
        completed: [
          ['accept', acceptJ1],
          ['outputs', { at: at(2), set: { pendingOutputs: ['https://p/1'] } }],
          ['complete', { at: at(3), set: { outputUrls: ['https://ours/1'], completedAt: at(3) }, remove: ['pendingOutputs', 'copyClaimedAt'] }],
        ],
        deleting: [
          ['accept', acceptJ1],
          ['outputs', { at: at(2), set: { pendingOutputs: ['https://p/1'] } }],
          ['complete', { at: at(3), set: { outputUrls: ['https://ours/1'], completedAt: at(3) }, remove: ['pendingOutputs', 'copyClaimedAt'] }],
          ['announce', { announced: true }],
          ['deleteOutputs', { at: at(4), set: { outputDeletedAt: at(4) }, guard: { announced: true } }],
        ],
        output_deleted: [
          ['accept', acceptJ1],
          ['outputs', { at: at(2), set: { pendingOutputs: ['https://p/1'] } }],
          ['complete', { at: at(3), set: { outputUrls: ['https://ours/1'], completedAt: at(3) }, remove: ['pendingOutputs', 'copyClaimedAt'] }],
          ['announce', { announced: true }],
          ['deleteOutputs', { at: at(4), set: { outputDeletedAt: at(4) }, guard: { announced: true } }],
          ['purge', { at: at(5), remove: ['outputUrls', 'thumbnailUrl'] }],
        ],
        delivering: [
          ['accept', acceptJ1],
          ['outputs', { at: at(2), set: { pendingOutputs: ['https://p/1'] } }],
          ['completeForDelivery', { at: at(3), set: { outputUrls: ['https://ours/1'], completedAt: at(3), delivery: { status: 'pending', attempts: 0 } }, remove: ['pendingOutputs', 'copyClaimedAt'] }],
        ],
        failed: [['fail', ending(task, 1)]],
      })[phase];
      let current = task;
      for (const [event, patch] of path) current = (await move(stores.tasks, current, event, patch))!;
      expect(current.phase).toBe(phase);
      return current;
    }
    /** A new charged task (nothing sent) in `phase`. */
    const inPhase = async (accountId: string, phase: Phase): Promise<Task> => walk(await started(accountId, { unsent: true }), phase);

    describe('rate counters', () => {
      it('hand out each count of a window once, up to the limit, per key and window', async () => {
        const window = windowAt(T0);
        const counts = await Promise.all(Array.from({ length: 8 }, () => stores.rates.increment('key_a', window, 5)));
        expect(counts.filter((count) => count !== undefined).sort()).toEqual([1, 2, 3, 4, 5]);
        expect(counts.filter((count) => count === undefined)).toHaveLength(3);
        expect(await stores.rates.increment('key_b', window, 5)).toBe(1);
        expect(await stores.rates.increment('key_a', windowAt(T0 + 60_000), 5)).toBe(1);
      });

      it('jump to a count for one of racing callers, only above the count, and count on from there', async () => {
        const window = windowAt(T0);
        const jumps = await Promise.all(Array.from({ length: 4 }, () => stores.rates.claimAt('key_j', window, 3)));
        expect(jumps.filter(Boolean)).toHaveLength(1);
        expect(await stores.rates.claimAt('key_j', window, 2)).toBe(false);
        expect(await stores.rates.increment('key_j', window, 5)).toBe(4);
        expect(await stores.rates.claimAt('key_j', window, 4)).toBe(false);
        expect(await stores.rates.claimAt('key_j', window, 5)).toBe(true);
        expect(await stores.rates.increment('key_j', window, 5)).toBeUndefined();
      });
    });

    describe('accounts and the ledger', () => {
      it('creates an account with its opening grant, and reads it back', async () => {
        const accountId = await newAccount(100, { paidAccess: true, subscriptionStatus: 'active' });
        expect(await stores.accounts.get(accountId)).toEqual({
          accountId,
          credits: 100,
          paidAccess: true,
          subscriptionStatus: 'active',
          taskCounts: { video: 0, image: 0 },
          createdAt: at(0),
          updatedAt: at(0),
        });
        const { entries } = await money(accountId);
        expect(entries).toEqual([expect.objectContaining({ kind: 'grant', amount: 100, accountId })]);
        expect(await stores.accounts.get('acc_unknown')).toBeUndefined();
      });

      it('refuses to create an account twice and keeps the first', async () => {
        const accountId = await newAccount(10);
        const again = { accountId, credits: 999, paidAccess: true, subscriptionStatus: 'active', taskCounts: { video: 0, image: 0 }, createdAt: at(5), updatedAt: at(5) } as Account;
        await expect(stores.accounts.create(again, grantOf(accountId, 999))).rejects.toThrow();
        expect(await money(accountId)).toMatchObject({ balance: 10, ledger: 10 });
      });

      // Sequential: grants come from the operator's CLI, and DynamoDB may cancel racing
      // transactions on one item (the adapter does not retry a grant).
      it('adds every grant to the balance with its ledger entry', async () => {
        const accountId = await newAccount(0);
        for (let i = 0; i < 10; i += 1) await grantAudited(grantOf(accountId, i + 1));
        const after = await money(accountId);
        expect(after).toMatchObject({ balance: 55, ledger: 55 });
        expect(after.entries).toHaveLength(10);
        expect((await stores.accounts.get(accountId))?.updatedAt).toBe(at(0));
      });

      it('lists an account ledger in entry order, and no other account', async () => {
        const [a, b] = [await newAccount(1), await newAccount(2)];
        const later = grantOf(a, 3);
        await grantAudited(later);
        const entries = (await money(a)).entries;
        expect(entries.map((entry) => entry.amount)).toEqual([1, 3]);
        expect(entries[1]).toEqual(later);
        expect((await money(b)).entries.map((entry) => entry.amount)).toEqual([2]);
      });

      it('lists every account item once, test balances (their own scope) included, and nothing else', async () => {
        const [a, b] = [await newAccount(1, { createdAt: at(1_000) }), await newAccount(2)];
        await stores.accounts.create(
          { accountId: `${a}_test`, credits: 1000, paidAccess: false, subscriptionStatus: 'none', taskCounts: { video: 0, image: 0 }, createdAt: at(2_000), updatedAt: at(2_000) },
          grantOf(`${a}_test`, 1000),
        );
        await settledStart(startOf(a, { price: 1 }));
        const listed = await stores.accountDirectory.listAll();
        expect(listed.map((account) => account.accountId).sort()).toEqual([a, `${a}_test`, b].sort());
        expect(listed.find((account) => account.accountId === a)).toEqual(await stores.accounts.get(a));
      });

      it('pages the ledger newest first by position, each entry once, under concurrent charges, refunds and grants', async () => {
        const accountId = await newAccount(1000);
        const tasks = await Promise.all(Array.from({ length: 8 }, () => started(accountId)));
        await Promise.all([
          ...tasks.slice(0, 4).map((task) => move(stores.tasks, task, 'fail', ending(task, 2))),
          ...Array.from({ length: 3 }, (_, i) => grantAudited(grantOf(accountId, i + 1))),
        ]);
        // 1 opening grant + 8 charges + 4 refunds + 3 grants.
        const pages = await Promise.all([1, 2, 3, 4, 5].map((page) => stores.ledger.listPage(accountId, page, 4)));
        expect(pages.map((page) => [page.total, page.entries.length])).toEqual([
          [16, 4],
          [16, 4],
          [16, 4],
          [16, 4],
          [16, 0],
        ]);
        const listed = pages.flatMap((page) => page.entries);
        expect(new Set(listed.map((entry) => entry.entryId)).size).toBe(16);
        expect(listed.at(-1)).toMatchObject({ kind: 'grant', amount: 1000 });
        const { balance, ledger } = await money(accountId);
        expect(listed.reduce((sum, entry) => sum + entry.amount, 0)).toBe(balance);
        expect(ledger).toBe(balance);
        // Another account's ledger is its own.
        const other = await newAccount(5);
        expect(await stores.ledger.listPage(other, 1, 4)).toEqual({ total: 1, entries: [expect.objectContaining({ amount: 5 })] });
      });

      it('answers NotFoundError for a grant or a change of an unknown account, writing nothing', async () => {
        await expect(grantAudited(grantOf('acc_nobody', 5))).rejects.toBeInstanceOf(NotFoundError);
        expect(await stores.ledger.listForAccount('acc_nobody')).toEqual([]);
        await expect(updateAccessAudited('acc_nobody', { paidAccess: true }, at(1))).rejects.toBeInstanceOf(NotFoundError);
        await expect(stores.accounts.setTestSubscription('acc_nobody', true, at(1))).rejects.toBeInstanceOf(NotFoundError);
        expect(await stores.accounts.get('acc_nobody')).toBeUndefined();
      });

      it('changes only the access fields it is given', async () => {
        const accountId = await newAccount(7);
        const changed = await updateAccessAudited(accountId, { subscriptionStatus: 'past_due' }, at(9));
        expect(changed).toMatchObject({ accountId, credits: 7, paidAccess: false, subscriptionStatus: 'past_due', updatedAt: at(9) });
        expect(await stores.accounts.get(accountId)).toEqual(changed);
        expect(await updateAccessAudited(accountId, { paidAccess: true }, at(10))).toMatchObject({
          paidAccess: true,
          subscriptionStatus: 'past_due',
        });
        // Issue 36: one entry per change, none for a change that changes nothing (and no write: updatedAt stays).
        expect(await updateAccessAudited(accountId, { paidAccess: true }, at(11))).toMatchObject({ updatedAt: at(10) });
        const entries = (await stores.auditLog.page(accountId, undefined, 10)).entries.filter((entry) => entry.action === 'account.access_changed');
        expect(entries.map((entry) => entry.details)).toEqual([{ paid_access: { from: false, to: true } }, { subscription_status: { from: 'none', to: 'past_due' } }]);
      });

      it('starts and ends a test subscription with one write each: a repeat or a racing copy writes nothing', async () => {
        const scopeId = await newAccount(5);
        expect(await stores.accounts.setTestSubscription(scopeId, false, at(1))).toBe(false);
        expect(await stores.accounts.get(scopeId)).toMatchObject({ paidAccess: false, subscriptionStatus: 'none', updatedAt: at(0) });
        const starts = await Promise.all([2, 2, 2, 2, 2].map((ms) => stores.accounts.setTestSubscription(scopeId, true, at(ms))));
        expect(starts.filter(Boolean)).toHaveLength(1);
        expect(await stores.accounts.setTestSubscription(scopeId, true, at(3))).toBe(false);
        expect(await stores.accounts.get(scopeId)).toMatchObject({ credits: 5, paidAccess: true, subscriptionStatus: 'active', updatedAt: at(2) });
        const ends = await Promise.all([4, 4, 4, 4, 4].map((ms) => stores.accounts.setTestSubscription(scopeId, false, at(ms))));
        expect(ends.filter(Boolean)).toHaveLength(1);
        expect(await stores.accounts.setTestSubscription(scopeId, false, at(5))).toBe(false);
        expect(await stores.accounts.get(scopeId)).toMatchObject({ credits: 5, paidAccess: false, subscriptionStatus: 'canceled', updatedAt: at(4) });
      });
      // Issue 36: a grant and an operator's account creation carry their entry; a refused one writes none.
      it('writes one entry with each grant and with an account made with one, none for a refused grant', async () => {
        const accountId = await newAccount(0);
        const grant = grantOf(accountId, 7);
        await grantAudited(grant);
        await expect(grantAudited(grant)).rejects.toThrow();
        await expect(grantAudited(grantOf('acc_nobody', 5))).rejects.toBeInstanceOf(NotFoundError);
        const entries = (await stores.auditLog.page(accountId, undefined, 10)).entries;
        expect(entries.map((entry) => [entry.action, entry.details.amount, entry.details.ledger_entry_id])).toEqual([['credits.granted', 7, grant.entryId]]);
        expect((await money(accountId)).balance).toBe(7);
        const made = newAccountId();
        const entry = auditEntry(OPERATOR_STAMP, made, 'account.created', { type: 'account', id: made }, { credits: 0 }, new Date(T0));
        await stores.accounts.create({ accountId: made, credits: 0, paidAccess: false, subscriptionStatus: 'none', taskCounts: { video: 0, image: 0 }, createdAt: at(0), updatedAt: at(0) }, undefined, entry);
        expect((await stores.auditLog.page(made, undefined, 10)).entries).toEqual([entry]);
        // The entry's id taken: no account either.
        const again = newAccountId();
        await expect(
          stores.accounts.create({ accountId: again, credits: 0, paidAccess: false, subscriptionStatus: 'none', taskCounts: { video: 0, image: 0 }, createdAt: at(0), updatedAt: at(0) }, undefined, { ...entry, accountId: made }),
        ).rejects.toThrow();
        expect(await stores.accounts.get(again)).toBeUndefined();
      });
    });

    describe('API keys', () => {
      const record = (keyId: string, accountId: string, mode: 'live' | 'test' = 'live'): ApiKeyRecord => ({ keyId, keyHash: `hash-${keyId}`, accountId, mode, createdAt: at(0) });
      const MAX = 50;
      const STAMP: AuditStamp = { actor: { type: 'holder', id: 'holder-1', email: 'a@example.com' }, origin: { ip: '127.0.0.1', userAgent: 'jest' } };
      const createKey = (key: ApiKeyRecord, max: number) =>
        stores.apiKeys.create(key, max, auditEntry(STAMP, key.accountId, 'key.created', { type: 'key', id: key.keyId }, { name: key.name ?? null }, new Date(T0)));
      const revokeKey = (keyId: string, now: string, accountId?: string) => stores.apiKeys.revoke(keyId, now, keyRevokeAudit(STAMP, new Date(now)), accountId);
      const updateKey = (accountId: string, keyId: string, changes: ApiKeyChanges) => stores.apiKeys.update(accountId, keyId, changes, keyChangeAudit(STAMP, new Date(T0)));
      const actionsOf = async (accountId: string) => (await stores.auditLog.page(accountId, undefined, 100)).entries.map((entry) => `${entry.action} ${entry.target.id}`).reverse();

      it('stores, finds, lists per account and refuses a duplicate id', async () => {
        await createKey(record('k1', 'acc_a'), MAX);
        await createKey({ ...record('k2', 'acc_a'), rateLimit: 5 }, MAX);
        await createKey(record('k3', 'acc_b', 'test'), MAX);
        await expect(createKey(record('k1', 'acc_b'), MAX)).rejects.toThrow();
        expect(await stores.apiKeys.get('k1')).toEqual(record('k1', 'acc_a'));
        expect(await stores.apiKeys.get('k3')).toEqual(record('k3', 'acc_b', 'test'));
        expect(await stores.apiKeys.get('k9')).toBeUndefined();
        const listed = await stores.apiKeys.listForAccount('acc_a');
        expect(listed.map((key) => key.keyId).sort()).toEqual(['k1', 'k2']);
        expect(listed.find((key) => key.keyId === 'k2')?.rateLimit).toBe(5);
      });

      it('revokes once, keeping the first time; an unknown key (or another account\'s) is NotFoundError', async () => {
        await createKey(record('k1', 'acc_a'), MAX);
        await expect(revokeKey('k1', at(1), 'acc_b')).rejects.toBeInstanceOf(NotFoundError);
        expect(await revokeKey('k1', at(1), 'acc_a')).toMatchObject({ keyId: 'k1', revokedAt: at(1) });
        expect(await revokeKey('k1', at(2))).toMatchObject({ revokedAt: at(1) });
        expect((await stores.apiKeys.get('k1'))?.revokedAt).toBe(at(1));
        await expect(revokeKey('k9', at(1))).rejects.toBeInstanceOf(NotFoundError);
      });

      it('keeps at most maxActive unrevoked keys per account, exactly under racing creates; a revoke frees a place', async () => {
        const made = await Promise.all(Array.from({ length: 6 }, (_, i) => createKey(record(`r${i}`, 'acc_a'), 4)));
        expect(made.filter(Boolean)).toHaveLength(4);
        expect(await createKey(record('other', 'acc_b'), 4)).toBe(true);
        const kept = (await stores.apiKeys.listForAccount('acc_a')).map((key) => key.keyId);
        expect(kept).toHaveLength(4);
        await revokeKey(kept[0]!, at(1));
        await revokeKey(kept[0]!, at(2));
        expect(await createKey(record('r9', 'acc_a'), 4)).toBe(true);
        expect(await createKey(record('r10', 'acc_a'), 4)).toBe(false);
      });

      it("updates name, scopes and limit (null removes it) of the account's own key only", async () => {
        await createKey({ ...record('k1', 'acc_a'), name: 'ci', monthlySpendLimit: 10 }, MAX);
        expect(await updateKey('acc_b', 'k1', { name: 'stolen' })).toBeUndefined();
        expect(await updateKey('acc_a', 'k9', { name: 'none' })).toBeUndefined();
        expect(await updateKey('acc_a', 'k1', { name: 'build', scopes: ['read'] })).toMatchObject({ name: 'build', scopes: ['read'], monthlySpendLimit: 10 });
        const cleared = await updateKey('acc_a', 'k1', { monthlySpendLimit: null });
        expect(cleared?.monthlySpendLimit).toBeUndefined();
        expect(await stores.apiKeys.get('k1')).toEqual({ ...record('k1', 'acc_a'), name: 'build', scopes: ['read'], version: 2 });
        expect(cleared).toEqual(await stores.apiKeys.get('k1'));
        expect(await updateKey('acc_a', 'k1', {})).toEqual(await stores.apiKeys.get('k1'));
        expect(await updateKey('acc_a', 'k1', { name: 'build' })).toEqual(await stores.apiKeys.get('k1'));
      });

      it('notes the last use, never moving it back', async () => {
        await createKey(record('k1', 'acc_a'), MAX);
        await stores.apiKeys.recordUse('k1', at(5));
        await stores.apiKeys.recordUse('k1', at(3));
        expect((await stores.apiKeys.get('k1'))?.lastUsedAt).toBe(at(5));
        await stores.apiKeys.recordUse('k9', at(5));
        expect(await stores.apiKeys.get('k9')).toBeUndefined();
      });
      // Issue 36: one entry per change, in the change's own write; none for a refused change or a no-op.
      it('writes one entry with each create, change and first revoke, and none when nothing changes or the change is refused', async () => {
        const accountId = newAccountId();
        await createKey({ ...record('k1', accountId), name: 'ci', createdBy: 'holder-1' }, 1);
        expect(await createKey(record('k2', accountId), 1)).toBe(false);
        await expect(createKey(record('k1', accountId), MAX)).rejects.toThrow();
        expect(await stores.apiKeys.get('k1')).toMatchObject({ createdBy: 'holder-1' });
        await updateKey(accountId, 'k1', { name: 'ci' });
        await updateKey(accountId, 'k1', { name: 'build', monthlySpendLimit: 5 });
        expect(await updateKey('acc_other', 'k1', { name: 'stolen' })).toBeUndefined();
        await revokeKey('k1', at(1), accountId);
        await revokeKey('k1', at(2), accountId);
        await expect(revokeKey('k1', at(3), 'acc_other')).rejects.toBeInstanceOf(NotFoundError);
        expect(await actionsOf(accountId)).toEqual(['key.created k1', 'key.updated k1', 'key.revoked k1']);
        const [revoked, updated] = (await stores.auditLog.page(accountId, undefined, 10)).entries;
        expect(updated!.details).toEqual({ name: { from: 'ci', to: 'build' }, monthly_spend_limit: { from: null, to: 5 }, mode: 'live' });
        expect(revoked).toMatchObject({ actor: STAMP.actor, origin: STAMP.origin, at: at(1), details: { name: 'build', mode: 'live' } });
        expect(await actionsOf('acc_other')).toEqual([]);
      });

      it('writes nothing of a change whose entry cannot be written (its id taken): the change and its entry commit together', async () => {
        const accountId = newAccountId();
        const taken = auditEntry(STAMP, accountId, 'key.created', { type: 'key', id: 'k0' }, {}, new Date(T0));
        await stores.auditLog.record(taken);
        expect(await stores.apiKeys.create(record('k1', accountId), MAX, { ...taken, target: { type: 'key', id: 'k1' } }).catch(() => 'refused')).toBe('refused');
        expect(await stores.apiKeys.get('k1')).toBeUndefined();
        await createKey(record('k2', accountId), MAX);
        expect(await stores.apiKeys.update(accountId, 'k2', { name: 'x' }, () => taken).catch(() => 'refused')).toBe('refused');
        expect((await stores.apiKeys.get('k2'))?.name).toBeUndefined();
        expect(await stores.apiKeys.revoke('k2', at(1), () => taken).catch(() => 'refused')).toBe('refused');
        expect((await stores.apiKeys.get('k2'))?.revokedAt).toBeUndefined();
        expect(await actionsOf(accountId)).toEqual(['key.created k0', 'key.created k2']);
      });

      it('applies racing changes of one key one after another, each entry from what the one before left', async () => {
        const accountId = newAccountId();
        await createKey({ ...record('k1', accountId), name: 'n0' }, MAX);
        await Promise.all(Array.from({ length: 6 }, (_, i) => updateKey(accountId, 'k1', { name: `n${i + 1}` })));
        const updates = (await stores.auditLog.page(accountId, undefined, 10)).entries.filter((entry) => entry.action === 'key.updated').reverse();
        expect(updates).toHaveLength(6);
        // A chain: each change starts from the name the previous one wrote.
        const names = updates.map((entry) => entry.details.name as { from: string; to: string });
        names.slice(1).forEach((change, i) => expect(change.from).toBe(names[i]!.to));
        expect(names[0]!.from).toBe('n0');
        expect((await stores.apiKeys.get('k1'))?.name).toBe(names.at(-1)!.to);
      });
    });

    describe("a key's monthly spend", () => {
      it('never passes the limit under racing starts; every refusal is reported; nothing is charged for a refusal', async () => {
        const accountId = await newAccount(1000);
        const spend = { keyId: 'key_race', month: '2026-11', limit: 250 };
        const results = await Promise.all(Array.from({ length: 14 }, () => settledStart(startOf(accountId, { price: 25, keySpend: spend }))));
        expect(results.filter((result) => result.type === 'started')).toHaveLength(10);
        const refusals = results.flatMap((result) => (result.type === 'refused' ? [result.refusals] : []));
        expect(refusals).toHaveLength(4);
        for (const refusal of refusals) expect(refusal).toEqual({ spend: { spent: 250 } });
        expect((await stores.accounts.get(accountId))?.credits).toBe(750);
        expect((await stores.apiKeys.spentInMonth(['key_race', 'key_none'], '2026-11')).get('key_race')).toBe(250);
        // Within the limit but over the balance: the spend is not counted.
        const poor = await newAccount(10);
        expect(await stores.tasks.start(startOf(poor, { price: 25, keySpend: { keyId: 'key_poor', month: '2026-11', limit: 20 + 25 } }))).toEqual({
          type: 'refused',
          refusals: { credits: { available: 10 } },
        });
        expect((await stores.apiKeys.spentInMonth(['key_poor'], '2026-11')).get('key_poor') ?? 0).toBe(0);
        await started(poor, { price: 5, keySpend: { keyId: 'key_poor', month: '2026-11', limit: 8 } });
        expect(await stores.tasks.start(startOf(poor, { price: 5, keySpend: { keyId: 'key_poor', month: '2026-11', limit: 8 } }))).toEqual({
          type: 'refused',
          refusals: { spend: { spent: 5 } },
        });
        // Over the limit and over the balance (5 left) at once: both reported.
        expect(await stores.tasks.start(startOf(poor, { price: 10, keySpend: { keyId: 'key_poor', month: '2026-11', limit: 8 } }))).toEqual({
          type: 'refused',
          refusals: { spend: { spent: 5 }, credits: { available: 5 } },
        });
        // A price above the limit itself, on a month with no spend yet.
        expect(await stores.tasks.start(startOf(poor, { price: 5, keySpend: { keyId: 'key_new', month: '2026-11', limit: 4 } }))).toEqual({
          type: 'refused',
          refusals: { spend: { spent: 0 } },
        });
        expect((await stores.accounts.get(poor))?.credits).toBe(5);
      });

      it('counts a key without a limit too; a refund gives back to the month its charge counted in; a new month starts at zero', async () => {
        const accountId = await newAccount(1000);
        const november = await started(accountId, { price: 25, keySpend: { keyId: 'key_m', month: '2026-11', limit: 50 } });
        await started(accountId, { price: 25, keySpend: { keyId: 'key_m', month: '2026-11', limit: 50 } });
        expect(await stores.tasks.start(startOf(accountId, { price: 25, keySpend: { keyId: 'key_m', month: '2026-11', limit: 50 } }))).toMatchObject({
          type: 'refused',
          refusals: { spend: { spent: 50 } },
        });
        await started(accountId, { price: 25, keySpend: { keyId: 'key_m', month: '2026-12', limit: 50 } });
        expect(await move(stores.tasks, november, 'timeout', ending(november, 2, 'timeout'))).toMatchObject({ phase: 'failed' });
        expect(Object.fromEntries(await stores.apiKeys.spentInMonth(['key_m'], '2026-11'))).toEqual({ key_m: 25 });
        expect(Object.fromEntries(await stores.apiKeys.spentInMonth(['key_m'], '2026-12'))).toEqual({ key_m: 25 });
        expect((await stores.tasks.get(accountId, november.taskId))?.chargedTo).toEqual({ keyId: 'key_m', month: '2026-11' });
        await started(accountId, { price: 25, keySpend: { keyId: 'key_m', month: '2026-11', limit: 50 } });
        await started(accountId, { price: 40, keySpend: { keyId: 'key_free', month: '2026-11' } });
        expect(Object.fromEntries(await stores.apiKeys.spentInMonth(['key_m', 'key_free'], '2026-11'))).toEqual({ key_m: 50, key_free: 40 });
      });
    });

    describe("an end user's month through a key", () => {
      const month = '2026-11';
      const forUser = (endUser: string, extra: Partial<MonthlyKeySpend> = {}): MonthlyKeySpend => ({ keyId: 'key_eu', month, endUser, endUserLimit: 100, ...extra });

      it('lets exactly the allowed number of racing starts for one end user through, while another goes on; a refund gives the room back', async () => {
        const accountId = await newAccount(10_000);
        await started(accountId, { price: 25, keySpend: forUser('alice') });
        await started(accountId, { price: 25, keySpend: forUser('alice') });
        const [alice, bob] = await Promise.all([
          Promise.all(Array.from({ length: 30 }, () => settledStart(startOf(accountId, { price: 25, keySpend: forUser('alice') })))),
          Promise.all(Array.from({ length: 3 }, () => settledStart(startOf(accountId, { price: 25, keySpend: forUser('bob') })))),
        ]);
        const aliceStarted = alice.flatMap((result) => (result.type === 'started' ? [result.task] : []));
        expect(aliceStarted).toHaveLength(2);
        for (const result of alice.filter((each) => each.type === 'refused')) expect(result).toEqual({ type: 'refused', refusals: { endUserSpend: { spent: 100 } } });
        expect(bob.map((result) => result.type)).toEqual(['started', 'started', 'started']);
        expect(await money(accountId)).toMatchObject({ balance: 10_000 - 7 * 25, ledger: 10_000 - 7 * 25 });
        // The key's own month counts every end user's charges.
        expect((await stores.apiKeys.spentInMonth(['key_eu'], month)).get('key_eu')).toBe(7 * 25);
        expect((await stores.tasks.get(accountId, aliceStarted[0]!.taskId))?.chargedTo).toEqual({ keyId: 'key_eu', month, endUser: 'alice' });

        expect(await move(stores.tasks, aliceStarted[0]!, 'timeout', ending(aliceStarted[0]!, 2, 'timeout'))).toMatchObject({ phase: 'failed' });
        await started(accountId, { price: 25, keySpend: forUser('alice') });
        expect(await stores.tasks.start(startOf(accountId, { price: 25, keySpend: forUser('alice') }))).toEqual({ type: 'refused', refusals: { endUserSpend: { spent: 100 } } });
      });

      it("reports the key's month and the end user's when both refuse; a price above the limit itself; counts an end user without a limit", async () => {
        const accountId = await newAccount(1000);
        await started(accountId, { price: 25, keySpend: forUser('alice', { limit: 40, endUserLimit: 30 }) });
        expect(await stores.tasks.start(startOf(accountId, { price: 25, keySpend: forUser('alice', { limit: 40, endUserLimit: 30 }) }))).toEqual({
          type: 'refused',
          refusals: { spend: { spent: 25 }, endUserSpend: { spent: 25 } },
        });
        expect(await stores.tasks.start(startOf(accountId, { price: 25, keySpend: forUser('carol', { endUserLimit: 20 }) }))).toEqual({
          type: 'refused',
          refusals: { endUserSpend: { spent: 0 } },
        });
        // Counted without a limit: a limit set later sees the month's spend.
        const { endUserLimit: _none, ...unlimited } = forUser('dave');
        await started(accountId, { price: 25, keySpend: unlimited });
        expect(await stores.tasks.start(startOf(accountId, { price: 25, keySpend: forUser('dave', { endUserLimit: 40 }) }))).toEqual({
          type: 'refused',
          refusals: { endUserSpend: { spent: 25 } },
        });
        expect(await money(accountId)).toMatchObject({ balance: 950, ledger: 950 });
      });
    });

    describe('usage roll-ups', () => {
      // Charges over a year's end and a few later months, in two models, through two keys and a
      // session, for two end users and none.
      const DAYS = ['2025-12-30', '2025-12-31', '2026-01-01', '2026-01-02', '2026-02-14', '2026-03-31'];
      const RANGES = [
        { from: '2025-12-30', to: '2026-01-02' },
        { from: '2025-12-01', to: '2026-03-31' },
        { from: '2026-01-01', to: '2026-01-01' },
        { from: '2026-02-15', to: '2026-03-31' },
        { from: '2025-04-01', to: '2026-04-01' },
        // Whole calendar years: read from the year items' totals (`ty`, `cy`, `ry`).
        { from: '2026-01-01', to: '2026-12-31' },
        { from: '2025-01-01', to: '2026-01-01' },
      ];

      function mixedStart(accountId: string, index: number, claim?: string): StartWrite {
        const day = DAYS[index % DAYS.length]!;
        const keyId = [undefined, 'key_a', 'key_b'][index % 3];
        const endUser = [undefined, 'alice', 'bob', 'alice'][index % 4];
        const keySpend = keyId === undefined ? undefined : { keyId, month: day.slice(0, 7), ...(endUser !== undefined && { endUser }) };
        return startOf(accountId, {
          price: 5 + (index % 4) * 5,
          kind: index % 5 === 0 ? 'image' : 'video',
          createdAt: `${day}T${String(index % 24).padStart(2, '0')}:00:00.000Z`,
          ...(keySpend && { keySpend }),
          ...(endUser !== undefined && { endUser }),
          ...(claim !== undefined && { claim }),
        });
      }

      async function expectAgreement(accountId: string) {
        for (const range of RANGES) {
          for (const groupBy of USAGE_GROUPINGS) {
            const report = await getUsage(stores.usage, accountId, { ...range, groupBy }, new Date(T0));
            const oracle = await usageOracle(stores, accountId, { ...range, groupBy });
            expect({ range, groupBy, rows: report.rows, totals: report.totals }).toEqual({ range, groupBy, ...oracle });
          }
        }
      }

      it('equal the ledger under racing starts, refused and replayed starts, and racing refunds (counted on the charge day, once)', async () => {
        const accountId = await newAccount(1_000_000);
        // Racing starts; every fourth is raced by a copy with its Idempotency-Key (one of the two writes).
        const first = await Promise.all(
          Array.from({ length: 48 }, (_, index) =>
            index % 4 === 0 ? Promise.all([settledStart(mixedStart(accountId, index, `k${index}`)), settledStart(mixedStart(accountId, index, `k${index}`))]) : settledStart(mixedStart(accountId, index)),
          ),
        );
        const tasks = first.flat().flatMap((result) => (result.type === 'started' ? [result.task] : []));
        expect(tasks).toHaveLength(48);
        // A start refused (above a key's limit, and above the balance of a poorer account) writes no cell.
        expect((await stores.tasks.start(startOf(accountId, { price: 30, createdAt: `${DAYS[2]}T09:00:00.000Z`, keySpend: { keyId: 'key_c', month: '2026-01', limit: 10 } }))).type).toBe('refused');
        // Racing refunds (each of 12 tasks failed by 3 callers at once, on later days) beside more racing starts.
        const failing = tasks.filter((_, index) => index % 4 === 1);
        const [refunds, more] = await Promise.all([
          Promise.all(failing.flatMap((task, index) => [0, 1, 2].map((copy) => move(stores.tasks, task, copy === 1 ? 'timeout' : 'fail', ending(task, 86_400_000 * (index + 1) + copy))))),
          Promise.all(Array.from({ length: 24 }, (_, index) => settledStart(mixedStart(accountId, 100 + index)))),
        ]);
        expect(winners(refunds)).toHaveLength(failing.length);
        expect(more.every((result) => result.type === 'started')).toBe(true);
        const { balance, ledger } = await money(accountId);
        expect(balance).toBe(ledger);
        await expectAgreement(accountId);
        // Totals are the same whatever the grouping.
        const totals = await Promise.all(USAGE_GROUPINGS.map(async (groupBy) => (await getUsage(stores.usage, accountId, { ...RANGES[1]!, groupBy }, new Date(T0))).totals));
        for (const each of totals) expect(each).toEqual(totals[0]);
        expect(totals[0]!.creditsRefunded).toBeGreaterThan(0);
      });

      it('read a whole calendar year from the year totals: 3 attributes per group, not 36', async () => {
        const accountId = await newAccount(10_000);
        const tasks = await Promise.all(Array.from({ length: 12 }, (_, index) => started(accountId, { price: 5 + index, createdAt: `2026-${String(index + 1).padStart(2, '0')}-15T09:00:00.000Z`, ...(index % 2 === 0 && { endUser: 'alice' }) })));
        await move(stores.tasks, tasks[3]!, 'fail', ending(tasks[3]!, 1_000));
        const asked: Array<{ period: string; attributes: readonly string[] }> = [];
        const recording: UsageReader = { cells: (partition, kind, period, attributes) => (asked.push({ period, attributes }), stores.usage.cells(partition, kind, period, attributes)) };
        const range = { from: '2026-01-01', to: '2026-12-31', groupBy: 'end_user' as const };
        const report = await getUsage(recording, accountId, range, new Date(T0));
        expect({ rows: report.rows, totals: report.totals }).toEqual(await usageOracle(stores, accountId, range));
        expect(report.totals.creditsRefunded).toBe(8);
        expect(asked).toEqual([{ period: '2026', attributes: ['ty', 'cy', 'ry'] }]);
      });

      it('keep partitions apart', async () => {
        const [accountId, other] = await Promise.all([newAccount(1_000), newAccount(1_000)]);
        await Promise.all([started(accountId, { price: 25, createdAt: `${DAYS[2]}T09:00:00.000Z` }), started(other, { price: 40, kind: 'image', createdAt: `${DAYS[2]}T10:00:00.000Z` })]);
        const report = await getUsage(stores.usage, accountId, { from: DAYS[2]!, to: DAYS[2]!, groupBy: 'model' }, new Date(T0));
        expect(report.rows).toEqual([{ group: 'vid-1-5-pro', tasks: 1, creditsCharged: 25, creditsRefunded: 0, creditsNet: 25 }]);
      });
    });

    describe('starting a task', () => {
      it('charges and creates the task with its charge in one step; the settle gives both their positions', async () => {
        const accountId = await newAccount(100);
        const request = startOf(accountId, { unsent: true });
        const result = await stores.tasks.start(request);
        expect(result).toEqual({ type: 'started', task: { ...request.task, seq: 0, usageCounted: true } });
        // Charged at once, the ledger whole at every instant; the history position comes with the settle.
        expect(await stores.tasks.get(accountId, request.task.taskId)).toEqual({ ...request.task, seq: 0, usageCounted: true });
        expect(await money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
        expect((await stores.tasks.listPage(accountId, 'video', 1, 10)).tasks).toEqual([]);
        const task = await stores.tasks.settlePositions({ ...request.task, seq: 0 } as Task);
        expect(task).toEqual({ ...request.task, seq: 1 });
        expect(await stores.tasks.get(accountId, request.task.taskId)).toEqual({ ...request.task, seq: 1, usageCounted: true });
        // Settling again (the sweeper racing the request) changes nothing.
        expect(await stores.tasks.settlePositions({ ...request.task, seq: 0 } as Task)).toEqual({ ...request.task, seq: 1 });
        const after = await money(accountId);
        expect(after).toMatchObject({ balance: 75, ledger: 75 });
        expect(after.entries).toContainEqual(request.charge);
        expect((await stores.accounts.get(accountId))?.taskCounts).toEqual({ video: 1, image: 0 });
        expect((await stores.tasks.listPage(accountId, 'video', 1, 10)).tasks.map((listed) => listed.taskId)).toEqual([request.task.taskId]);
        expect((await stores.ledger.listPage(accountId, 1, 10)).entries.map((entry) => entry.entryId)).toEqual([request.charge.entryId, expect.any(String)]);
      });

      it('gives each kind its own positions, whatever the order the settles run in', async () => {
        const accountId = await newAccount(100);
        const writes = [startOf(accountId), startOf(accountId), startOf(accountId, { kind: 'image', price: 5 })];
        const results = [];
        for (const write of writes) results.push(await stores.tasks.start(write));
        const tasks = results.map((result) => (result.type === 'started' ? result.task : undefined)!);
        const settled = await Promise.all([...tasks].reverse().map((task) => stores.tasks.settlePositions(task)));
        expect(settled.reverse().map((task) => task.seq)).toEqual([1, 2, 1]);
        expect((await stores.accounts.get(accountId))?.taskCounts).toEqual({ video: 2, image: 1 });
        expect((await stores.ledger.listPage(accountId, 1, 10)).total).toBe(4);
      });

      it('refuses a charge above the balance and writes nothing', async () => {
        const accountId = await newAccount(24);
        const request = startOf(accountId);
        expect(await stores.tasks.start(request)).toEqual({ type: 'refused', refusals: { credits: { available: 24 } } });
        expect(await stores.tasks.get(accountId, request.task.taskId)).toBeUndefined();
        expect(await money(accountId)).toMatchObject({ balance: 24, ledger: 24 });
        expect((await stores.accounts.get(accountId))?.taskCounts.video).toBe(0);
      });

      it('refuses without paid access when asked, reporting the balance too; an account that does not exist', async () => {
        const accountId = await newAccount(10);
        expect(await stores.tasks.start(startOf(accountId, { paidAccess: true }))).toEqual({
          type: 'refused',
          refusals: { paidAccess: true, credits: { available: 10 } },
        });
        const paid = await newAccount(100, { paidAccess: true, subscriptionStatus: 'active' });
        expect(await settledStart(startOf(paid, { paidAccess: true }))).toMatchObject({ type: 'started', task: { seq: 1 } });
        expect(await stores.tasks.start(startOf('acc_nobody'))).toEqual({ type: 'refused', refusals: { noAccount: true } });
        expect(await money(accountId)).toMatchObject({ balance: 10, ledger: 10 });
      });

      it('never goes below zero under concurrent starts, and leaves no gap in positions', async () => {
        const accountId = await newAccount(75);
        const results = await Promise.all(Array.from({ length: 6 }, () => settledStart(startOf(accountId))));
        const created = results.filter((result) => result.type === 'started');
        expect(created).toHaveLength(3);
        expect(results.filter((result) => result.type === 'refused')).toHaveLength(3);
        expect(created.map((result) => (result.type === 'started' ? result.task.seq : 0)).sort()).toEqual([1, 2, 3]);
        expect(await money(accountId)).toMatchObject({ balance: 0, ledger: 0 });
      });

      it('claims the idempotency key with the task; a second claim gets the first record', async () => {
        const accountId = await newAccount(100);
        const first = startOf(accountId, { claim: 'key-1' });
        await settledStart(first);
        expect(await stores.idempotency.get(accountId, 'key-1', new Date())).toEqual(first.idempotency);
        const second = startOf(accountId, { claim: 'key-1' });
        expect(await stores.tasks.start(second)).toEqual({ type: 'refused', refusals: { claim: first.idempotency } });
        expect(await stores.tasks.get(accountId, second.task.taskId)).toBeUndefined();
        expect(await money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
      });

      it('reports a used key with a balance too low for a second charge', async () => {
        const accountId = await newAccount(25);
        const first = startOf(accountId, { claim: 'k' });
        await settledStart(first);
        expect(await stores.tasks.start(startOf(accountId, { claim: 'k' }))).toEqual({
          type: 'refused',
          refusals: { claim: first.idempotency, credits: { available: 0 } },
        });
      });

      it('lets exactly one of many concurrent claims of one key create a task', async () => {
        const accountId = await newAccount(1000);
        const results = await Promise.all(Array.from({ length: 8 }, () => settledStart(startOf(accountId, { claim: 'same' }))));
        const created = results.filter((result) => result.type === 'started');
        expect(created).toHaveLength(1);
        const winner = created[0]!.type === 'started' ? created[0]!.task.taskId : '';
        for (const result of results) {
          if (result.type === 'refused') expect(result.refusals.claim?.taskId).toBe(winner);
        }
        expect(await money(accountId)).toMatchObject({ balance: 975, ledger: 975 });
      });

      it('lets an expired key be claimed again', async () => {
        const accountId = await newAccount(100);
        const old = startOf(accountId, { claim: 'old' });
        // Judged on the request's own instant (its task's creation, the domain's clock).
        old.idempotency!.expiresAt = Math.floor(T0 / 1000) - 1;
        await settledStart(old);
        expect(await stores.idempotency.get(accountId, 'old', new Date(T0))).toBeUndefined();
        const fresh = startOf(accountId, { claim: 'old' });
        expect(await settledStart(fresh)).toMatchObject({ type: 'started', task: { seq: 2 } });
        expect((await stores.idempotency.get(accountId, 'old', new Date(T0)))?.taskId).toBe(fresh.task.taskId);
      });
    });

    describe('idempotency records', () => {
      it('are per account, expire at expiresAt, and carry the recorded outcome', async () => {
        const accountId = await newAccount(100);
        const request = startOf(accountId, { claim: 'k' });
        await settledStart(request);
        const claim = request.idempotency!;
        expect(await stores.idempotency.get('acc_other', 'k', new Date())).toBeUndefined();
        expect(await stores.idempotency.get(accountId, 'k', new Date((claim.expiresAt - 1) * 1000))).toEqual(claim);
        expect(await stores.idempotency.get(accountId, 'k', new Date(claim.expiresAt * 1000))).toBeUndefined();
        await stores.idempotency.recordOutcome(claim, { type: 'upstream_error', message: 'no' });
        expect(await stores.idempotency.get(accountId, 'k', new Date())).toEqual({ ...claim, outcome: { type: 'upstream_error', message: 'no' } });
      });
    });

    describe('callback receipts', () => {
      it('take a message id once per provider until it expires, in one of many racing claims', async () => {
        const now = new Date(T0);
        const until = new Date(T0 + 600_000);
        const claims = await Promise.all(Array.from({ length: 6 }, () => stores.callbackReceipts.claim('replicate', 'msg_1', now, until)));
        expect(claims.filter(Boolean)).toHaveLength(1);
        expect(await stores.callbackReceipts.claim('simulated', 'msg_1', now, until)).toBe(true);
        expect(await stores.callbackReceipts.claim('replicate', 'msg_1', new Date(T0 + 599_000), until)).toBe(false);
        expect(await stores.callbackReceipts.claim('replicate', 'msg_1', until, new Date(T0 + 1_200_000))).toBe(true);
      });

      it('forget a released claim', async () => {
        const now = new Date(T0);
        const until = new Date(T0 + 600_000);
        expect(await stores.callbackReceipts.claim('replicate', 'msg_2', now, until)).toBe(true);
        await stores.callbackReceipts.release('replicate', 'msg_2');
        expect(await stores.callbackReceipts.claim('replicate', 'msg_2', now, until)).toBe(true);
      });
    });

    describe('task transitions, by event (domain/tasks/transitions.ts)', () => {
      it('moves a charged task to the provider: send once, queue only by its sender, claim once, accept one job', async () => {
        const accountId = await newAccount(100);
        const task = await started(accountId, { unsent: true });
        expect(task.phase).toBe('claimed');
        const sends = await Promise.all(Array.from({ length: 5 }, () => move(stores.tasks, task, 'send', { at: at(1), set: { sentAt: at(1) } })));
        expect(winners(sends)).toHaveLength(1);
        const sent = winners(sends)[0]!;
        expect(sent).toMatchObject({ phase: 'sending', status: 'processing', sentAt: at(1), updatedAt: at(1) });
        expect(sent.unsent).toBeUndefined();
        expect(await stores.tasks.get(accountId, task.taskId)).toEqual(sent);
        // A stale view (nothing sent) or another send than the one seen cannot queue it; its sender can.
        const queue = (sentAt: string | null, ms: number) =>
          move(stores.tasks, task, 'queue', { at: at(ms), set: { queuedAt: at(ms), submitAttempts: 1 }, guard: { sentAt } });
        expect(await queue(null, 2)).toBeUndefined();
        expect(await queue(at(9), 2)).toBeUndefined();
        const queues = await Promise.all([1, 2, 3].map(() => queue(at(1), 3)));
        expect(winners(queues)).toHaveLength(1);
        const queued = winners(queues)[0];
        expect(queued).toMatchObject({ phase: 'queued', queuedAt: at(3), submitAttempts: 1, unsent: true, updatedAt: at(3) });
        expect(await move(stores.tasks, task, 'send', { at: at(4), set: { sentAt: at(4) } })).toBeUndefined(); // not while queued
        // A message delivered many times: one consumer claims the send.
        const claims = await Promise.all(Array.from({ length: 5 }, () => move(stores.tasks, task, 'claim', { at: at(5), remove: ['queuedAt'] })));
        expect(winners(claims)).toHaveLength(1);
        expect(winners(claims)[0]).toMatchObject({ phase: 'claimed', unsent: true });
        expect(winners(claims)[0]!.queuedAt).toBeUndefined();
        // The same job recorded twice (a callback racing the create's answer) is harmless; another job is refused.
        const accept = (jobId: string, ms: number) =>
          move(stores.tasks, task, 'accept', { at: at(ms), set: { provider: { name: 'p', jobId, callbacks: true }, lastCheckedAt: at(ms) }, remove: ['queuedAt'], guard: { jobId } });
        expect(await accept('j1', 6)).toMatchObject({ phase: 'running', provider: { name: 'p', jobId: 'j1', callbacks: true }, lastCheckedAt: at(6) });
        expect(await accept('j1', 7)).toMatchObject({ phase: 'running' });
        expect(await accept('j2', 8)).toBeUndefined();
        expect((await stores.tasks.get(accountId, task.taskId))?.unsent).toBeUndefined();
        expect(await queue(null, 9)).toBeUndefined();
      });

      it('adopts a job (a callback) in any phase before outputs, which ends a wait on the queue', async () => {
        const accountId = await newAccount(100);
        for (const phase of ['claimed', 'queued', 'sending'] as const) {
          const task = await inPhase(accountId, phase);
          const adopted = await move(stores.tasks, task, 'accept', { at: at(5), set: { provider: { name: 'p', jobId: `j-${phase}` } }, remove: ['queuedAt'], guard: { jobId: `j-${phase}` } });
          expect(adopted).toMatchObject({ phase: 'running', provider: { jobId: `j-${phase}` } });
          expect([adopted!.queuedAt, adopted!.unsent]).toEqual([undefined, undefined]);
          expect(await move(stores.tasks, task, 'claim', { at: at(6), remove: ['queuedAt'] })).toBeUndefined();
        }
      });

      it('touches a running task without moving its phase or its instant: one check per interval, progress only upwards', async () => {
        const accountId = await newAccount(100);
        const task = await inPhase(accountId, 'running');
        const check = (ms: number, interval: number) =>
          move(stores.tasks, task, 'check', { set: { lastCheckedAt: at(ms) }, guard: { checkedBefore: at(ms - interval) } });
        const checks = await Promise.all(Array.from({ length: 10 }, () => check(10_000, 2_000)));
        expect(winners(checks)).toHaveLength(1);
        expect(winners(checks)[0]).toMatchObject({ phase: 'running', lastCheckedAt: at(10_000), updatedAt: at(1) });
        expect(await check(11_999, 2_000)).toBeUndefined();
        expect(await check(12_000, 2_000)).toMatchObject({ lastCheckedAt: at(12_000) });
        const progress = (value: number) => move(stores.tasks, task, 'progress', { set: { progress: value }, guard: { progressBelow: value } });
        expect(await progress(40)).toMatchObject({ progress: 40, updatedAt: at(1) });
        expect(await progress(30)).toBeUndefined();
        expect((await stores.tasks.get(accountId, task.taskId))?.progress).toBe(40);
        // Not before a job exists.
        const claimed = await inPhase(accountId, 'claimed');
        expect(await move(stores.tasks, claimed, 'check', { set: { lastCheckedAt: at(20_000) }, guard: { checkedBefore: at(18_000) } })).toBeUndefined();
      });

      it('stores outputs once, lets one copy at a time hold them, counts failed copies, then completes once into the outbox', async () => {
        const accountId = await newAccount(100);
        const task = await inPhase(accountId, 'running');
        const outputs = (url: string, ms: number) => move(stores.tasks, task, 'outputs', { at: at(ms), set: { pendingOutputs: [url] } });
        const recorded = await Promise.all([outputs('https://p/1', 2), outputs('https://p/2', 2)]);
        expect(winners(recorded)).toHaveLength(1);
        expect(winners(recorded)[0]).toMatchObject({ phase: 'storing', status: 'processing', updatedAt: at(2) });
        const copyClaim = (ms: number, leaseMs: number) =>
          move(stores.tasks, task, 'copyClaim', { set: { copyClaimedAt: at(ms) }, guard: { copyClaimedBefore: at(ms - leaseMs) } });
        expect(winners(await Promise.all(Array.from({ length: 5 }, () => copyClaim(10, 60_000))))).toHaveLength(1);
        expect(await copyClaim(60_009, 60_000)).toBeUndefined();
        const failed = await move(stores.tasks, task, 'copyFailed', { countCopyFailure: true, remove: ['copyClaimedAt'] });
        expect(failed).toMatchObject({ phase: 'storing', copyAttempts: 1, updatedAt: at(2) });
        expect(failed!.copyClaimedAt).toBeUndefined();
        // A failed copy gives its claim up: the next ask copies at once.
        expect(await copyClaim(60_030, 60_000)).toMatchObject({ copyClaimedAt: at(60_030) });
        const complete = (url: string) =>
          move(stores.tasks, task, 'complete', { at: at(60_040), set: { outputUrls: [url], completedAt: at(60_040) }, remove: ['pendingOutputs', 'copyClaimedAt'] });
        const completions = await Promise.all([complete('https://ours/1'), complete('https://ours/2')]);
        expect(winners(completions)).toHaveLength(1);
        const done = winners(completions)[0]!;
        expect(done).toMatchObject({ phase: 'completed', status: 'completed', completedAt: at(60_040), updatedAt: at(60_040), copyAttempts: 1 });
        expect([done.pendingOutputs, done.copyClaimedAt]).toEqual([undefined, undefined]);
        expect(await stores.tasks.get(accountId, task.taskId)).toEqual(done);
        // Final: nothing moves it, not even a copy counter or a refund.
        expect(await move(stores.tasks, task, 'copyFailed', { countCopyFailure: true })).toBeUndefined();
        expect(await move(stores.tasks, task, 'fail', ending(task, 60_050))).toBeUndefined();
        expect(await move(stores.tasks, task, 'timeout', ending(task, 60_050, 'timeout'))).toBeUndefined();
        expect(await money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
        // In the outbox until announced, then out of it.
        const unannounced = async () => {
          const ids: string[] = [];
          for (const shard of stores.tasks.listUnannounced()) for await (const ref of shard) ids.push(ref.taskId);
          return ids;
        };
        expect(await unannounced()).toEqual([task.taskId]);
        expect(await move(stores.tasks, done, 'announce', { announced: true })).toMatchObject({ phase: 'completed' });
        expect(await unannounced()).toEqual([]);
      });

      it('fails and refunds exactly once however many callers race, with the money exact', async () => {
        const accountId = await newAccount(100);
        const task = await inPhase(accountId, 'storing');
        const events: TaskEvent[] = ['fail', 'timeout', 'fail', 'timeout', 'fail', 'timeout', 'fail', 'timeout', 'fail', 'timeout'];
        const results = await Promise.all(events.map((event, index) => move(stores.tasks, task, event, ending(task, 10 + index))));
        expect(winners(results)).toHaveLength(1);
        const failed = winners(results)[0]!;
        expect(failed).toMatchObject({ phase: 'failed', status: 'failed', progress: 10 });
        expect(failed.pendingOutputs).toBeUndefined();
        expect(await stores.tasks.get(accountId, task.taskId)).toEqual(failed);
        const after = await money(accountId);
        expect(after).toMatchObject({ balance: 100, ledger: 100 });
        expect(after.entries.filter((entry) => entry.kind === 'refund')).toHaveLength(1);
        expect(await move(stores.tasks, task, 'complete', { at: at(30), set: { outputUrls: ['u'], completedAt: at(30) } })).toBeUndefined();
      });

      it('refunds with the ledger count read alongside the task, and after a count that moved meanwhile', async () => {
        const accountId = await newAccount(1000);
        const task = await inPhase(accountId, 'running');
        const { task: read, ledgerSeen } = await stores.tasks.getForRefund(accountId, task.taskId);
        expect(read).toEqual(await stores.tasks.get(accountId, task.taskId));
        // Another charge after the read: the count handed in is one behind.
        await inPhase(accountId, 'running');
        const canceled = await move(stores.tasks, read!, 'cancel', { ...ending(read!, 20, 'canceled'), ledgerSeen });
        expect(canceled).toMatchObject({ phase: 'failed', status: 'failed', error: { code: 'canceled' }, unannounced: true });
        // The answer is the task as stored, though the transaction handed nothing back.
        expect(canceled).toEqual(await stores.tasks.get(accountId, task.taskId));
        const fresh = await stores.tasks.getForRefund(accountId, (await inPhase(accountId, 'sending')).taskId);
        expect(await move(stores.tasks, fresh.task!, 'cancel', { ...ending(fresh.task!, 30, 'canceled'), ledgerSeen: fresh.ledgerSeen })).toMatchObject({ phase: 'failed' });
        const { balance, ledger, entries } = await money(accountId);
        expect(balance).toBe(ledger);
        expect(entries.filter((entry) => entry.kind === 'refund')).toHaveLength(2);
        expect(await stores.tasks.getForRefund(accountId, 'vid_01M8FJFHJ15J7GEHVNQV7GWYEX')).toMatchObject({ task: undefined });
      });

      it("announces with the ending's feed entry in one step: each once, at the next position; a repeat announces alone; a refusal writes none", async () => {
        const accountId = await newAccount(1000);
        const failed = async () => {
          const task = await inPhase(accountId, 'running');
          return (await move(stores.tasks, task, 'fail', ending(task, 20)))!;
        };
        const entry = (task: Task, after: number) => ({ eventId: `evt_of_${task.taskId}`, type: 'video.failed', payload: `{"id":"${task.taskId}"}`, createdAt: at(20), after });
        const [a, b] = [await failed(), await failed()];
        // Two endings from the same read of the feed: both get in, one after the other.
        const announced = await Promise.all([a, b].map((task) => move(stores.tasks, task, 'announce', { announced: true, feedEntry: entry(task, 0) })));
        for (const [index, task] of [a, b].entries()) {
          expect(announced[index]).toMatchObject({ phase: 'failed' });
          expect(announced[index]!.unannounced).toBeUndefined();
          expect(announced[index]).toEqual(await stores.tasks.get(accountId, task.taskId));
        }
        const feed = await stores.feed.entries(accountId);
        expect(feed.map((found) => found.position)).toEqual([1, 2]);
        expect(new Set(feed.map((found) => found.eventId))).toEqual(new Set([entry(a, 0).eventId, entry(b, 0).eventId]));
        // Announced again with its entry (the sweeper's repeat): the entry is there, so the announce alone.
        expect(await move(stores.tasks, a, 'announce', { announced: true, feedEntry: entry(a, 2) })).toMatchObject({ phase: 'failed' });
        // Refused (its guard does not hold): no entry either.
        const c = await failed();
        expect(await move(stores.tasks, c, 'announce', { announced: true, feedEntry: entry(c, 2), guard: { stillDelivering: true } })).toBeUndefined();
        expect((await stores.feed.entries(accountId)).map((found) => found.position)).toEqual([1, 2]);
        expect((await stores.tasks.get(accountId, c.taskId))?.unannounced).toBe(true);
      });

      it('loses only a task with no job, and cancels only before its outputs', async () => {
        const accountId = await newAccount(1000);
        for (const phase of PHASE_NAMES.filter((name) => name !== 'draft')) {
          const task = await inPhase(accountId, phase);
          const lost = await move(stores.tasks, task, 'lose', ending(task, 20, 'internal_error'));
          expect([phase, lost?.phase]).toEqual([phase, (TRANSITIONS.lose.from as readonly Phase[]).includes(phase) ? 'failed' : undefined]);
          const again = await inPhase(accountId, phase);
          const canceled = await move(stores.tasks, again, 'cancel', ending(again, 20, 'canceled'));
          expect([phase, canceled?.phase]).toEqual([phase, (TRANSITIONS.cancel.from as readonly Phase[]).includes(phase) ? 'failed' : undefined]);
        }
        const { balance, ledger } = await money(accountId);
        expect(balance).toBe(ledger);
      });

      it('refuses every event from a phase outside its row, changing nothing', async () => {
        const accountId = await newAccount(1000);
        const patches: Record<TaskEvent, (task: Task) => TaskPatch> = {
          queue: () => ({ at: at(50), set: { queuedAt: at(50), submitAttempts: 0 } }),
          claim: () => ({ at: at(50), remove: ['queuedAt'] }),
          send: () => ({ at: at(50), set: { sentAt: at(50) } }),
          accept: () => ({ at: at(50), set: { provider: { name: 'p', jobId: 'j9' } }, guard: { jobId: 'j9' } }),
          check: () => ({ set: { lastCheckedAt: at(50) } }),
          progress: () => ({ set: { progress: 50 } }),
          outputs: () => ({ at: at(50), set: { pendingOutputs: ['https://p/9'] } }),
          copyClaim: () => ({ set: { copyClaimedAt: at(50) } }),
          copyFailed: () => ({ countCopyFailure: true }),
          complete: () => ({ at: at(50), set: { outputUrls: ['https://ours/9'], completedAt: at(50) }, remove: ['pendingOutputs'] }),
          fail: (task) => ending(task, 50),
          lose: (task) => ending(task, 50, 'internal_error'),
          cancel: (task) => ending(task, 50, 'canceled'),
          timeout: (task) => ending(task, 50, 'timeout'),
          announce: () => ({ announced: true }),
          deleteOutputs: () => ({ at: at(50), set: { outputDeletedAt: at(50) }, guard: { announced: true } }),
          purge: () => ({ at: at(50), remove: ['outputUrls', 'thumbnailUrl'] }),
          markDeleted: () => ({ set: { outputDeletedAt: at(50) } }),
          completeForDelivery: () => ({ at: at(50), set: { outputUrls: ['https://ours/9'], completedAt: at(50), delivery: { status: 'pending', attempts: 0 } }, remove: ['pendingOutputs'] }),
          claimDelivery: () => ({ set: { delivery: { status: 'pending', attempts: 0, claimedUntil: at(60) } }, guard: { deliveryAttempts: 0, deliveryFree: at(50) } }),
          deliveryFailed: () => ({ set: { delivery: { status: 'pending', attempts: 1, lastError: 'HTTP 500' } }, guard: { deliveryAttempts: 0 } }),
          deliver: () => ({ at: at(50), set: { delivery: { status: 'delivered', attempts: 1, deliveredAt: at(50) } }, remove: ['destination'], guard: { deliveryAttempts: 0 } }),
          deliverAndDrop: () => ({ at: at(50), set: { delivery: { status: 'delivered', attempts: 1, deliveredAt: at(50) }, outputDeletedAt: at(50) }, remove: ['destination'], guard: { deliveryAttempts: 0, announced: true } }),
          giveUpDelivery: () => ({ at: at(50), set: { delivery: { status: 'failed', attempts: 1, lastError: 'HTTP 403', eventOwed: true } }, remove: ['destination'], guard: { deliveryAttempts: 0 } }),
          deliveryAnnounced: () => ({ set: { delivery: { status: 'failed', attempts: 1, lastError: 'HTTP 403' } } }),
        };
        for (const phase of PHASE_NAMES.filter((name) => name !== 'draft')) {
          const task = await inPhase(accountId, phase);
          for (const event of Object.keys(TRANSITIONS) as TaskEvent[]) {
            if ((TRANSITIONS[event].from as readonly Phase[]).includes(phase)) continue;
            expect([phase, event, await move(stores.tasks, task, event, patches[event](task))]).toEqual([phase, event, undefined]);
          }
          expect([phase, await stores.tasks.get(accountId, task.taskId)]).toEqual([phase, task]);
        }
        const { balance, ledger } = await money(accountId);
        expect(balance).toBe(ledger);
      });

      it("changes nothing for a task that does not exist, or that is another account's", async () => {
        const [owner, other] = [await newAccount(100), await newAccount(100)];
        const task = await inPhase(owner, 'running');
        const ghost = { ...task, taskId: newTaskId('video') };
        expect(await move(stores.tasks, ghost, 'outputs', { at: at(5), set: { pendingOutputs: ['u'] } })).toBeUndefined();
        expect(await move(stores.tasks, ghost, 'fail', ending(ghost, 5))).toBeUndefined();
        expect(await move(stores.tasks, { ...task, partitionId: other }, 'fail', ending(task, 5))).toBeUndefined();
        expect(await stores.tasks.get(owner, task.taskId)).toEqual(task);
        expect(await money(owner)).toMatchObject({ balance: 75, ledger: 75 });
        expect(await money(other)).toMatchObject({ balance: 100, ledger: 100 });
      });
    });

    describe('listing', () => {
      it('pages an account history of one kind newest first, with its total', async () => {
        const accountId = await newAccount(1000);
        const videos: Task[] = [];
        for (let i = 0; i < 7; i += 1) videos.push(await started(accountId));
        await started(accountId, { kind: 'image', price: 5 });
        await started(await newAccount(100));
        const ids = (tasks: Task[]) => tasks.map((task) => task.taskId);
        const page1 = await stores.tasks.listPage(accountId, 'video', 1, 3);
        expect(page1.total).toBe(7);
        expect(ids(page1.tasks)).toEqual(ids([videos[6]!, videos[5]!, videos[4]!]));
        expect(page1.tasks[0]).toEqual(videos[6]);
        expect(ids((await stores.tasks.listPage(accountId, 'video', 3, 3)).tasks)).toEqual([videos[0]!.taskId]);
        expect(await stores.tasks.listPage(accountId, 'video', 4, 3)).toEqual({ tasks: [], total: 7 });
        expect((await stores.tasks.listPage(accountId, 'image', 1, 20)).total).toBe(1);
        expect(await stores.tasks.listPage('acc_nobody', 'video', 1, 20)).toEqual({ tasks: [], total: 0 });
      });

      it("pages one end user's tasks of a kind newest first, with its total, and nobody else's", async () => {
        const [accountId, other] = [await newAccount(1000), await newAccount(1000)];
        const alice: Task[] = [];
        for (let i = 0; i < 5; i += 1) {
          alice.push(await started(accountId, { endUser: 'alice' }));
          await started(accountId, { endUser: 'bob' });
          await started(accountId);
        }
        await started(accountId, { endUser: 'alice', kind: 'image', price: 5 });
        await started(other, { endUser: 'alice' });
        const ids = (tasks: Task[]) => tasks.map((task) => task.taskId);
        // The adapter's index is eventually consistent: wait for the last start to show.
        const page1 = await pollUntil(async () => {
          const page = await stores.tasks.listEndUserPage(accountId, 'alice', 'video', 1, 2);
          return page.tasks[0]?.taskId === alice[4]!.taskId && page;
        });
        expect(page1.total).toBe(5);
        expect(ids(page1.tasks)).toEqual(ids([alice[4]!, alice[3]!]));
        expect(page1.tasks[0]).toEqual(alice[4]);
        expect(ids((await stores.tasks.listEndUserPage(accountId, 'alice', 'video', 2, 2)).tasks)).toEqual(ids([alice[2]!, alice[1]!]));
        expect(ids((await stores.tasks.listEndUserPage(accountId, 'alice', 'video', 3, 2)).tasks)).toEqual([alice[0]!.taskId]);
        expect(await stores.tasks.listEndUserPage(accountId, 'alice', 'video', 4, 2)).toEqual({ tasks: [], total: 5 });
        expect((await stores.tasks.listEndUserPage(accountId, 'alice', 'image', 1, 20)).total).toBe(1);
        expect((await stores.tasks.listEndUserPage(other, 'alice', 'video', 1, 20)).total).toBe(1);
        expect(await stores.tasks.listEndUserPage(accountId, 'carol', 'video', 1, 20)).toEqual({ tasks: [], total: 0 });
        // The account's own history still holds every task.
        expect((await stores.tasks.listPage(accountId, 'video', 1, 20)).total).toBe(15);
      });

      it("numbers an end user's tasks without gaps under concurrent starts, refused ones taking no position", async () => {
        const accountId = await newAccount(20 * 25);
        const results = await Promise.all(Array.from({ length: 24 }, () => settledStart(startOf(accountId, { endUser: 'alice' }))));
        const created = results.flatMap((result) => (result.type === 'started' ? [result.task.taskId] : []));
        expect(created).toHaveLength(20);
        const listed = await pollUntil(async () => {
          const pages = await Promise.all([1, 2, 3, 4].map((page) => stores.tasks.listEndUserPage(accountId, 'alice', 'video', page, 5)));
          const all = pages.flatMap((page) => page.tasks.map((task) => task.taskId));
          return all.length === 20 && pages.every((page) => page.total === 20) && all;
        });
        expect([...listed].sort()).toEqual([...created].sort());
      });

      it('lists every processing task once, under its phase (or unmoved since its start), each shard oldest first, and no final ones', async () => {
        const [a, b] = [await newAccount(1000), await newAccount(1000)];
        const sendAt = async (accountId: string, ms: number) =>
          (await move(stores.tasks, await started(accountId, { unsent: true }), 'send', { at: at(ms), set: { sentAt: at(ms) } }))!;
        const sending = [await sendAt(a, 3_000), await sendAt(b, 1_000), await sendAt(a, 2_000)];
        const [claimed, queued, running] = [await inPhase(b, 'claimed'), await inPhase(a, 'queued'), await inPhase(b, 'running')];
        await inPhase(b, 'completed');
        await inPhase(a, 'failed');
        const lists = new Map<string, string[]>();
        for (const list of SWEPT_LISTS) {
          for (const shard of stores.tasks.listInFlight(list)) {
            const inShard: string[] = [];
            for await (const ref of shard) inShard.push(ref.taskId);
            const sent = inShard.map((id) => sending.find((task) => task.taskId === id)?.sentAt).filter((time) => time !== undefined);
            expect(sent).toEqual([...sent].sort());
            for (const id of inShard) lists.set(id, [...(lists.get(id) ?? []), list]);
          }
        }
        expect([...lists.keys()].sort()).toEqual([...sending, claimed, queued, running].map((task) => task.taskId).sort());
        for (const task of sending) expect(lists.get(task.taskId)).toEqual(['sending']);
        expect(lists.get(queued.taskId)).toEqual(['queued']);
        expect(lists.get(running.taskId)).toEqual(['running']);
        // Never moved since its start: the adapter still lists it where the start indexed it.
        expect([['claimed'], ['unmoved']]).toContainEqual(lists.get(claimed.taskId));
      });
    });

    describe('deliveries to the customer\'s storage (design-35 §2)', () => {
      const unannounced = async () => {
        const ids: string[] = [];
        for (const shard of stores.tasks.listUnannounced()) for await (const ref of shard) ids.push(ref.taskId);
        return ids;
      };
      const destination = { output: { url: 'https://store.test/a.mp4?X-Amz-Signature=s', headers: { 'x-ms-blob-type': 'BlockBlob' } }, thumbnail: { url: 'https://store.test/a.jpg', headers: {} } };

      it('stores the destination and the delivery as written, and completes for delivery into the outbox', async () => {
        const accountId = await newAccount(100);
        const write = startOf(accountId, { unsent: true });
        const result = await settledStart({ ...write, task: { ...write.task, destination, keepOutput: false, delivery: { status: 'pending', attempts: 0 } } as Omit<Task, 'seq'> });
        if (result.type !== 'started') throw new Error('refused');
        expect(await stores.tasks.get(accountId, result.task.taskId)).toMatchObject({ destination, keepOutput: false, delivery: { status: 'pending', attempts: 0 } });
        const delivering = await walk(result.task, 'delivering');
        expect(delivering).toMatchObject({ status: 'completed', completedAt: at(3), outputUrls: ['https://ours/1'], unannounced: true });
        expect(await unannounced()).toEqual([delivering.taskId]);
        const announced = (await move(stores.tasks, delivering, 'announce', { announced: true }))!;
        expect(announced.unannounced).toBeUndefined();
        // The delivery's end is not a second ending: it stays out of the outbox.
        const delivered = (await move(stores.tasks, announced, 'deliver', { at: at(9), set: { delivery: { status: 'delivered', attempts: 1, deliveredAt: at(9) } }, remove: ['destination'], guard: { deliveryAttempts: 0 } }))!;
        expect(delivered).toMatchObject({ phase: 'completed', delivery: { status: 'delivered', attempts: 1, deliveredAt: at(9) } });
        expect(delivered.destination).toBeUndefined();
        expect(await unannounced()).toEqual([]);
        expect(await stores.tasks.get(accountId, delivered.taskId)).toEqual(delivered);
      });

      it('a delivery that ends before its completion is announced leaves it in the outbox', async () => {
        const accountId = await newAccount(100);
        const delivering = await inPhase(accountId, 'delivering');
        const failed = await move(stores.tasks, delivering, 'giveUpDelivery', { at: at(9), set: { delivery: { status: 'failed', attempts: 1, lastError: 'HTTP 403 (AccessDenied)', eventOwed: true } }, remove: ['destination'], guard: { deliveryAttempts: 0 } });
        expect(failed).toMatchObject({ phase: 'completed', unannounced: true, delivery: { status: 'failed', attempts: 1, lastError: 'HTTP 403 (AccessDenied)', eventOwed: true } });
        expect(await unannounced()).toEqual([delivering.taskId]);
        const told = await move(stores.tasks, failed!, 'deliveryAnnounced', { set: { delivery: { status: 'failed', attempts: 1, lastError: 'HTTP 403 (AccessDenied)' } } });
        expect(told?.delivery).toEqual({ status: 'failed', attempts: 1, lastError: 'HTTP 403 (AccessDenied)' });
      });

      it('gives one claim to racing workers, again only once its lease is over', async () => {
        const accountId = await newAccount(100);
        const task = await inPhase(accountId, 'delivering');
        const claim = (now: number) => move(stores.tasks, task, 'claimDelivery', { set: { delivery: { status: 'pending', attempts: 0, claimedUntil: at(now + 60_000) } }, guard: { deliveryAttempts: 0, deliveryFree: at(now) } });
        expect(winners(await Promise.all([claim(10), claim(10), claim(10)]))).toHaveLength(1);
        expect(await claim(30_000)).toBeUndefined();
        expect(await claim(60_011)).toMatchObject({ delivery: { claimedUntil: at(120_011) } });
      });

      it('records one outcome per attempt: a second copy of the same attempt is refused', async () => {
        const accountId = await newAccount(100);
        const task = await inPhase(accountId, 'delivering');
        const failedOnce = (attempts: number) =>
          move(stores.tasks, task, 'deliveryFailed', { set: { delivery: { status: 'pending', attempts: attempts + 1, lastError: 'HTTP 500', nextAttemptAt: at(20_000), partsDone: ['output'] } }, guard: { deliveryAttempts: attempts } });
        expect(winners(await Promise.all([failedOnce(0), failedOnce(0)]))).toHaveLength(1);
        expect(await failedOnce(0)).toBeUndefined();
        expect(await failedOnce(1)).toMatchObject({ phase: 'delivering', delivery: { attempts: 2, partsDone: ['output'], nextAttemptAt: at(20_000) } });
        const delivered = move(stores.tasks, task, 'deliver', { at: at(30_000), set: { delivery: { status: 'delivered', attempts: 3, deliveredAt: at(30_000) } }, remove: ['destination'], guard: { deliveryAttempts: 1 } });
        expect(await delivered).toBeUndefined();
      });

      it('drops our copy only once announced: deliverAndDrop moves to deleting', async () => {
        const accountId = await newAccount(100);
        const task = await inPhase(accountId, 'delivering');
        const drop = () => move(stores.tasks, task, 'deliverAndDrop', { at: at(9), set: { delivery: { status: 'delivered', attempts: 1, deliveredAt: at(9) }, outputDeletedAt: at(9) }, remove: ['destination'], guard: { deliveryAttempts: 0, announced: true } });
        expect(await drop()).toBeUndefined();
        await move(stores.tasks, task, 'announce', { announced: true });
        expect(await drop()).toMatchObject({ phase: 'deleting', outputDeletedAt: at(9), delivery: { status: 'delivered' } });
        const deleting: string[] = [];
        for (const shard of stores.tasks.listInFlight('deleting')) for await (const ref of shard) deleting.push(ref.taskId);
        expect(deleting).toEqual([task.taskId]);
      });

      it('lists a delivery under way for the sweeper once announced, and its end among the stored outputs', async () => {
        const accountId = await newAccount(100);
        const listed = async () => {
          const ids: string[] = [];
          for (const shard of stores.tasks.listInFlight('delivering')) for await (const ref of shard) ids.push(ref.taskId);
          return ids;
        };
        const stored = async () => {
          const ids: string[] = [];
          for await (const ref of stores.tasks.listCompletedBefore(accountId, '9999')) ids.push(ref.taskId);
          return ids;
        };
        const task = await inPhase(accountId, 'delivering');
        // In the outbox first: the outbox pass announces it, then it is listed.
        expect([await listed(), await unannounced()]).toEqual([[], [task.taskId]]);
        const announced = (await move(stores.tasks, task, 'announce', { announced: true }))!;
        expect([await listed(), await unannounced(), await stored()]).toEqual([[task.taskId], [], []]);
        const failedOnce = (await move(stores.tasks, announced, 'deliveryFailed', { set: { delivery: { status: 'pending', attempts: 1, lastError: 'HTTP 500', nextAttemptAt: at(20_000) } }, guard: { deliveryAttempts: 0 } }))!;
        expect(await listed()).toEqual([task.taskId]);
        await move(stores.tasks, failedOnce, 'deliver', { at: at(30_000), set: { delivery: { status: 'delivered', attempts: 2, deliveredAt: at(30_000) } }, remove: ['destination'], guard: { deliveryAttempts: 1 } });
        expect([await listed(), await unannounced(), await stored()]).toEqual([[], [], [task.taskId]]);
      });
    });

    describe('task progress and the outbox', () => {
      it('raises progress and never lowers it, only while running; a failure keeps the progress it is given', async () => {
        const accountId = await newAccount(100);
        const [task, other] = [await inPhase(accountId, 'running'), await inPhase(accountId, 'running')];
        const progress = (value: number) => move(stores.tasks, task, 'progress', { set: { progress: value }, guard: { progressBelow: value } });
        await progress(40);
        await progress(30);
        expect((await stores.tasks.get(accountId, task.taskId))?.progress).toBe(40);
        await walk(task, 'completed');
        expect(await progress(90)).toBeUndefined();
        expect((await stores.tasks.get(accountId, task.taskId))?.progress).toBe(40);
        await move(stores.tasks, other, 'cancel', ending(other, 2, 'canceled', 17));
        expect((await stores.tasks.get(accountId, other.taskId))?.progress).toBe(17);
      });

      it('lists every ended task until its events are published, and no processing one', async () => {
        const accountId = await newAccount(100);
        const [done, failed, running] = [await inPhase(accountId, 'completed'), await inPhase(accountId, 'failed'), await inPhase(accountId, 'running')];
        const unannounced = async () => {
          const ids: string[] = [];
          for (const shard of stores.tasks.listUnannounced()) for await (const ref of shard) ids.push(ref.taskId);
          return ids.sort();
        };
        expect(await unannounced()).toEqual([done.taskId, failed.taskId].sort());
        expect(await move(stores.tasks, done, 'announce', { announced: true })).toMatchObject({ phase: 'completed' });
        expect(await move(stores.tasks, done, 'announce', { announced: true })).toMatchObject({ phase: 'completed' });
        // Still processing: stays in the work list, not the outbox.
        expect(await move(stores.tasks, running, 'announce', { announced: true })).toBeUndefined();
        expect(await unannounced()).toEqual([failed.taskId]);
        const processing: string[] = [];
        for (const list of SWEPT_LISTS) for (const shard of stores.tasks.listInFlight(list)) for await (const ref of shard) processing.push(ref.taskId);
        expect(processing).toEqual([running.taskId]);
      });

      it('deletes the outputs of a completed task once announced: deleting is listed for the sweeper, purge leaves no list; money unchanged', async () => {
        const accountId = await newAccount(100);
        const running = await inPhase(accountId, 'running');
        await move(stores.tasks, running, 'outputs', { at: at(2), set: { pendingOutputs: ['https://p/1'] } });
        const done = (await move(stores.tasks, running, 'complete', {
          at: at(3),
          set: { outputUrls: ['https://ours/1'], thumbnailUrl: 'https://ours/1.jpg', completedAt: at(3) },
          remove: ['pendingOutputs'],
        }))!;
        expect(done.unannounced).toBe(true);
        const deleteOutputs = (ms: number) => move(stores.tasks, done, 'deleteOutputs', { at: at(ms), set: { outputDeletedAt: at(ms) }, guard: { announced: true } });
        // Still in the outbox: its completion must be announced before it moves on.
        expect(await deleteOutputs(4)).toBeUndefined();
        const announced = (await move(stores.tasks, done, 'announce', { announced: true }))!;
        expect(announced.unannounced).toBeUndefined();
        const racing = await Promise.all([deleteOutputs(5), deleteOutputs(6)]);
        expect(winners(racing)).toHaveLength(1);
        const deleting = winners(racing)[0]!;
        expect(deleting).toMatchObject({ phase: 'deleting', status: 'completed', outputUrls: ['https://ours/1'], thumbnailUrl: 'https://ours/1.jpg' });
        const listed = async (list: InFlightList) => {
          const ids: string[] = [];
          for (const shard of stores.tasks.listInFlight(list)) for await (const ref of shard) ids.push(ref.taskId);
          return ids;
        };
        expect(await listed('deleting')).toEqual([done.taskId]);
        const purge = () => move(stores.tasks, deleting, 'purge', { at: at(7), remove: ['outputUrls', 'thumbnailUrl'] });
        const purged = winners(await Promise.all([purge(), purge()]));
        expect(purged).toHaveLength(1);
        expect(purged[0]).toMatchObject({ phase: 'output_deleted', status: 'completed', outputDeletedAt: deleting.outputDeletedAt, completedAt: at(3) });
        expect([purged[0]!.outputUrls, purged[0]!.thumbnailUrl]).toEqual([undefined, undefined]);
        expect(await stores.tasks.get(accountId, done.taskId)).toEqual(purged[0]);
        expect(await listed('deleting')).toEqual([]);
        // A failed task (nothing stored) takes the mark and keeps its phase.
        const failed = await inPhase(accountId, 'failed');
        expect(await move(stores.tasks, failed, 'markDeleted', { set: { outputDeletedAt: at(8) } })).toMatchObject({ phase: 'failed', outputDeletedAt: at(8), updatedAt: failed.updatedAt });
        const unannounced: string[] = [];
        for (const shard of stores.tasks.listUnannounced()) for await (const ref of shard) unannounced.push(ref.taskId);
        expect(unannounced).toEqual([failed.taskId]);
        expect(await money(accountId)).toMatchObject({ balance: 75, ledger: 75 });
      });

      it('lists announced completions by completion time for the retention, until their outputs are deleted', async () => {
        const accountId = await newAccount(1000);
        const completeAt = async (ms: number) => {
          const running = await inPhase(accountId, 'running');
          await move(stores.tasks, running, 'outputs', { at: at(ms), set: { pendingOutputs: ['https://p/1'] } });
          return (await move(stores.tasks, running, 'complete', { at: at(ms), set: { outputUrls: ['https://ours/1'], completedAt: at(ms) }, remove: ['pendingOutputs'] }))!;
        };
        const [late, early, middle] = [await completeAt(3_000), await completeAt(1_000), await completeAt(2_000)];
        const listed = async (before: string) => {
          const ids: string[] = [];
          for await (const ref of stores.tasks.listCompletedBefore(accountId, before)) ids.push(ref.taskId);
          return ids;
        };
        // Not before its completion is announced (it is in the outbox until then).
        expect(await listed(at(10_000))).toEqual([]);
        for (const task of [late, early, middle]) await move(stores.tasks, task, 'announce', { announced: true });
        expect(await listed(at(10_000))).toEqual([early.taskId, middle.taskId, late.taskId]);
        // Strictly before: a task completed at the cutoff is not listed.
        expect(await listed(at(2_000))).toEqual([early.taskId]);
        expect(await stores.tasks.listCompletedBefore(await newAccount(10), at(10_000))[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
        await move(stores.tasks, early, 'deleteOutputs', { at: at(4_000), set: { outputDeletedAt: at(4_000) }, guard: { announced: true } });
        expect(await listed(at(10_000))).toEqual([middle.taskId, late.taskId]);
      });

      it("keeps an account's output retention, lists the accounts that have one, and forgets it with null", async () => {
        const [a, b] = [await newAccount(10), await newAccount(10)];
        expect(await stores.accounts.setOutputRetention(a, 30, at(5), retentionChangeAudit(OPERATOR_STAMP, 30, new Date(at(5))))).toMatchObject({ accountId: a, outputRetentionDays: 30, credits: 10 });
        expect((await stores.accounts.get(a))!.outputRetentionDays).toBe(30);
        const withRetention = async () => {
          const ids: string[] = [];
          for (const shard of stores.accounts.listWithRetention()) for await (const id of shard) ids.push(id);
          return ids.sort();
        };
        await stores.accounts.setOutputRetention(b, 1, at(5), retentionChangeAudit(OPERATOR_STAMP, 1, new Date(at(5))));
        expect(await withRetention()).toEqual(expect.arrayContaining([a, b].sort()));
        // The same setting again writes nothing (no audit entry either).
        await stores.accounts.setOutputRetention(b, 1, at(5), retentionChangeAudit(OPERATOR_STAMP, 1, new Date(at(5))));
        const cleared = await stores.accounts.setOutputRetention(a, null, at(6), retentionChangeAudit(OPERATOR_STAMP, null, new Date(at(6))));
        const changes = async (accountId: string) =>
          (await stores.auditLog.page(accountId, undefined, 10)).entries.filter((entry) => entry.action === 'account.retention_changed').map((entry) => entry.details).reverse();
        expect(await changes(a)).toEqual([{ output_retention_days: { from: null, to: 30 } }, { output_retention_days: { from: 30, to: null } }]);
        expect(await changes(b)).toEqual([{ output_retention_days: { from: null, to: 1 } }]);
        expect(cleared.outputRetentionDays).toBeUndefined();
        expect(await withRetention()).not.toContain(a);
        await expect(stores.accounts.setOutputRetention('acc_01M7ZNHRE3YZJA4Y3XQS4DQDGQ', 5, at(7), retentionChangeAudit(OPERATOR_STAMP, 5, new Date(at(7))))).rejects.toBeInstanceOf(NotFoundError);
      });

      it("writes the domain's refund entry as given, once", async () => {
        const accountId = await newAccount(100);
        const task = await started(accountId);
        const patch = ending(task, 3);
        expect(await move(stores.tasks, task, 'fail', patch)).toMatchObject({ phase: 'failed' });
        expect(await move(stores.tasks, task, 'fail', ending(task, 4))).toBeUndefined();
        const refunds = (await money(accountId)).entries.filter((entry) => entry.kind === 'refund');
        expect(refunds).toEqual([patch.refund]);
        expect(patch.refund).toMatchObject({ amount: task.creditsUsed, taskId: task.taskId, reason: 'refund: video task failed', createdAt: at(3) });
      });
    });

    describe('webhook endpoints', () => {
      const endpointOf = (accountId: string, webhookId: string, overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
        webhookId,
        accountId,
        url: `https://example.com/hooks/${webhookId}`,
        events: ['video.completed', 'image.failed'],
        description: null,
        secret: `whsec_${webhookId}`,
        createdAt: at(0),
        lastTest: null,
        ...overrides,
      });

      const STAMP: AuditStamp = { actor: { type: 'key', id: 'key_1', email: null }, origin: { ip: '127.0.0.1', userAgent: 'jest' } };
      const entryOf = (accountId: string, id: string, action: 'webhook.created' | 'webhook.deleted') =>
        auditEntry(STAMP, accountId, action, { type: 'webhook', id }, {}, new Date(T0));
      const createWebhook = (endpoint: WebhookEndpoint, max: number) => stores.webhooks.create(endpoint, max, entryOf(endpoint.accountId, endpoint.webhookId, 'webhook.created'));
      const deleteWebhook = (accountId: string, id: string) => stores.webhooks.delete(accountId, id, entryOf(accountId, id, 'webhook.deleted'));

      it('stores an endpoint and reads it back within its account, lists oldest first, refuses a duplicate id', async () => {
        const [a, b] = [await newAccount(0), await newAccount(0)];
        const second = endpointOf(a, 'whk_02', { description: 'orders', createdAt: at(2) });
        const first = endpointOf(a, 'whk_01', { events: ['video.failed'] });
        expect(await createWebhook(second, 10)).toBe(true);
        expect(await createWebhook(first, 10)).toBe(true);
        expect(await stores.webhooks.get(a, 'whk_02')).toEqual(second);
        expect(await stores.webhooks.list(a)).toEqual([first, second]);
        expect(await stores.webhooks.get(b, 'whk_01')).toBeUndefined();
        expect(await stores.webhooks.list(b)).toEqual([]);
        await expect(createWebhook(endpointOf(a, 'whk_01'), 10)).rejects.toThrow();
        expect(await stores.webhooks.list(a)).toHaveLength(2);
        // The count lives with the account: no account, no endpoint.
        expect(await createWebhook(endpointOf('acc_nobody', 'whk_03'), 10)).toBe(false);
        expect(await stores.webhooks.get('acc_nobody', 'whk_03')).toBeUndefined();
      });

      it('holds an account to its limit under concurrent creates; a delete makes room once', async () => {
        const accountId = await newAccount(0);
        const created = await Promise.all(
          Array.from({ length: 6 }, (_, i) => createWebhook(endpointOf(accountId, `whk_0${i}`), 3)),
        );
        expect(created.filter(Boolean)).toHaveLength(3);
        const listed = await stores.webhooks.list(accountId);
        expect(listed).toHaveLength(3);
        expect(await createWebhook(endpointOf(accountId, 'whk_10'), 3)).toBe(false);
        const results = await Promise.all([1, 2, 3].map(() => deleteWebhook(accountId, listed[0]!.webhookId)));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await stores.webhooks.get(accountId, listed[0]!.webhookId)).toBeUndefined();
        expect(await deleteWebhook(accountId, 'whk_unknown')).toBe(false);
        expect(await createWebhook(endpointOf(accountId, 'whk_11'), 3)).toBe(true);
        expect(await createWebhook(endpointOf(accountId, 'whk_12'), 3)).toBe(false);
      });

      it('records a test event for one of racing claims, and only over the last one seen', async () => {
        const accountId = await newAccount(0);
        await createWebhook(endpointOf(accountId, 'whk_01'), 10);
        const seen = (await stores.webhooks.get(accountId, 'whk_01'))!;
        const tests = ['evt_1', 'evt_2', 'evt_3', 'evt_4'].map((eventId, i) => ({ eventId, at: at(i) }));
        const claims = await Promise.all(tests.map((test) => stores.webhooks.claimTest(seen, test)));
        expect(claims.filter(Boolean)).toHaveLength(1);
        const latest = (await stores.webhooks.get(accountId, 'whk_01'))!;
        expect(latest.lastTest).toEqual(tests[claims.indexOf(true)]);
        expect(await stores.webhooks.claimTest(seen, { eventId: 'evt_5', at: at(5) })).toBe(false);
        expect(await stores.webhooks.claimTest(latest, { eventId: 'evt_6', at: at(6) })).toBe(true);
        expect((await stores.webhooks.get(accountId, 'whk_01'))?.lastTest).toEqual({ eventId: 'evt_6', at: at(6) });
        await deleteWebhook(accountId, 'whk_01');
        expect(await stores.webhooks.claimTest({ ...latest, lastTest: { eventId: 'evt_6', at: at(6) } }, { eventId: 'evt_7', at: at(7) })).toBe(false);
      });
      // Issue 36: one entry per create and delete, in their own transaction; none for a refused one.
      it('writes one entry per endpoint made or deleted, none for one refused by the limit or already gone', async () => {
        const accountId = await newAccount(0);
        await createWebhook(endpointOf(accountId, 'whk_01'), 1);
        expect(await createWebhook(endpointOf(accountId, 'whk_02'), 1)).toBe(false);
        expect(await Promise.all([1, 2].map(() => deleteWebhook(accountId, 'whk_01')))).toEqual(expect.arrayContaining([true, false]));
        const entries = (await stores.auditLog.page(accountId, undefined, 10)).entries;
        expect(entries.map((entry) => `${entry.action} ${entry.target.id}`)).toEqual(['webhook.deleted whk_01', 'webhook.created whk_01']);
        // The entry's id taken: the endpoint is not made either.
        const taken = entries[0]!;
        await expect(stores.webhooks.create(endpointOf(accountId, 'whk_03'), 10, taken)).rejects.toThrow();
        expect(await stores.webhooks.get(accountId, 'whk_03')).toBeUndefined();
      });
    });

    describe('webhook deliveries', () => {
      async function newEndpoint(accountId?: string): Promise<{ accountId: string; webhookId: string }> {
        accountId ??= await newAccount(0);
        const webhookId = `whk_${newLedgerEntryId()}`;
        const endpoint: WebhookEndpoint = {
          webhookId,
          accountId,
          url: 'https://example.com/hook',
          events: ['video.completed'],
          description: null,
          secret: 'whsec_x',
          createdAt: at(0),
          lastTest: null,
        };
        if (!(await stores.webhooks.create(endpoint, 10, anEntry(accountId, webhookId)))) throw new Error('endpoint not created');
        return { accountId, webhookId };
      }
      const deliveryOf = (endpoint: { accountId: string; webhookId: string }, eventId: string, overrides: Partial<Delivery> = {}): Delivery => ({
        ...endpoint,
        eventId,
        type: 'video.completed',
        payload: `{"id":"${eventId}"}`,
        status: 'pending',
        attempts: 0,
        lastStatusCode: null,
        lastError: null,
        lastAttemptAt: null,
        nextAttemptAt: at(0),
        createdAt: at(0),
        ...overrides,
      });
      const messageOf = (delivery: Delivery): DeliveryMessage => ({ accountId: delivery.accountId, webhookId: delivery.webhookId, eventId: delivery.eventId });
      const retry = (attempts: number, nextAttemptAt: string | null, lastError = 'HTTP 500'): AttemptOutcome => ({
        status: nextAttemptAt ? 'pending' : 'failed',
        attempts,
        lastStatusCode: 500,
        lastError,
        lastAttemptAt: at(attempts * 1000),
        nextAttemptAt,
      });

      it('records one delivery per endpoint and event, and none for an endpoint that is gone', async () => {
        const endpoint = await newEndpoint();
        const other = await newEndpoint(endpoint.accountId);
        const delivery = deliveryOf(endpoint, 'evt_1');
        const creates = await Promise.all([1, 2, 3].map(() => stores.deliveries.create(delivery)));
        expect(creates.filter(Boolean)).toHaveLength(1);
        expect(await stores.deliveries.get(messageOf(delivery))).toEqual(delivery);
        // The repeats took no position in the endpoint's list.
        expect(await stores.deliveries.listPage(endpoint.accountId, endpoint.webhookId, 1, 10)).toEqual({ deliveries: [delivery], total: 1 });
        expect(await stores.deliveries.create({ ...delivery, payload: 'another body' })).toBe(false);
        expect((await stores.deliveries.get(messageOf(delivery)))?.payload).toBe(delivery.payload);
        expect(await stores.deliveries.create(deliveryOf(other, 'evt_1'))).toBe(true);
        expect(await stores.deliveries.get({ ...messageOf(delivery), accountId: 'acc_nobody' })).toBeUndefined();
        await stores.webhooks.delete(other.accountId, other.webhookId, anEntry(other.accountId, other.webhookId));
        expect(await stores.deliveries.create(deliveryOf(other, 'evt_2'))).toBe(false);
        expect(await stores.deliveries.get(messageOf(deliveryOf(other, 'evt_2')))).toBeUndefined();
      });

      it('numbers concurrent deliveries to one endpoint 1..n, with their repeats taking no position', async () => {
        const endpoint = await newEndpoint();
        const deliveries = Array.from({ length: 8 }, (_, i) => deliveryOf(endpoint, `evt_${i}`));
        const creates = await Promise.all([...deliveries, ...deliveries].map((delivery) => stores.deliveries.create(delivery)));
        expect(creates.filter(Boolean)).toHaveLength(8);
        const page = await stores.deliveries.listPage(endpoint.accountId, endpoint.webhookId, 1, 20);
        expect(page.total).toBe(8);
        expect(page.deliveries.map((delivery) => delivery.eventId).sort()).toEqual(deliveries.map((delivery) => delivery.eventId).sort());
      });

      it('saves an attempt only over the one seen, with its last error, for one of racing attempts', async () => {
        const endpoint = await newEndpoint();
        const delivery = deliveryOf(endpoint, 'evt_1');
        await stores.deliveries.create(delivery);
        const outcomes = ['HTTP 500', 'connection refused', 'timeout after 10 s'].map((error) => retry(1, at(60_000), error));
        const saved = await Promise.all(outcomes.map((outcome) => stores.deliveries.recordAttempt(delivery, outcome)));
        expect(saved.filter(Boolean)).toHaveLength(1);
        const afterOne = (await stores.deliveries.get(messageOf(delivery)))!;
        expect(afterOne).toEqual({ ...delivery, ...outcomes[saved.indexOf(true)] });
        expect(await stores.deliveries.recordAttempt(delivery, retry(1, at(61_000)))).toBe(false);
        const delivered: AttemptOutcome = { status: 'delivered', attempts: 2, lastStatusCode: 204, lastError: null, lastAttemptAt: at(70_000), nextAttemptAt: null };
        expect(await stores.deliveries.recordAttempt(afterOne, delivered)).toBe(true);
        expect(await stores.deliveries.get(messageOf(delivery))).toEqual({ ...delivery, ...delivered });
        // Final: no attempt is recorded over it.
        expect(await stores.deliveries.recordAttempt({ ...afterOne, ...delivered }, retry(3, at(80_000)))).toBe(false);
        const missing = deliveryOf(endpoint, 'evt_missing');
        expect(await stores.deliveries.recordAttempt(missing, retry(1, at(1)))).toBe(false);
        expect(await stores.deliveries.get(messageOf(missing))).toBeUndefined();
      });

      it('lists the pending deliveries due before a time, in every account, each shard soonest first', async () => {
        const [a, b] = [await newEndpoint(), await newEndpoint()];
        const due = [deliveryOf(a, 'evt_a1', { nextAttemptAt: at(3_000) }), deliveryOf(b, 'evt_b1', { nextAttemptAt: at(1_000) })];
        const moved = deliveryOf(a, 'evt_a2', { nextAttemptAt: at(2_000) });
        const retried = deliveryOf(b, 'evt_b2', { nextAttemptAt: at(500) });
        const delivered = deliveryOf(a, 'evt_a3', { nextAttemptAt: at(100) });
        const failed = deliveryOf(b, 'evt_b3', { nextAttemptAt: at(200) });
        const exactlyAtCutoff = deliveryOf(a, 'evt_a4', { nextAttemptAt: at(10_000) });
        const unscheduled = deliveryOf(b, 'evt_b4', { nextAttemptAt: null });
        for (const delivery of [...due, moved, retried, delivered, failed, exactlyAtCutoff, unscheduled]) {
          expect(await stores.deliveries.create(delivery)).toBe(true);
        }
        await stores.deliveries.recordAttempt(moved, retry(1, at(20_000)));
        await stores.deliveries.recordAttempt(retried, retry(1, at(4_000)));
        await stores.deliveries.recordAttempt(delivered, { ...retry(1, null), status: 'delivered', lastStatusCode: 200, lastError: null });
        await stores.deliveries.recordAttempt(failed, retry(1, null));
        const dueAt = new Map([...due, retried].map((delivery) => [delivery.eventId, delivery]));
        const listed: DeliveryMessage[] = [];
        for (const shard of stores.deliveries.listDue(at(10_000))) {
          const inShard: DeliveryMessage[] = [];
          for await (const message of shard) inShard.push(message);
          const times = await Promise.all(inShard.map(async (message) => (await stores.deliveries.get(message))!.nextAttemptAt!));
          expect(times).toEqual([...times].sort());
          listed.push(...inShard);
        }
        const byEvent = (x: DeliveryMessage, y: DeliveryMessage) => (x.eventId < y.eventId ? -1 : 1);
        expect(listed.sort(byEvent)).toEqual([...dueAt.values()].map(messageOf).sort(byEvent));
      });

      it("pages an endpoint's deliveries newest first, with how many it has had", async () => {
        const endpoint = await newEndpoint();
        const other = await newEndpoint(endpoint.accountId);
        const events = ['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5'];
        for (const eventId of events) await stores.deliveries.create(deliveryOf(endpoint, eventId));
        await stores.deliveries.create(deliveryOf(other, 'evt_9'));
        const ids = (page: { deliveries: Delivery[] }) => page.deliveries.map((delivery) => delivery.eventId);
        const first = await stores.deliveries.listPage(endpoint.accountId, endpoint.webhookId, 1, 2);
        expect([ids(first), first.total]).toEqual([['evt_5', 'evt_4'], 5]);
        expect(first.deliveries[0]).toEqual(deliveryOf(endpoint, 'evt_5'));
        expect(ids(await stores.deliveries.listPage(endpoint.accountId, endpoint.webhookId, 3, 2))).toEqual(['evt_1']);
        expect(await stores.deliveries.listPage(endpoint.accountId, endpoint.webhookId, 4, 2)).toEqual({ deliveries: [], total: 5 });
        expect(ids(await stores.deliveries.listPage(other.accountId, other.webhookId, 1, 10))).toEqual(['evt_9']);
        expect(await stores.deliveries.listPage(endpoint.accountId, 'whk_unknown', 1, 10)).toEqual({ deliveries: [], total: 0 });
      });
    });

    describe('upload publications', () => {
      const answer = { url: 'https://media.test/uploads/u1.png', contentType: 'image/png' as const, size: 1234 };

      it('one of racing claims wins; the answer, once recorded, is read back and ends every claim', async () => {
        const now = new Date(T0);
        expect(await stores.uploadPublications.get('acc_a', 'up_1')).toBeUndefined();
        const claims = await Promise.all(Array.from({ length: 5 }, () => stores.uploadPublications.claim('acc_a', 'up_1', now, 60)));
        expect(claims.filter(Boolean)).toHaveLength(1);
        expect(await stores.uploadPublications.get('acc_a', 'up_1')).toEqual({});
        expect(await stores.uploadPublications.claim('acc_b', 'up_1', now, 60)).toBe(true);
        expect(await stores.uploadPublications.claim('acc_a', 'up_2', now, 60)).toBe(true);
        await stores.uploadPublications.recordAnswer('acc_a', 'up_1', answer, now);
        expect(await stores.uploadPublications.get('acc_a', 'up_1')).toEqual({ answer });
        expect(await stores.uploadPublications.claim('acc_a', 'up_1', new Date(T0 + 3_600_000), 60)).toBe(false);
        expect(await stores.uploadPublications.get('acc_b', 'up_1')).toEqual({});
      });

      it('lets a claim left unanswered be taken over after staleAfterSeconds (whole seconds), and a released one at once', async () => {
        // Claimed late in a second: stale from the same second, staleAfterSeconds later.
        expect(await stores.uploadPublications.claim('acc_a', 'up_1', new Date(T0 + 900), 60)).toBe(true);
        expect(await stores.uploadPublications.claim('acc_a', 'up_1', new Date(T0 + 59_999), 60)).toBe(false);
        expect(await stores.uploadPublications.claim('acc_a', 'up_1', new Date(T0 + 60_100), 60)).toBe(true);
        expect(await stores.uploadPublications.claim('acc_a', 'up_1', new Date(T0 + 60_200), 60)).toBe(false);
        await stores.uploadPublications.release('acc_a', 'up_1');
        expect(await stores.uploadPublications.get('acc_a', 'up_1')).toBeUndefined();
        expect(await stores.uploadPublications.claim('acc_a', 'up_1', new Date(T0 + 60_300), 60)).toBe(true);
      });
    });

    // Issue 36: holders and their memberships (the pair ACCOUNT#a/MEMBER#h and HOLDER#h/MEMBERSHIP#a).
    describe('team: holders and memberships', () => {
      const holderOf = (accountId: string, n: number, createdAt = at(n)): Holder => ({ holderId: `holder-${n}-${accountId}`, accountId, email: `h${n}@example.com`, createdAt });

      it('a first sign-in writes the holder, the account with its grant, and the holder as its owner, at once; a second for the holder creates nothing', async () => {
        const account = newHolderAccount(newAccountId(), 100, at(0));
        const holder = holderOf(account.accountId, 1, at(0));
        await stores.holders.createWithAccount(holder, account, grantOf(account.accountId, 100));
        expect(await stores.holders.withMemberships(holder.holderId)).toEqual({
          holder: { ...holder, teamsAt: at(0) },
          memberships: [{ accountId: account.accountId, role: 'owner', joinedAt: at(0) }],
        });
        expect(await stores.holders.get(holder.holderId)).toEqual({ ...holder, teamsAt: at(0) });
        expect((await stores.accounts.get(account.accountId))?.credits).toBe(100);

        const other = newHolderAccount(newAccountId(), 100, at(1));
        await expect(stores.holders.createWithAccount({ ...holder, accountId: other.accountId }, other)).rejects.toBeInstanceOf(HolderExistsError);
        expect(await stores.accounts.get(other.accountId)).toBeUndefined();
        expect((await stores.holders.withMemberships(holder.holderId))?.memberships).toHaveLength(1);
        expect(await stores.holders.withMemberships('nobody')).toBeUndefined();
      });

      it('of two first sign-ins at once, one opens an account and the other is told the holder exists', async () => {
        const [a, b] = [newHolderAccount(newAccountId(), 0, at(0)), newHolderAccount(newAccountId(), 0, at(0))];
        const holder = holderOf('x', 2);
        const results = await Promise.allSettled([a, b].map((account) => stores.holders.createWithAccount({ ...holder, accountId: account.accountId }, account)));
        expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
        const winner = results[0]!.status === 'fulfilled' ? a : b;
        const loser = winner === a ? b : a;
        expect(await stores.accounts.get(loser.accountId)).toBeUndefined();
        expect((await stores.holders.withMemberships(holder.holderId))?.memberships).toEqual([{ accountId: winner.accountId, role: 'owner', joinedAt: at(2) }]);
      });

      it('attaches a new holder to an existing account with a role; an unknown account or a known holder is refused and writes nothing', async () => {
        const accountId = await newAccount(0);
        const holder = holderOf(accountId, 3);
        await stores.holders.attach(holder, 'developer');
        expect((await stores.holders.withMemberships(holder.holderId))?.memberships).toEqual([{ accountId, role: 'developer', joinedAt: at(3) }]);
        await expect(stores.holders.attach(holder, 'viewer')).rejects.toBeInstanceOf(HolderExistsError);
        const stray = holderOf(newAccountId(), 4);
        await expect(stores.holders.attach(stray, 'owner')).rejects.toBeInstanceOf(NotFoundError);
        expect(await stores.holders.withMemberships(stray.holderId)).toBeUndefined();
        expect((await stores.holders.withMemberships(holder.holderId))?.memberships).toEqual([{ accountId, role: 'developer', joinedAt: at(3) }]);
      });

      it('adopts a holder from before teams as the owner of their account, once, however many sign-ins race to', async () => {
        const accountId = await newAccount(0);
        const holder = holderOf(accountId, 5);
        await legacyHolder(holder);
        expect(await stores.holders.withMemberships(holder.holderId)).toEqual({ holder, memberships: [] });
        await Promise.all([1, 2, 3].map(() => stores.holders.adoptLegacy(holder, at(10))));
        expect(await stores.holders.withMemberships(holder.holderId)).toEqual({
          holder: { ...holder, teamsAt: at(10) },
          memberships: [{ accountId, role: 'owner', joinedAt: at(10) }],
        });
        await stores.holders.adoptLegacy(holder, at(20));
        expect((await stores.holders.withMemberships(holder.holderId))?.memberships).toEqual([{ accountId, role: 'owner', joinedAt: at(10) }]);
      });

      it('adds a holder to another account with its entry in the same write; a refused add writes neither', async () => {
        const [home, other] = [await newAccount(0), await newAccount(0)];
        const holder = holderOf(home, 6);
        await stores.holders.attach(holder, 'owner');
        const joined = (accountId: string, n: number) => auditEntry(OPERATOR_STAMP, accountId, 'member.joined', { type: 'member', id: holder.holderId }, { role: 'viewer' }, new Date(T0 + n));
        const entry = joined(other, 1);
        await stores.team.add(other, holder.holderId, 'viewer', at(7), entry);
        expect((await stores.holders.withMemberships(holder.holderId))?.memberships.sort((a, b) => (a.joinedAt < b.joinedAt ? -1 : 1))).toEqual([
          { accountId: home, role: 'owner', joinedAt: at(6) },
          { accountId: other, role: 'viewer', joinedAt: at(7) },
        ]);
        expect((await stores.auditLog.page(other, undefined, 10)).entries).toEqual([entry]);

        await expect(stores.team.add(other, holder.holderId, 'admin', at(8), joined(other, 2))).rejects.toMatchObject({ name: 'AlreadyMemberError', field: 'email' });
        await expect(stores.team.add(newAccountId(), holder.holderId, 'admin', at(8), joined(other, 3))).rejects.toBeInstanceOf(NotFoundError);
        await expect(stores.team.add(home, 'nobody', 'admin', at(8), joined(home, 4))).rejects.toBeInstanceOf(NotFoundError);
        // A failing audit Put (its id taken) leaves the change unapplied.
        const third = await newAccount(0);
        await expect(stores.team.add(third, holder.holderId, 'admin', at(9), { ...entry, accountId: other })).rejects.toThrow();
        expect((await stores.holders.withMemberships(holder.holderId))?.memberships.map((m) => [m.accountId, m.role]).sort()).toEqual(
          [[home, 'owner'], [other, 'viewer']].sort(),
        );
        expect((await stores.auditLog.page(other, undefined, 10)).entries).toEqual([entry]);
        expect((await stores.auditLog.page(home, undefined, 10)).entries).toEqual([]);
      });
    });

    // Issue 36: an account's members, changed only while an owner remains.
    describe('team: member changes', () => {
      const stamp: AuditStamp = { actor: { type: 'holder', id: 'h-a', email: 'a@example.com' }, origin: { ip: null, userAgent: null } };
      /** An account whose first sign-in made h-a its owner, with h-b and h-c attached as `roles`. */
      async function team(roles: { b: Role; c: Role }, prefix = 'h') {
        const account = newHolderAccount(newAccountId(), 0, at(0));
        await stores.holders.createWithAccount({ holderId: `${prefix}-a`, accountId: account.accountId, email: 'a@example.com', createdAt: at(0) }, account);
        await stores.holders.attach({ holderId: `${prefix}-b`, accountId: account.accountId, email: 'b@example.com', createdAt: at(1) }, roles.b);
        await stores.holders.attach({ holderId: `${prefix}-c`, accountId: account.accountId, email: 'c@example.com', createdAt: at(2) }, roles.c);
        return account.accountId;
      }
      const entryOf = (accountId: string, n: number) => auditEntry(stamp, accountId, 'member.role_changed', { type: 'member', id: 'h-b' }, {}, new Date(T0 + n));
      const owners = async (accountId: string) => (await stores.team.state(accountId, [])).owners;

      it('lists members with their emails, earliest joined first, and reads roles and the owner count at once', async () => {
        const accountId = await team({ b: 'developer', c: 'owner' });
        expect(await stores.team.list(accountId)).toEqual([
          { holderId: 'h-a', email: 'a@example.com', role: 'owner', joinedAt: at(0) },
          { holderId: 'h-b', email: 'b@example.com', role: 'developer', joinedAt: at(1) },
          { holderId: 'h-c', email: 'c@example.com', role: 'owner', joinedAt: at(2) },
        ]);
        const state = await stores.team.state(accountId, ['h-b', 'h-x']);
        expect([state.owners, [...state.roles]]).toEqual([2, [['h-b', 'developer']]]);
      });

      it('changes a role with its entry only as read: another role read, the actor moved, or the last owner leaving writes neither', async () => {
        const accountId = await team({ b: 'owner', c: 'admin' });
        const owner = { holderId: 'h-a', role: 'owner' as const };
        expect(await stores.team.changeRole(accountId, 'h-b', 'developer', 'viewer', owner, entryOf(accountId, 1))).toBe(false);
        expect(await stores.team.changeRole(accountId, 'h-b', 'owner', 'viewer', { holderId: 'h-a', role: 'admin' }, entryOf(accountId, 2))).toBe(false);
        expect((await stores.auditLog.page(accountId, undefined, 10)).entries).toEqual([]);
        const entry = entryOf(accountId, 3);
        expect(await stores.team.changeRole(accountId, 'h-b', 'owner', 'viewer', owner, entry)).toBe(true);
        expect((await stores.auditLog.page(accountId, undefined, 10)).entries).toEqual([entry]);
        expect((await stores.holders.withMemberships('h-b'))?.memberships).toEqual([{ accountId, role: 'viewer', joinedAt: at(1) }]);
        expect(await owners(accountId)).toBe(1);
        // The last owner, demoting themselves: refused by the write itself too.
        expect(await stores.team.changeRole(accountId, 'h-a', 'owner', 'admin', owner, entryOf(accountId, 4))).toBe(false);
        expect(await owners(accountId)).toBe(1);
      });

      it('removes a member with its entry (both sides of the pair), never the last owner', async () => {
        const accountId = await team({ b: 'viewer', c: 'admin' });
        const entry = auditEntry(stamp, accountId, 'member.removed', { type: 'member', id: 'h-b' }, {}, new Date(T0 + 5));
        expect(await stores.team.remove(accountId, 'h-b', 'viewer', { holderId: 'h-c', role: 'admin' }, entry)).toBe(true);
        expect((await stores.team.list(accountId)).map((member) => member.holderId)).toEqual(['h-a', 'h-c']);
        expect((await stores.holders.withMemberships('h-b'))?.memberships).toEqual([]);
        expect(await stores.team.remove(accountId, 'h-a', 'owner', null, auditEntry(stamp, accountId, 'member.removed', { type: 'member', id: 'h-a' }, {}, new Date(T0 + 6)))).toBe(false);
        expect((await stores.auditLog.page(accountId, undefined, 10)).entries).toEqual([entry]);
      });

      it('two owners demoting each other at once: one commits, the other is 409 last_owner; one owner row, counted', async () => {
        for (let round = 0; round < 5; round += 1) {
          const accountId = await team({ b: 'owner', c: 'viewer' }, `r${round}`);
          const [a, b] = [`r${round}-a`, `r${round}-b`];
          const results = await Promise.allSettled([
            changeMemberRole(stores.team, { accountId, holderId: b, role: 'admin', actor: { holderId: a, role: 'owner' } }, stamp, new Date(T0)),
            changeMemberRole(stores.team, { accountId, holderId: a, role: 'admin', actor: { holderId: b, role: 'owner' } }, stamp, new Date(T0)),
          ]);
          expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
          expect(results.find((result) => result.status === 'rejected')).toMatchObject({ reason: expect.any(LastOwnerError) });
          const list = await stores.team.list(accountId);
          expect(list.filter((member) => member.role === 'owner')).toHaveLength(1);
          expect(await owners(accountId)).toBe(1);
          expect((await stores.auditLog.page(accountId, undefined, 10)).entries.map((entry) => entry.action)).toEqual(['member.role_changed']);
          // Then the remaining owner cannot leave either way.
          const last = list.find((member) => member.role === 'owner')!.holderId;
          await expect(removeMember(stores.team, { accountId, holderId: last, actor: { holderId: last, role: 'owner' } }, stamp, new Date(T0))).rejects.toBeInstanceOf(LastOwnerError);
        }
      });
    });

    // Issue 36: invitations (ACCOUNT#a/INVITATION#<hash>, the daily INVITES# quota), each write with its entry.
    describe('team: invitations', () => {
      const DAY = 24 * 60 * 60 * 1000;
      const stamp: AuditStamp = { actor: { type: 'holder', id: 'i-a', email: 'a@example.com' }, origin: { ip: null, userAgent: null } };
      const owner = { holderId: 'i-a', role: 'owner' as const };
      const quota = (max = 100, day = '2026-03-01') => ({ day, max });
      let n = 0;
      /** An invitation made `ms` after T0, open for 7 days. */
      const invitationOf = (accountId: string, email: string, ms: number, overrides: Partial<Invitation> = {}): Invitation => ({
        invitationId: `inv_${String((n += 1)).padStart(26, '0')}`,
        accountId,
        email,
        role: 'developer',
        invitedBy: 'i-a',
        createdAt: at(ms),
        expiresAt: at(ms + 7 * DAY),
        ...overrides,
      });
      const entryOf = (invitation: Invitation, action: 'member.invited' | 'member.joined' | 'invitation.revoked' = 'member.invited') =>
        auditEntry(stamp, invitation.accountId, action, { type: 'invitation', id: invitation.invitationId }, { email: invitation.email }, new Date(T0 + (n += 1)));
      const actions = async (accountId: string) => (await stores.auditLog.page(accountId, undefined, 100)).entries.map((entry) => entry.action).reverse();
      /** i-a's account (its owner), and i-x, a holder with an account of their own. */
      async function accounts() {
        const account = newHolderAccount(newAccountId(), 0, at(0));
        await stores.holders.createWithAccount({ holderId: 'i-a', accountId: account.accountId, email: 'a@example.com', createdAt: at(0) }, account);
        const own = newHolderAccount(newAccountId(), 0, at(0));
        await stores.holders.createWithAccount({ holderId: 'i-x', accountId: own.accountId, email: 'x@example.com', createdAt: at(0) }, own);
        return { accountId: account.accountId, own: own.accountId };
      }
      /** The address's invitations (gsi1: a moment behind a write). */
      const forEmail = (email: string, now: string, count: number) =>
        pollUntil(async () => {
          const found = await stores.invitations.forEmail(email, now);
          return found.length === count && found;
        }, { what: `${count} invitations to ${email}` });

      it('stores an invitation with its entry and replaces the open one to the same address; by account and by address, newest first', async () => {
        const { accountId, own } = await accounts();
        const first = invitationOf(accountId, 'x@example.com', 1);
        expect(await stores.invitations.invite(first, owner, entryOf(first), quota())).toBe('invited');
        const other = invitationOf(accountId, 'y@example.com', 2, { role: 'viewer' });
        expect(await stores.invitations.invite(other, owner, entryOf(other), quota())).toBe('invited');
        expect(await stores.invitations.forAccount(accountId, at(3))).toEqual([other, first]);
        expect(await forEmail('x@example.com', at(3), 1)).toEqual([first]);
        const again = invitationOf(accountId, 'x@example.com', 4, { role: 'admin' });
        expect(await stores.invitations.invite(again, owner, entryOf(again), quota())).toBe('invited');
        expect(await stores.invitations.forAccount(accountId, at(5))).toEqual([again, other]);
        expect(await pollUntil(async () => {
          const found = await stores.invitations.forEmail('x@example.com', at(5));
          return found[0]?.invitationId === again.invitationId && found;
        })).toEqual([again]);
        expect(await actions(accountId)).toEqual(['member.invited', 'member.invited', 'member.invited']);
        expect(await stores.invitations.forAccount(own, at(5))).toEqual([]);
      });

      it('counts invitations per account and day: past the quota, or with the actor moved, nothing is written', async () => {
        const { accountId, own } = await accounts();
        const made = [1, 2].map((ms) => invitationOf(accountId, `q${ms}@example.com`, ms));
        for (const invitation of made) expect(await stores.invitations.invite(invitation, owner, entryOf(invitation), quota(2))).toBe('invited');
        const third = invitationOf(accountId, 'q3@example.com', 3);
        expect(await stores.invitations.invite(third, owner, entryOf(third), quota(2))).toBe('quota');
        // Another day, another count; another account, its own.
        expect(await stores.invitations.invite(third, owner, entryOf(third), quota(2, '2026-03-02'))).toBe('invited');
        const elsewhere = invitationOf(own, 'q4@example.com', 4);
        expect(await stores.invitations.invite(elsewhere, { holderId: 'i-x', role: 'owner' }, entryOf(elsewhere), quota(2))).toBe('invited');
        // The actor as read is no longer so (i-a is an owner, not an admin).
        const moved = invitationOf(accountId, 'q5@example.com', 5);
        expect(await stores.invitations.invite(moved, { holderId: 'i-a', role: 'admin' }, entryOf(moved), quota(10, '2026-03-03'))).toBe('moved');
        expect((await stores.invitations.forAccount(accountId, at(6))).map((each) => each.email).sort()).toEqual(['q1@example.com', 'q2@example.com', 'q3@example.com']);
        expect(await actions(accountId)).toEqual(['member.invited', 'member.invited', 'member.invited']);
      });

      it('leaves out expired invitations from both reads', async () => {
        const { accountId } = await accounts();
        const invitation = invitationOf(accountId, 'e@example.com', 1, { expiresAt: at(100) });
        await stores.invitations.invite(invitation, owner, entryOf(invitation), quota());
        expect(await forEmail('e@example.com', at(99), 1)).toEqual([invitation]);
        expect(await stores.invitations.forAccount(accountId, at(99))).toEqual([invitation]);
        expect(await stores.invitations.forAccount(accountId, at(100))).toEqual([]);
        expect(await stores.invitations.forEmail('e@example.com', at(100))).toEqual([]);
        // Nor can it be accepted then.
        expect(await stores.invitations.accept(invitation, 'i-x', at(100), entryOf(invitation, 'member.joined'))).toBe('gone');
      });

      it('accepts once: the invitation used up, both sides of the membership, the counters and the entry in one write', async () => {
        const { accountId, own } = await accounts();
        const replaced = invitationOf(accountId, 'x@example.com', 1, { role: 'owner' });
        await stores.invitations.invite(replaced, owner, entryOf(replaced), quota());
        const invitation = invitationOf(accountId, 'x@example.com', 2, { role: 'owner' });
        await stores.invitations.invite(invitation, owner, entryOf(invitation), quota());
        // The replaced one is gone, whoever holds its id.
        expect(await stores.invitations.accept(replaced, 'i-x', at(3), entryOf(replaced, 'member.joined'))).toBe('gone');
        const joined = entryOf(invitation, 'member.joined');
        expect(await stores.invitations.accept(invitation, 'i-x', at(3), joined)).toBe('joined');
        expect((await stores.holders.withMemberships('i-x'))?.memberships.map((each) => [each.accountId, each.role]).sort()).toEqual(
          [[accountId, 'owner'], [own, 'owner']].sort(),
        );
        expect((await stores.team.list(accountId)).map((member) => [member.holderId, member.role])).toEqual([['i-a', 'owner'], ['i-x', 'owner']]);
        expect((await stores.team.state(accountId, [])).owners).toBe(2);
        expect(await stores.invitations.forAccount(accountId, at(4))).toEqual([]);
        expect((await stores.auditLog.page(accountId, undefined, 10)).entries[0]).toEqual(joined);
        expect(await stores.invitations.accept(invitation, 'i-x', at(4), entryOf(invitation, 'member.joined'))).toBe('gone');
        // A member invited again (an operator's invitation, say) cannot use it: nothing is written.
        const twice = invitationOf(accountId, 'x@example.com', 5);
        await stores.invitations.invite(twice, null, entryOf(twice), quota());
        expect(await stores.invitations.accept(twice, 'i-x', at(6), entryOf(twice, 'member.joined'))).toBe('member');
        expect(await stores.invitations.forAccount(accountId, at(6))).toEqual([twice]);
        expect(await actions(accountId)).toEqual(['member.invited', 'member.invited', 'member.joined', 'member.invited']);
      });

      it('revokes only the invitation read, while the actor holds the role read, with its entry', async () => {
        const { accountId } = await accounts();
        const invitation = invitationOf(accountId, 'r@example.com', 1);
        await stores.invitations.invite(invitation, owner, entryOf(invitation), quota());
        expect(await stores.invitations.revoke(invitation, { holderId: 'i-a', role: 'admin' }, entryOf(invitation, 'invitation.revoked'))).toBe('moved');
        const replacement = invitationOf(accountId, 'r@example.com', 2);
        await stores.invitations.invite(replacement, owner, entryOf(replacement), quota());
        expect(await stores.invitations.revoke(invitation, owner, entryOf(invitation, 'invitation.revoked'))).toBe('gone');
        expect(await stores.invitations.revoke(replacement, owner, entryOf(replacement, 'invitation.revoked'))).toBe('revoked');
        expect(await stores.invitations.forAccount(accountId, at(3))).toEqual([]);
        expect(await stores.invitations.revoke(replacement, owner, entryOf(replacement, 'invitation.revoked'))).toBe('gone');
        expect(await actions(accountId)).toEqual(['member.invited', 'member.invited', 'invitation.revoked']);
      });
    });

    // Issue 36: the audit log's own reads and writes; the changes that write an entry with them are in their own sections.
    describe('audit log', () => {
      const stamp: AuditStamp = { actor: { type: 'holder', id: 'holder-1', email: 'a@example.com' }, origin: { ip: '127.0.0.1', userAgent: 'jest' } };
      const entryFor = (accountId: string, n: number): AuditEntry =>
        auditEntry(stamp, accountId, 'key.created', { type: 'key', id: `key_${n}` }, { name: `key ${n}` }, new Date(T0 + n));

      it('pages newest first with hasMore, each page older than its cursor, 250 entries in pages of 100', async () => {
        const [a, b] = [newAccountId(), newAccountId()];
        const written: AuditEntry[] = [];
        for (let n = 0; n < 250; n += 25) {
          const batch = Array.from({ length: 25 }, (_, i) => entryFor(a, n + i));
          written.push(...batch);
          await Promise.all(batch.map((entry) => stores.auditLog.record(entry)));
        }
        const other = entryFor(b, 0);
        await stores.auditLog.record(other);
        const seen: AuditEntry[] = [];
        const more: boolean[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await stores.auditLog.page(a, after, 100);
          seen.push(...page.entries);
          more.push(page.hasMore);
          if (!page.hasMore) break;
          after = page.entries.at(-1)!.id;
        }
        expect(more).toEqual([true, true, false]);
        expect(seen).toEqual([...written].reverse());
        expect(await stores.auditLog.page(b, undefined, 10)).toEqual({ entries: [other], hasMore: false });
        // Exactly a page left: no next page.
        const last = await stores.auditLog.page(a, written[3]!.id, 3);
        expect(last).toEqual({ entries: [written[2], written[1], written[0]], hasMore: false });
        // An id older than everything, or of another account, only moves the cursor inside this account.
        expect(await stores.auditLog.page(a, written[0]!.id, 10)).toEqual({ entries: [], hasMore: false });
        expect(await stores.auditLog.page(newAccountId(), undefined, 10)).toEqual({ entries: [], hasMore: false });
      });

      it('refuses a second entry with the same id and keeps the first', async () => {
        const accountId = newAccountId();
        const entry = entryFor(accountId, 1);
        await stores.auditLog.record(entry);
        await expect(stores.auditLog.record({ ...entry, action: 'key.revoked' })).rejects.toThrow();
        expect((await stores.auditLog.page(accountId, undefined, 10)).entries).toEqual([entry]);
      });
    });
  });
}

/** An audit entry for a change a test makes only to set up another (its content is not what is tested). */
function anEntry(accountId: string, targetId: string): AuditEntry {
  return auditEntry({ actor: { type: 'operator', id: 'operator', email: null }, origin: { ip: null, userAgent: null } }, accountId, 'webhook.created', { type: 'webhook', id: targetId }, {}, new Date(T0));
}

function grantOf(accountId: string, amount: number): LedgerEntry {
  return { entryId: newLedgerEntryId(), accountId, kind: 'grant', amount, reason: 'test grant', createdAt: at(0) };
}

function claimOf(accountId: string, key: string, taskId: string): IdempotencyClaim {
  return { accountId, key, requestHash: `hash-of-${key}`, taskId, createdAt: at(0), expiresAt: Math.floor(Date.now() / 1000) + 86_400 };
}
