import { AccountExistsError, hasPaidAccess, type Account, type SubscriptionStatus } from '#domain/accounts/account';
import type { ApiKeyRecord } from '#domain/accounts/api-key';
import { NotFoundError, ValidationError } from '#domain/shared/errors';
import type { LedgerEntry } from '#domain/accounts/ledger';
import type { MediaKind } from '#domain/catalogue/media-type';
import type { AccountDirectory, AccountStore, ApiKeyChanges, ApiKeyStore, HolderStore, Invitation, InvitationStore, KeyChangeAudit, LedgerStore, Member, MemberActor, TeamStore } from '#domain/accounts/ports';
import { HolderExistsError, type Holder } from '#domain/accounts/holder';
import { AlreadyMemberError, MAX_MEMBERS, MAX_MEMBERSHIPS, type Membership, type Role } from '#domain/accounts/roles';
import { applyKeyChanges } from '#domain/accounts/key-management';
import type { CallbackReceipts, CopyQueue, InFlightList, IdempotencyClaim, IdempotencyRecord, IdempotencyStore, MediaStore, StartRefusals, StartRepair, StartResult, StartWrite, TaskRef, TaskStore } from '#domain/tasks/ports';
import type { PublishedUpload, UploadPublications, UploadStorage } from '#domain/uploads/ports';
import type { RateCounter, RateWindow } from '#domain/shared/counter';
import type { Task, TaskKind } from '#domain/tasks/task';
import { type Phase } from '#domain/tasks/phase';
import { admits, afterMove, type EndingEntry, type TaskPatch } from '#domain/tasks/transitions';
import type { AttemptOutcome, Delivery, DeliveryMessage } from '#domain/webhooks/deliveries';
import type { DeliveryStore } from '#domain/webhooks/ports';
import type { WebhookEndpoint } from '#domain/webhooks/webhooks';
import type { WebhookStore } from '#domain/webhooks/ports';
import type { AuditEntry, AuditPage } from '#domain/shared/audit';
import type { AuditLog } from '#domain/shared/ports';
import { usageCellsOf, type GroupKind } from '#domain/usage/cells';
import type { UsageCellRead, UsageReader } from '#domain/usage/ports';

/**
 * In-memory stand-ins for every store port, for use-case tests that run in milliseconds.
 * They keep the DynamoDB adapters' rules (test/support/store-contract.ts runs the same suite
 * against both): a balance never goes below zero, every balance change writes its ledger
 * entry, a conditional transition has one winner, a refund happens once, reads return copies.
 *
 * Each method yields once before its atomic part, so calls made with Promise.all interleave
 * as real requests do; the check-and-write itself runs without a yield, like one DynamoDB
 * condition expression or transaction.
 */

/** What DynamoDB gives back: a fresh copy without `undefined` attributes (removeUndefinedValues). */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
/** One yield to other pending calls (a microtask, so jest's fake timers cannot stall it). */
const turn = () => Promise.resolve();

/** A condition failure the adapters do not translate (a duplicate item, a missing account). */
export class MemoryConditionError extends Error {
  override name = 'ConditionalCheckFailedException';
}

/** The rows shared by the stores of one "table" (a task's charge touches account and ledger). */
export class MemoryTable {
  readonly accounts = new Map<string, Account>();
  /** Per account, by entry id: DynamoDB lists an account's ledger in entry-id (ULID) order. */
  readonly ledger = new Map<string, Map<string, LedgerEntry>>();
  /** Per account, in the order written: an entry's position is its index + 1, as in the adapter. */
  readonly ledgerPositions = new Map<string, LedgerEntry[]>();
  readonly tasks = new Map<string, Task>();
  readonly idempotency = new Map<string, IdempotencyRecord>();
  /** Webhook endpoints, by account and id, with the count of deliveries each has had (their positions). */
  readonly webhooks = new Map<string, { endpoint: WebhookEndpoint; deliveryCount: number }>();
  /** Deliveries, by account, endpoint and event, with their position in the endpoint's list. */
  readonly deliveries = new Map<string, { delivery: Delivery; seq: number }>();
  /** Credits charged through each API key per month, by `keyId#yyyy-mm` (as the adapter's KEYSPEND# items). */
  readonly keySpend = new Map<string, number>();
  /** Per key, month and end user (`keyId#month#endUser`): as the adapter's EUSPEND items. */
  readonly endUserSpend = new Map<string, number>();

  /** Endings' feed entries written with their announce (TaskPatch.feedEntry), per partition, in position order. */
  readonly feed = new Map<string, EndingEntry[]>();

  feedHas(partitionId: string, eventId: string): boolean {
    return (this.feed.get(partitionId) ?? []).some((entry) => entry.eventId === eventId);
  }

  appendToFeed(partitionId: string, entry: EndingEntry): void {
    const entries = this.feed.get(partitionId) ?? [];
    // Its position is the next one, whatever the caller read: as the adapter's retry ends.
    entries.push({ ...entry, after: entries.length });
    this.feed.set(partitionId, entries);
  }

  /** Usage roll-up cells, by `partition#kind#period` then group ('' = none): as the adapter's USAGE# items. */
  readonly usage = new Map<string, Map<string, Record<string, number>>>();

  /** A charge or its refund in the usage cells, with the write that makes it (domain/usage/cells.ts). */
  addUsage(task: Task, what: 'charge' | 'refund'): void {
    for (const cell of usageCellsOf(task, what)) {
      const id = `${task.partitionId}#${cell.kind}#${cell.period}`;
      const cells = this.usage.get(id) ?? new Map<string, Record<string, number>>();
      const values = cells.get(cell.group ?? '') ?? {};
      for (const [name, amount] of Object.entries(cell.add)) values[name] = (values[name] ?? 0) + amount;
      cells.set(cell.group ?? '', values);
      this.usage.set(id, cells);
    }
  }

  /** Holders by id (the adapter's HOLDER#h/HOLDER). */
  readonly holders = new Map<string, Holder>();
  /**
   * Members by account, then holder: one row serves both directions of the adapter's pair
   * (ACCOUNT#a/MEMBER#h, HOLDER#h/MEMBERSHIP#a), which it always writes together.
   */
  readonly members = new Map<string, Map<string, { role: Role; joinedAt: string }>>();

  membersOf(accountId: string): Map<string, { role: Role; joinedAt: string }> {
    let members = this.members.get(accountId);
    if (!members) this.members.set(accountId, (members = new Map()));
    return members;
  }

  /** Open invitations by account, then address (the adapter's ACCOUNT#a/INVITATION#<hash of the address>). */
  readonly invitations = new Map<string, Map<string, Invitation>>();
  /** Invitations sent per account and UTC day, by `account#yyyy-mm-dd` (the adapter's INVITES# items). */
  readonly invitesSent = new Map<string, number>();

  invitationsOf(accountId: string): Map<string, Invitation> {
    let invitations = this.invitations.get(accountId);
    if (!invitations) this.invitations.set(accountId, (invitations = new Map()));
    return invitations;
  }

  /** Audit entries per account, in id order (the adapter's AUDIT#<account> partition). */
  readonly audit = new Map<string, AuditEntry[]>();

  /** Fails like a transaction whose audit Put finds its key taken: call before any other write of the change. */
  checkAudit(entry: AuditEntry | undefined): void {
    if (entry && (this.audit.get(entry.accountId) ?? []).some((row) => row.id === entry.id)) {
      throw new MemoryConditionError(`audit entry ${entry.id} exists`);
    }
  }

  /** The audit half of a change (after checkAudit and the change's own checks passed). */
  addAudit(entry: AuditEntry | undefined): void {
    if (!entry) return;
    const entries = this.audit.get(entry.accountId) ?? [];
    entries.push(copy(entry));
    entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.audit.set(entry.accountId, entries);
  }

  ledgerOf(accountId: string): Map<string, LedgerEntry> {
    let entries = this.ledger.get(accountId);
    if (!entries) this.ledger.set(accountId, (entries = new Map()));
    return entries;
  }

  /** Fails like a transaction whose ledger Put finds the entry already there. */
  checkNewEntry(entry: LedgerEntry): void {
    if (this.ledgerOf(entry.accountId).has(entry.entryId)) throw new MemoryConditionError(`ledger entry ${entry.entryId} exists`);
  }

  addEntry(entry: LedgerEntry): void {
    this.ledgerOf(entry.accountId).set(entry.entryId, copy(entry));
    const positions = this.ledgerPositions.get(entry.accountId) ?? [];
    positions.push(copy(entry));
    this.ledgerPositions.set(entry.accountId, positions);
  }
}

const taskId = (accountId: string, id: string) => `${accountId}#${id}`;
const claimId = (accountId: string, key: string) => `${accountId}#${key}`;
const unexpired = (record: IdempotencyRecord | undefined, now: Date) =>
  record && record.expiresAt > Math.floor(now.getTime() / 1000) ? record : undefined;

export class MemoryAccountDirectory implements AccountDirectory {
  constructor(readonly table = new MemoryTable()) {}

  async listAll(): Promise<Account[]> {
    await turn();
    return [...this.table.accounts.values()].map(copy);
  }
}

export class MemoryAccountStore implements AccountStore {
  constructor(readonly table = new MemoryTable()) {}

  async get(accountId: string): Promise<Account | undefined> {
    await turn();
    const account = this.table.accounts.get(accountId);
    return account && copy(account);
  }

  async create(account: Account, openingGrant?: LedgerEntry, entry?: AuditEntry): Promise<void> {
    await turn();
    if (this.table.accounts.has(account.accountId)) throw new AccountExistsError(account.accountId);
    if (openingGrant) this.table.checkNewEntry(openingGrant);
    this.table.checkAudit(entry);
    this.table.accounts.set(account.accountId, copy(account));
    if (openingGrant) this.table.addEntry(openingGrant);
    this.table.addAudit(entry);
  }

  async updateAccess(
    accountId: string,
    changes: { paidAccess?: boolean; subscriptionStatus?: SubscriptionStatus },
    now: string,
    audit: (before: Account, after: Account) => AuditEntry | undefined,
  ): Promise<Account> {
    await turn();
    const account = this.table.accounts.get(accountId);
    if (!account) throw new NotFoundError(`No account ${accountId}.`);
    const after: Account = { ...copy(account), updatedAt: now };
    if (changes.paidAccess !== undefined) after.paidAccess = changes.paidAccess;
    if (changes.subscriptionStatus !== undefined) after.subscriptionStatus = changes.subscriptionStatus;
    const entry = audit(copy(account), copy(after));
    if (!entry) return copy(account);
    this.table.checkAudit(entry);
    Object.assign(account, after);
    this.table.addAudit(entry);
    return copy(account);
  }

  async setOutputRetention(accountId: string, days: number | null, now: string, audit: (before: Account) => AuditEntry | undefined): Promise<Account> {
    await turn();
    const account = this.table.accounts.get(accountId);
    if (!account) throw new NotFoundError(`No account ${accountId}.`);
    const entry = audit(copy(account));
    if (!entry) return copy(account);
    this.table.checkAudit(entry);
    this.table.addAudit(entry);
    if (days === null) delete account.outputRetentionDays;
    else account.outputRetentionDays = days;
    account.updatedAt = now;
    return copy(account);
  }

  /** The accounts with a retention set (the adapter's RETENTION# index). */
  listWithRetention(): AsyncIterable<string>[] {
    const { table } = this;
    async function* shard(): AsyncIterable<string> {
      await turn();
      for (const account of [...table.accounts.values()].filter((stored) => stored.outputRetentionDays !== undefined)) yield account.accountId;
    }
    return [shard()];
  }

  async setTestSubscription(scopeId: string, active: boolean, now: string): Promise<boolean> {
    await turn();
    const account = this.table.accounts.get(scopeId);
    if (!account) throw new NotFoundError(`No account ${scopeId}.`);
    if (active === (account.subscriptionStatus === 'active')) return false;
    account.paidAccess = active;
    account.subscriptionStatus = active ? 'active' : 'canceled';
    account.updatedAt = now;
    return true;
  }

  async grant(entry: LedgerEntry, audit: AuditEntry): Promise<void> {
    await turn();
    const account = this.table.accounts.get(entry.accountId);
    if (!account) throw new NotFoundError(`No account ${entry.accountId}.`);
    this.table.checkNewEntry(entry);
    this.table.checkAudit(audit);
    account.credits += entry.amount;
    account.updatedAt = entry.createdAt;
    this.table.addEntry(entry);
    this.table.addAudit(audit);
  }
}

export class MemoryLedgerStore implements LedgerStore {
  constructor(readonly table = new MemoryTable()) {}

  async listForAccount(accountId: string): Promise<LedgerEntry[]> {
    await turn();
    const entries = [...this.table.ledgerOf(accountId).values()];
    return copy(entries.sort((a, b) => (a.entryId < b.entryId ? -1 : a.entryId > b.entryId ? 1 : 0)));
  }

  async listPage(accountId: string, page: number, limit: number): Promise<{ entries: LedgerEntry[]; total: number }> {
    await turn();
    const positions = this.table.ledgerPositions.get(accountId) ?? [];
    const total = positions.length;
    const newest = total - (page - 1) * limit;
    const oldest = Math.max(1, newest - limit + 1);
    const entries = newest < 1 ? [] : positions.slice(oldest - 1, newest).reverse();
    return { entries: copy(entries), total };
  }
}

export class MemoryIdempotencyStore implements IdempotencyStore {
  constructor(readonly table = new MemoryTable()) {}

  async get(accountId: string, key: string, now: Date): Promise<IdempotencyRecord | undefined> {
    await turn();
    const record = unexpired(this.table.idempotency.get(claimId(accountId, key)), now);
    return record && copy(record);
  }

  async recordOutcome(claim: IdempotencyClaim, outcome: NonNullable<IdempotencyRecord['outcome']>): Promise<void> {
    await turn();
    // An unconditional update, as in DynamoDB (which would create the record if it were gone).
    const id = claimId(claim.accountId, claim.key);
    this.table.idempotency.set(id, { ...(this.table.idempotency.get(id) ?? copy(claim)), outcome: copy(outcome) });
  }
}

export class MemoryTaskStore implements TaskStore {
  constructor(readonly table = new MemoryTable()) {}

  /** Per task id: the history position its start allocated, until settlePositions moves it onto the task. */
  private readonly notes = new Map<string, number>();
  /** As the adapter's ENDUSER items: counts per partition, end user and kind; positions noted per task until settled, then held per task. */
  private readonly endUserCounts = new Map<string, number>();
  private readonly endUserNotes = new Map<string, number>();
  private readonly endUserSeqs = new Map<string, number>();

  /** As the adapter's one transaction: every rule judged, all refusals reported, nothing written for a refusal. */
  async start(write: StartWrite): Promise<StartResult> {
    await turn();
    const { task: claimed, charge, idempotency, keySpend } = write;
    const price = -charge.amount;
    const refusals: StartRefusals = {};
    // Live as of the request's own instant (the domain's clock: the task's creation).
    const holder = idempotency && unexpired(this.table.idempotency.get(claimId(idempotency.accountId, idempotency.key)), new Date(claimed.createdAt));
    if (holder) refusals.claim = copy(holder);
    const spendId = keySpend && `${keySpend.keyId}#${keySpend.month}`;
    const spent = spendId ? (this.table.keySpend.get(spendId) ?? 0) : 0;
    if (keySpend?.limit !== undefined && spent + price > keySpend.limit) refusals.spend = { spent };
    const endUserSpendId = keySpend?.endUser !== undefined ? `${keySpend.keyId}#${keySpend.month}#${keySpend.endUser}` : undefined;
    const endUserSpent = endUserSpendId ? (this.table.endUserSpend.get(endUserSpendId) ?? 0) : 0;
    if (keySpend?.endUserLimit !== undefined && endUserSpent + price > keySpend.endUserLimit) refusals.endUserSpend = { spent: endUserSpent };
    const account = this.table.accounts.get(claimed.partitionId);
    if (!account) refusals.noAccount = true;
    else {
      if (write.paidAccess && !hasPaidAccess(account)) refusals.paidAccess = true;
      if (account.credits < price) refusals.credits = { available: account.credits };
    }
    if (Object.keys(refusals).length > 0 || !account) return { type: 'refused', refusals };
    const id = taskId(claimed.partitionId, claimed.taskId);
    if (this.table.tasks.has(id)) throw new MemoryConditionError(`task ${claimed.taskId} exists`);
    this.table.checkNewEntry(charge);

    if (spendId) this.table.keySpend.set(spendId, spent + price);
    if (endUserSpendId) this.table.endUserSpend.set(endUserSpendId, endUserSpent + price);
    account.credits -= price;
    account.taskCounts[claimed.kind] += 1;
    this.notes.set(id, account.taskCounts[claimed.kind]);
    if (claimed.endUser !== undefined) {
      const countId = `${claimed.partitionId}#${claimed.endUser}#${claimed.kind}`;
      const count = (this.endUserCounts.get(countId) ?? 0) + 1;
      this.endUserCounts.set(countId, count);
      this.endUserNotes.set(id, count);
    }
    account.updatedAt = claimed.createdAt;
    const task = { ...claimed, seq: 0, usageCounted: true } as Task;
    this.table.tasks.set(id, copy(task));
    this.table.addUsage(task, 'charge');
    // The charge takes its ledger position now, as the adapter's note does.
    this.table.addEntry(charge);
    if (idempotency) this.table.idempotency.set(claimId(idempotency.accountId, idempotency.key), copy(idempotency));
    return { type: 'started', task };
  }

  async settlePositions(task: Task): Promise<Task> {
    await turn();
    const id = taskId(task.partitionId, task.taskId);
    const stored = this.table.tasks.get(id);
    if (!stored) throw new Error(`Task ${task.taskId} has no positions to settle.`);
    const seq = this.notes.get(id);
    if (seq !== undefined && stored.seq === 0) {
      stored.seq = seq;
      this.notes.delete(id);
      const endUserSeq = this.endUserNotes.get(id);
      if (endUserSeq !== undefined) this.endUserSeqs.set(id, endUserSeq);
      this.endUserNotes.delete(id);
    }
    return { ...task, seq: stored.seq };
  }

  async get(accountId: string, id: string): Promise<Task | undefined> {
    await turn();
    const task = this.table.tasks.get(taskId(accountId, id));
    return task && copy(task);
  }

  /** The ledger count is the adapter's hint only: the memory store takes the next position whatever it is. */
  async getForRefund(accountId: string, id: string): Promise<{ task: Task | undefined; ledgerSeen?: number }> {
    return { task: await this.get(accountId, id), ledgerSeen: this.table.ledgerPositions.get(accountId)?.length ?? 0 };
  }

  /** As the adapter's one conditional write: phase and guards checked, the patch applied at once (with its refund). */
  async transition(task: Task, from: readonly Phase[], to: Phase | 'same', patch: TaskPatch): Promise<Task | undefined> {
    await turn();
    const id = taskId(task.partitionId, task.taskId);
    const stored = this.table.tasks.get(id);
    if (!stored || !admits(stored, from, patch.guard)) return undefined;
    if (patch.refund) {
      // The other parts of the adapter's transaction: an existing account, a new ledger entry, the key's month.
      const account = this.table.accounts.get(task.partitionId);
      if (!account) throw new MemoryConditionError(`account ${task.partitionId} does not exist`);
      this.table.checkNewEntry(patch.refund);
      account.credits += patch.refund.amount;
      account.updatedAt = patch.at ?? account.updatedAt;
      this.table.addEntry(patch.refund);
      if (stored.usageCounted) this.table.addUsage(stored, 'refund');
      if (stored.chargedTo) {
        const spendId = `${stored.chargedTo.keyId}#${stored.chargedTo.month}`;
        this.table.keySpend.set(spendId, (this.table.keySpend.get(spendId) ?? 0) - patch.refund.amount);
        if (stored.chargedTo.endUser !== undefined) {
          const endUserSpendId = `${spendId}#${stored.chargedTo.endUser}`;
          this.table.endUserSpend.set(endUserSpendId, (this.table.endUserSpend.get(endUserSpendId) ?? 0) - patch.refund.amount);
        }
      }
    }
    if (patch.feedEntry && !this.table.feedHas(task.partitionId, patch.feedEntry.eventId)) this.table.appendToFeed(task.partitionId, patch.feedEntry);
    const moved = afterMove(stored, to, patch);
    this.table.tasks.set(id, moved);
    return copy(moved);
  }

  async listPage(accountId: string, kind: TaskKind, page: number, limit: number) {
    await turn();
    const total = this.table.accounts.get(accountId)?.taskCounts[kind] ?? 0;
    const newest = total - (page - 1) * limit;
    const oldest = Math.max(1, newest - limit + 1);
    const tasks = [...this.table.tasks.values()]
      .filter((task) => task.partitionId === accountId && task.kind === kind && task.seq >= oldest && task.seq <= newest)
      .sort((a, b) => b.seq - a.seq);
    return { tasks: copy(tasks), total };
  }

  async listEndUserPage(accountId: string, endUser: string, kind: TaskKind, page: number, limit: number) {
    await turn();
    const total = this.endUserCounts.get(`${accountId}#${endUser}#${kind}`) ?? 0;
    const newest = total - (page - 1) * limit;
    const oldest = Math.max(1, newest - limit + 1);
    const positioned = [...this.endUserSeqs]
      .filter(([, seq]) => seq >= oldest && seq <= newest)
      .map(([id, seq]) => ({ task: this.table.tasks.get(id)!, seq }))
      .filter(({ task }) => task.partitionId === accountId && task.kind === kind && task.endUser === endUser)
      .sort((a, b) => b.seq - a.seq);
    return { tasks: copy(positioned.map(({ task }) => task)), total };
  }

  /** One shard, oldest first (the adapter has several). Every task here has its phase from the start: `unmoved` is empty. */
  listInFlight(list: InFlightList): AsyncIterable<TaskRef>[] {
    const table = this.table;
    async function* shard(): AsyncIterable<TaskRef> {
      await turn();
      // As the adapter's sort key: when the task entered its phase.
      const order = (task: Task) => `${task.updatedAt}#${task.taskId}`;
      const tasks = [...table.tasks.values()]
        // A delivery enters its list once announced (the adapter's outbox holds it before).
        .filter((task) => task.phase === list && !(list === 'delivering' && task.unannounced))
        .sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
      for (const task of tasks) yield { accountId: task.partitionId, taskId: task.taskId };
    }
    return [shard()];
  }

  /** Ended tasks whose events are not published yet (the adapter's outbox entries). */
  listUnannounced(): AsyncIterable<TaskRef>[] {
    const { table } = this;
    async function* shard(): AsyncIterable<TaskRef> {
      await turn();
      for (const task of [...table.tasks.values()].filter((stored) => stored.unannounced)) yield { accountId: task.partitionId, taskId: task.taskId };
    }
    return [shard()];
  }

  /** As the adapter's OUTPUTS# list: announced completions with their outputs, by completion. */
  listCompletedBefore(partitionId: string, before: string): AsyncIterable<TaskRef> {
    const { table } = this;
    async function* list(): AsyncIterable<TaskRef> {
      await turn();
      const entry = (task: Task) => `${task.completedAt}#${task.taskId}`;
      const tasks = [...table.tasks.values()]
        .filter((task) => task.partitionId === partitionId && task.phase === 'completed' && !task.unannounced && task.completedAt && entry(task) < before)
        .sort((a, b) => (entry(a) < entry(b) ? -1 : 1));
      for (const task of tasks) yield { accountId: task.partitionId, taskId: task.taskId };
    }
    return list();
  }

  /** Starts here are atomic, so no draft is ever left half-done: nothing to repair. */
  async repairStart(draft: Task): Promise<StartRepair> {
    await turn();
    return this.table.tasks.has(taskId(draft.partitionId, draft.taskId)) ? 'settled' : 'discarded';
  }
}

/** As DynamoUsageReader: the cells of one kind and period, only the attributes asked for. */
export class MemoryUsageReader implements UsageReader {
  constructor(readonly table = new MemoryTable()) {}

  async cells(partitionId: string, kind: GroupKind, period: string, attributes: readonly string[]): Promise<UsageCellRead[]> {
    await turn();
    const cells = this.table.usage.get(`${partitionId}#${kind}#${period}`) ?? new Map<string, Record<string, number>>();
    return [...cells].map(([group, values]) => ({
      group: group === '' ? null : group,
      values: Object.fromEntries(attributes.filter((name) => values[name] !== undefined).map((name) => [name, values[name]!])),
    }));
  }
}

export class MemoryApiKeyStore implements ApiKeyStore {
  /** The stored rows, by key id (tests may edit them, as an operator could edit the table). */
  readonly records = new Map<string, ApiKeyRecord>();
  /** Keys made before the count existed hold no place in it (as in the adapter). */
  readonly uncounted = new Set<string>();
  lookups = 0;

  /** The table whose key spend MemoryTaskStore counts (a store of its own when used alone). */
  constructor(readonly table: MemoryTable = new MemoryTable()) {}

  async create(record: ApiKeyRecord, maxActive: number, entry: AuditEntry): Promise<boolean> {
    await turn();
    if (this.activeCount(record.accountId) >= maxActive) return false;
    if (this.records.has(record.keyId)) throw new MemoryConditionError(`API key ${record.keyId} exists`);
    this.table.checkAudit(entry);
    this.records.set(record.keyId, copy(record));
    this.table.addAudit(entry);
    return true;
  }

  private activeCount(accountId: string): number {
    return [...this.records.values()].filter((key) => key.accountId === accountId && !key.revokedAt && !this.uncounted.has(key.keyId)).length;
  }

  async get(keyId: string): Promise<ApiKeyRecord | undefined> {
    this.lookups += 1;
    await turn();
    const record = this.records.get(keyId);
    return record && copy(record);
  }

  async listForAccount(accountId: string): Promise<ApiKeyRecord[]> {
    await turn();
    return copy([...this.records.values()].filter((record) => record.accountId === accountId));
  }

  async update(accountId: string, keyId: string, changes: ApiKeyChanges, audit: KeyChangeAudit): Promise<ApiKeyRecord | undefined> {
    await turn();
    const record = this.records.get(keyId);
    if (!record || record.accountId !== accountId) return undefined;
    const after = applyKeyChanges(record, changes);
    const entry = audit(copy(record), copy(after));
    if (!entry) return copy(record);
    this.table.checkAudit(entry);
    const next = { ...after, version: (record.version ?? 0) + 1 };
    this.records.set(keyId, next);
    this.table.addAudit(entry);
    return copy(next);
  }

  async revoke(keyId: string, now: string, audit: (record: ApiKeyRecord) => AuditEntry, accountId?: string): Promise<ApiKeyRecord> {
    await turn();
    const record = this.records.get(keyId);
    if (!record || (accountId !== undefined && record.accountId !== accountId)) throw new NotFoundError(`No API key with id "${keyId}".`);
    if (record.revokedAt === undefined) {
      const entry = audit(copy(record));
      this.table.checkAudit(entry);
      record.revokedAt = now;
      this.table.addAudit(entry);
    }
    return copy(record);
  }

  async recordUse(keyId: string, at: string): Promise<void> {
    await turn();
    const record = this.records.get(keyId);
    if (record && (record.lastUsedAt === undefined || record.lastUsedAt < at)) record.lastUsedAt = at;
  }

  async spentInMonth(keyIds: readonly string[], month: string): Promise<Map<string, number>> {
    await turn();
    const spent = new Map<string, number>();
    for (const keyId of keyIds) {
      const value = this.table.keySpend.get(`${keyId}#${month}`);
      if (value !== undefined) spent.set(keyId, value);
    }
    return spent;
  }
}

const webhookId = (accountId: string, id: string) => `${accountId}#${id}`;

/** Webhook endpoints, as the DynamoDB adapter keeps them: the account's count guards the limit. */
export class MemoryWebhookStore implements WebhookStore {
  constructor(readonly table = new MemoryTable()) {}

  async create(endpoint: WebhookEndpoint, max: number, entry: AuditEntry): Promise<boolean> {
    await turn();
    // The adapter's count lives on the account item: without one, nothing is stored.
    if (!this.table.accounts.has(endpoint.accountId) || this.endpointsOf(endpoint.accountId).length >= max) return false;
    const id = webhookId(endpoint.accountId, endpoint.webhookId);
    if (this.table.webhooks.has(id)) throw new MemoryConditionError(`webhook ${endpoint.webhookId} exists`);
    this.table.checkAudit(entry);
    this.table.webhooks.set(id, { endpoint: copy(endpoint), deliveryCount: 0 });
    this.table.addAudit(entry);
    return true;
  }

  async get(accountId: string, id: string): Promise<WebhookEndpoint | undefined> {
    await turn();
    const row = this.table.webhooks.get(webhookId(accountId, id));
    return row && copy(row.endpoint);
  }

  async list(accountId: string): Promise<WebhookEndpoint[]> {
    await turn();
    return copy(this.endpointsOf(accountId));
  }

  /** In id order (the adapter's index sorts by id; ids are ULIDs, so oldest first). */
  private endpointsOf(accountId: string): WebhookEndpoint[] {
    return [...this.table.webhooks.values()]
      .map((row) => row.endpoint)
      .filter((endpoint) => endpoint.accountId === accountId)
      .sort((a, b) => (a.webhookId < b.webhookId ? -1 : a.webhookId > b.webhookId ? 1 : 0));
  }

  async delete(accountId: string, id: string, entry: AuditEntry): Promise<boolean> {
    await turn();
    if (!this.table.webhooks.has(webhookId(accountId, id))) return false;
    this.table.checkAudit(entry);
    this.table.webhooks.delete(webhookId(accountId, id));
    this.table.addAudit(entry);
    return true;
  }

  async claimTest(seen: WebhookEndpoint, test: { eventId: string; at: string }): Promise<boolean> {
    await turn();
    const row = this.table.webhooks.get(webhookId(seen.accountId, seen.webhookId));
    if (!row || row.endpoint.lastTest?.eventId !== seen.lastTest?.eventId) return false;
    row.endpoint.lastTest = { ...test };
    return true;
  }
}

const deliveryId = (message: DeliveryMessage) => `${message.accountId}#${message.webhookId}#${message.eventId}`;
/** Where a delivery sits in the adapter's list of pending ones: by due time, while it is pending and due. */
const dueKey = (delivery: Delivery) =>
  delivery.status === 'pending' && delivery.nextAttemptAt ? `${delivery.nextAttemptAt}#${delivery.webhookId}#${delivery.eventId}` : undefined;

/** Deliveries, as the DynamoDB adapter keeps them: one per (endpoint, event), numbered per endpoint. */
export class MemoryDeliveryStore implements DeliveryStore {
  constructor(readonly table = new MemoryTable()) {}

  async create(delivery: Delivery): Promise<boolean> {
    await turn();
    const endpoint = this.table.webhooks.get(webhookId(delivery.accountId, delivery.webhookId));
    if (!endpoint || this.table.deliveries.has(deliveryId(delivery))) return false;
    endpoint.deliveryCount += 1;
    this.table.deliveries.set(deliveryId(delivery), { delivery: copy(delivery), seq: endpoint.deliveryCount });
    return true;
  }

  async get(message: DeliveryMessage): Promise<Delivery | undefined> {
    await turn();
    const row = this.table.deliveries.get(deliveryId(message));
    return row && copy(row.delivery);
  }

  async reopen(seen: Delivery, now: string): Promise<boolean> {
    await turn();
    const row = this.table.deliveries.get(deliveryId(seen));
    if (!row || row.delivery.status !== seen.status || row.delivery.attempts !== seen.attempts || row.delivery.nextAttemptAt !== seen.nextAttemptAt) {
      return false;
    }
    Object.assign(row.delivery, { status: 'pending', nextAttemptAt: now });
    return true;
  }

  async recordAttempt(seen: Delivery, next: AttemptOutcome): Promise<boolean> {
    await turn();
    const row = this.table.deliveries.get(deliveryId(seen));
    if (!row || row.delivery.status !== 'pending' || row.delivery.attempts !== seen.attempts) return false;
    const { status, attempts, lastStatusCode, lastError, lastAttemptAt, nextAttemptAt } = next;
    Object.assign(row.delivery, { status, attempts, lastStatusCode, lastError, lastAttemptAt, nextAttemptAt });
    return true;
  }

  /** One shard, soonest due first (the adapter has several, each soonest first). */
  listDue(before: string): AsyncIterable<DeliveryMessage>[] {
    const table = this.table;
    async function* shard(): AsyncIterable<DeliveryMessage> {
      await turn();
      // Compared as the adapter's index compares its sort keys: as strings.
      const due = [...table.deliveries.values()]
        .map(({ delivery }) => ({ delivery, key: dueKey(delivery) }))
        .filter((row): row is { delivery: Delivery; key: string } => row.key !== undefined && row.key < before)
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      for (const { delivery } of due) yield { accountId: delivery.accountId, webhookId: delivery.webhookId, eventId: delivery.eventId };
    }
    return [shard()];
  }

  async listPage(accountId: string, id: string, page: number, limit: number) {
    await turn();
    const total = this.table.webhooks.get(webhookId(accountId, id))?.deliveryCount ?? 0;
    const newest = total - (page - 1) * limit;
    const oldest = Math.max(1, newest - limit + 1);
    const deliveries = [...this.table.deliveries.values()]
      .filter((row) => row.delivery.accountId === accountId && row.delivery.webhookId === id && row.seq >= oldest && row.seq <= newest)
      .sort((a, b) => b.seq - a.seq)
      .map((row) => row.delivery);
    return { deliveries: copy(deliveries), total };
  }
}

export class MemoryRateCounter implements RateCounter {
  readonly counts = new Map<string, number>();

  async increment(keyId: string, window: RateWindow, limit: number): Promise<number | undefined> {
    await turn();
    const id = `${keyId}#${window.id}`;
    const count = this.counts.get(id) ?? 0;
    if (count >= limit) return undefined;
    this.counts.set(id, count + 1);
    return count + 1;
  }

  async claimAt(keyId: string, window: RateWindow, ticket: number): Promise<boolean> {
    await turn();
    const id = `${keyId}#${window.id}`;
    if ((this.counts.get(id) ?? 0) >= ticket) return false;
    this.counts.set(id, ticket);
    return true;
  }
}

/** The audit log as the adapter keeps it: newest first by id, one more read than the page to tell `hasMore`. */
export class MemoryAuditLog implements AuditLog {
  constructor(readonly table = new MemoryTable()) {}

  async record(entry: AuditEntry): Promise<void> {
    await turn();
    this.table.checkAudit(entry);
    this.table.addAudit(entry);
  }

  async page(accountId: string, after: string | undefined, limit: number): Promise<AuditPage> {
    await turn();
    const older = [...(this.table.audit.get(accountId) ?? [])].reverse().filter((entry) => after === undefined || entry.id < after);
    return { entries: copy(older.slice(0, limit)), hasMore: older.length > limit };
  }

  /** Every entry of an account, oldest first (for tests). */
  all(accountId: string): AuditEntry[] {
    return copy(this.table.audit.get(accountId) ?? []);
  }
}

export class MemoryHolderStore implements HolderStore {
  constructor(readonly table = new MemoryTable()) {}

  async get(holderId: string): Promise<Holder | undefined> {
    await turn();
    const holder = this.table.holders.get(holderId);
    return holder && copy(holder);
  }

  async withMemberships(holderId: string): Promise<{ holder: Holder; memberships: Membership[] } | undefined> {
    await turn();
    const holder = this.table.holders.get(holderId);
    if (!holder) return undefined;
    const memberships: Membership[] = [];
    for (const [accountId, members] of this.table.members) {
      const member = members.get(holderId);
      if (member) memberships.push({ accountId, role: member.role, joinedAt: member.joinedAt });
    }
    // The adapter's sort key order: MEMBERSHIP#<account id>.
    memberships.sort((a, b) => (a.accountId < b.accountId ? -1 : 1));
    return { holder: copy(holder), memberships: copy(memberships) };
  }

  async createWithAccount(holder: Holder, account: Account, openingGrant?: LedgerEntry): Promise<void> {
    await turn();
    if (this.table.holders.has(holder.holderId)) throw new HolderExistsError(holder.holderId);
    if (this.table.accounts.has(account.accountId)) throw new MemoryConditionError(`account ${account.accountId} exists`);
    if (openingGrant) this.table.checkNewEntry(openingGrant);
    this.table.accounts.set(account.accountId, copy(account));
    if (openingGrant) this.table.addEntry(openingGrant);
    this.join(holder, 'owner');
  }

  async attach(holder: Holder, role: Role): Promise<void> {
    await turn();
    if (this.table.holders.has(holder.holderId)) throw new HolderExistsError(holder.holderId);
    if (!this.table.accounts.has(holder.accountId)) throw new NotFoundError(`No account ${holder.accountId}.`);
    this.join(holder, role);
  }

  async adoptLegacy(holder: Holder, now: string): Promise<void> {
    await turn();
    const stored = this.table.holders.get(holder.holderId);
    if (!stored || stored.teamsAt) return;
    stored.teamsAt = now;
    this.table.membersOf(stored.accountId).set(stored.holderId, { role: 'owner', joinedAt: now });
  }

  /** Test setup: a holder as recorded before teams (no memberships). */
  putLegacy(holder: Holder): void {
    const { teamsAt: _ignored, ...legacy } = holder;
    this.table.holders.set(holder.holderId, copy(legacy));
  }

  private join(holder: Holder, role: Role): void {
    this.table.holders.set(holder.holderId, copy({ ...holder, teamsAt: holder.createdAt }));
    this.table.membersOf(holder.accountId).set(holder.holderId, { role, joinedAt: holder.createdAt });
  }
}

export class MemoryTeamStore implements TeamStore {
  constructor(readonly table = new MemoryTable()) {}

  async list(accountId: string): Promise<Member[]> {
    await turn();
    return [...this.table.membersOf(accountId)]
      .map(([holderId, member]) => ({ holderId, email: this.table.holders.get(holderId)?.email ?? '', role: member.role, joinedAt: member.joinedAt }))
      .sort((a, b) => (a.joinedAt === b.joinedAt ? (a.holderId < b.holderId ? -1 : 1) : a.joinedAt < b.joinedAt ? -1 : 1));
  }

  async add(accountId: string, holderId: string, role: Role, now: string, entry: AuditEntry): Promise<void> {
    await turn();
    this.table.checkAudit(entry);
    if (!this.table.accounts.has(accountId)) throw new NotFoundError(`No account ${accountId}.`);
    const members = this.table.membersOf(accountId);
    if (members.has(holderId)) throw new AlreadyMemberError(`${holderId} is already a member of ${accountId}.`, 'email');
    if (!this.table.holders.has(holderId)) throw new NotFoundError(`No holder ${holderId}.`);
    const memberships = [...this.table.members.values()].filter((each) => each.has(holderId)).length;
    if (memberships >= MAX_MEMBERSHIPS) throw new ValidationError(`A holder may belong to at most ${MAX_MEMBERSHIPS} accounts.`, 'accounts');
    if (members.size >= MAX_MEMBERS) throw new ValidationError(`An account may have at most ${MAX_MEMBERS} members.`, 'members');
    members.set(holderId, { role, joinedAt: now });
    this.table.addAudit(entry);
  }

  async state(accountId: string, holderIds: readonly string[]): Promise<{ owners: number; roles: Map<string, Role> }> {
    await turn();
    const members = this.table.membersOf(accountId);
    const roles = new Map<string, Role>();
    for (const holderId of holderIds) {
      const member = members.get(holderId);
      if (member) roles.set(holderId, member.role);
    }
    return { owners: this.owners(accountId), roles };
  }

  async changeRole(accountId: string, holderId: string, from: Role, to: Role, actor: MemberActor, entry: AuditEntry): Promise<boolean> {
    await turn();
    this.table.checkAudit(entry);
    if (!this.holds(accountId, holderId, from, actor) || (from === 'owner' && to !== 'owner' && this.owners(accountId) <= 1)) return false;
    this.table.membersOf(accountId).get(holderId)!.role = to;
    this.table.addAudit(entry);
    return true;
  }

  async remove(accountId: string, holderId: string, from: Role, actor: MemberActor, entry: AuditEntry): Promise<boolean> {
    await turn();
    this.table.checkAudit(entry);
    if (!this.holds(accountId, holderId, from, actor) || (from === 'owner' && this.owners(accountId) <= 1)) return false;
    this.table.membersOf(accountId).delete(holderId);
    this.table.addAudit(entry);
    return true;
  }

  /** The adapter's member and actor conditions: the roles as the judge read them. */
  private holds(accountId: string, holderId: string, from: Role, actor: MemberActor): boolean {
    const members = this.table.membersOf(accountId);
    if (members.get(holderId)?.role !== from) return false;
    return !actor || actor.holderId === holderId || members.get(actor.holderId)?.role === actor.role;
  }

  private owners(accountId: string): number {
    return [...this.table.membersOf(accountId).values()].filter((member) => member.role === 'owner').length;
  }
}

/** Newest first, as the adapter's reads answer (ties by id). */
const newestFirst = (a: Invitation, b: Invitation) => (a.createdAt === b.createdAt ? (a.invitationId < b.invitationId ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1);

export class MemoryInvitationStore implements InvitationStore {
  constructor(readonly table = new MemoryTable()) {}

  async invite(invitation: Invitation, actor: MemberActor, entry: AuditEntry, quota: { day: string; max: number }): Promise<'invited' | 'quota' | 'moved'> {
    await turn();
    this.table.checkAudit(entry);
    // The adapter's part order: the quota answers first.
    const day = `${invitation.accountId}#${quota.day}`;
    const sent = this.table.invitesSent.get(day) ?? 0;
    if (sent >= quota.max) return 'quota';
    if (actor && this.table.membersOf(invitation.accountId).get(actor.holderId)?.role !== actor.role) return 'moved';
    this.table.invitesSent.set(day, sent + 1);
    this.table.invitationsOf(invitation.accountId).set(invitation.email, copy(invitation));
    this.table.addAudit(entry);
    return 'invited';
  }

  async forAccount(accountId: string, now: string): Promise<Invitation[]> {
    await turn();
    return copy([...this.table.invitationsOf(accountId).values()].filter((each) => each.expiresAt > now).sort(newestFirst));
  }

  async forEmail(email: string, now: string): Promise<Invitation[]> {
    await turn();
    const found = [...this.table.invitations.values()].flatMap((byEmail) => {
      const invitation = byEmail.get(email);
      return invitation && invitation.expiresAt > now ? [invitation] : [];
    });
    return copy(found.sort(newestFirst));
  }

  async accept(invitation: Invitation, holderId: string, now: string, entry: AuditEntry): Promise<'joined' | 'gone' | 'member'> {
    await turn();
    this.table.checkAudit(entry);
    const open = this.table.invitationsOf(invitation.accountId);
    const stored = open.get(invitation.email);
    if (!stored || stored.invitationId !== invitation.invitationId || stored.expiresAt <= now) return 'gone';
    const members = this.table.membersOf(invitation.accountId);
    if (members.has(holderId)) return 'member';
    if (!this.table.holders.has(holderId)) throw new NotFoundError(`No holder ${holderId}.`);
    const memberships = [...this.table.members.values()].filter((each) => each.has(holderId)).length;
    if (memberships >= MAX_MEMBERSHIPS) throw new ValidationError(`A holder may belong to at most ${MAX_MEMBERSHIPS} accounts.`, 'accounts');
    if (members.size >= MAX_MEMBERS) throw new ValidationError(`An account may have at most ${MAX_MEMBERS} members.`, 'members');
    open.delete(invitation.email);
    members.set(holderId, { role: invitation.role, joinedAt: now });
    this.table.addAudit(entry);
    return 'joined';
  }

  async revoke(invitation: Invitation, actor: MemberActor, entry: AuditEntry): Promise<'revoked' | 'gone' | 'moved'> {
    await turn();
    this.table.checkAudit(entry);
    const open = this.table.invitationsOf(invitation.accountId);
    if (open.get(invitation.email)?.invitationId !== invitation.invitationId) return 'gone';
    if (actor && this.table.membersOf(invitation.accountId).get(actor.holderId)?.role !== actor.role) return 'moved';
    open.delete(invitation.email);
    this.table.addAudit(entry);
    return 'revoked';
  }
}

/** Every store of one table, wired together as the app context wires the DynamoDB ones. */
export function createMemoryStores() {
  const table = new MemoryTable();
  return {
    table,
    accounts: new MemoryAccountStore(table),
    accountDirectory: new MemoryAccountDirectory(table),
    ledger: new MemoryLedgerStore(table),
    tasks: new MemoryTaskStore(table),
    idempotency: new MemoryIdempotencyStore(table),
    apiKeys: new MemoryApiKeyStore(table),
    rates: new MemoryRateCounter(),
    callbackReceipts: new MemoryCallbackReceipts(),
    webhooks: new MemoryWebhookStore(table),
    deliveries: new MemoryDeliveryStore(table),
    uploadPublications: new MemoryUploadPublications(),
    auditLog: new MemoryAuditLog(table),
    usage: new MemoryUsageReader(table),
    holders: new MemoryHolderStore(table),
    team: new MemoryTeamStore(table),
    invitations: new MemoryInvitationStore(table),
    feed: {
      entries: async (partitionId: string) => (table.feed.get(partitionId) ?? []).map((entry, index) => ({ eventId: entry.eventId, position: index + 1 })),
    },
  };
}
export type MemoryStores = ReturnType<typeof createMemoryStores>;

/** The result bucket: records each copy; `failing` decides which sources cannot be fetched. */
export class MemoryMediaStore implements MediaStore {
  readonly objects = new Map<string, { sourceUrl: string; contentType: string }>();
  failing: (sourceUrl: string) => boolean = () => false;

  constructor(readonly publicBaseUrl = 'https://media.test') {}

  async copyFromUrl(sourceUrl: string, key: string, contentType: string, _kind: MediaKind): Promise<string> {
    await turn();
    if (this.failing(sourceUrl)) throw new Error(`download of ${sourceUrl} failed`);
    this.objects.set(key, { sourceUrl, contentType });
    return `${this.publicBaseUrl}/${key}`;
  }

  async remove(key: string): Promise<void> {
    await turn();
    this.objects.delete(key);
  }
}

export interface CopyRequest {
  accountId: string;
  taskId: string;
}

/**
 * Records copy requests; with `work`, runs each after the current call, like the local
 * stack's in-process queue. `refuse` makes enqueue fail, like an unreachable Lambda.
 */
export class MemoryCopyQueue implements CopyQueue {
  readonly requests: CopyRequest[] = [];
  refuse = false;
  work?: (request: CopyRequest) => Promise<void>;
  private readonly running = new Set<Promise<void>>();

  async enqueue(request: CopyRequest): Promise<void> {
    if (this.refuse) throw new Error('copy queue unavailable');
    this.requests.push({ ...request });
    const work = this.work;
    if (!work) return;
    const job: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => work(request))
      .finally(() => this.running.delete(job));
    this.running.add(job);
  }

  /** Waits for the copies under way (a failed one rejects here, so a test sees it). */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}

/** The upload area of the bucket: objects by key, public or not, and the presigned forms issued. */
export class MemoryUploadStorage implements UploadStorage {
  readonly objects = new Map<string, { bytes: Buffer; contentType?: string; accountId?: string; public: boolean }>();
  readonly presigned = new Map<string, { maxBytes: number; expiresSeconds: number }>();

  constructor(readonly publicBaseUrl = 'https://media.test') {}

  async putPublic(key: string, bytes: Buffer, contentType: string, accountId: string): Promise<string> {
    await turn();
    this.objects.set(key, { bytes: Buffer.from(bytes), contentType, accountId, public: true });
    return `${this.publicBaseUrl}/${key}`;
  }

  async presignUpload(key: string, options: { maxBytes: number; expiresSeconds: number }) {
    await turn();
    this.presigned.set(key, { ...options });
    return { url: 'https://uploads.test/', fields: { key, 'Content-Type': 'image/*' } };
  }

  /** What a client's form POST to a presigned upload would leave in the bucket. */
  simulateDirectUpload(key: string, bytes: Buffer): void {
    this.objects.set(key, { bytes: Buffer.from(bytes), public: false });
  }

  async inspect(key: string, headBytes: number): Promise<{ size: number; head: Buffer } | undefined> {
    await turn();
    const object = this.objects.get(key);
    return object && { size: object.bytes.length, head: Buffer.from(object.bytes.subarray(0, headBytes)) };
  }

  async promote(fromKey: string, toKey: string, contentType: string, accountId: string): Promise<string> {
    await turn();
    const object = this.objects.get(fromKey);
    // S3's CopyObject of a missing source fails with NoSuchKey.
    if (!object) throw Object.assign(new Error(`No object ${fromKey}.`), { name: 'NoSuchKey' });
    this.objects.set(toKey, { bytes: object.bytes, contentType, accountId, public: true });
    this.objects.delete(fromKey);
    return `${this.publicBaseUrl}/${toKey}`;
  }

  async remove(key: string): Promise<void> {
    await turn();
    this.objects.delete(key);
  }
}

/** Publication claims of direct uploads, as the DynamoDB adapter keeps them (one winner per upload). */
export class MemoryUploadPublications implements UploadPublications {
  /** `claimedAt` in epoch seconds. */
  private readonly records = new Map<string, { claimedAt: number; answer?: PublishedUpload }>();

  async get(accountId: string, uploadId: string): Promise<{ answer?: PublishedUpload } | undefined> {
    await turn();
    const record = this.records.get(`${accountId}#${uploadId}`);
    return record && (record.answer ? { answer: { ...record.answer } } : {});
  }

  async claim(accountId: string, uploadId: string, now: Date, staleAfterSeconds: number): Promise<boolean> {
    await turn();
    const id = `${accountId}#${uploadId}`;
    const record = this.records.get(id);
    // In whole epoch seconds, as the adapter stores the claim's time.
    const nowSeconds = Math.floor(now.getTime() / 1000);
    if (record && (record.answer || record.claimedAt > nowSeconds - staleAfterSeconds)) return false;
    this.records.set(id, { claimedAt: nowSeconds });
    return true;
  }

  async recordAnswer(accountId: string, uploadId: string, answer: PublishedUpload): Promise<void> {
    await turn();
    const record = this.records.get(`${accountId}#${uploadId}`) ?? { claimedAt: 0 };
    this.records.set(`${accountId}#${uploadId}`, { ...record, answer: { ...answer } });
  }

  async release(accountId: string, uploadId: string): Promise<void> {
    await turn();
    this.records.delete(`${accountId}#${uploadId}`);
  }
}

/** Received callback messages, as the DynamoDB adapter keeps them (one claim per id until it expires). */
export class MemoryCallbackReceipts implements CallbackReceipts {
  private readonly receipts = new Map<string, number>();

  async claim(provider: string, messageId: string, now: Date, keepUntil: Date): Promise<boolean> {
    await turn();
    const id = `${provider}#${messageId}`;
    const until = this.receipts.get(id);
    // Like TTL on epoch seconds: a receipt counts until the second it expires in.
    if (until !== undefined && Math.floor(until / 1000) > Math.floor(now.getTime() / 1000)) return false;
    this.receipts.set(id, keepUntil.getTime());
    return true;
  }

  async release(provider: string, messageId: string): Promise<void> {
    await turn();
    this.receipts.delete(`${provider}#${messageId}`);
  }
}
