import type { Account, SubscriptionStatus } from './account';
import type { ApiKeyRecord } from './api-key';
import type { Holder, IdentityHolder } from './holder';
import type { Membership, Role } from './roles';
import type { LedgerEntry } from './ledger';
import type { AuditEntry } from '../shared/audit';

/** What the accounts use cases need from storage and identity (the adapters implement these). */

/**
 * What the use cases need from storage. The adapters in functions/adapters/ implement
 * these; the domain never sees a table, a key template or an SDK call.
 */
export interface AccountStore {
  get(accountId: string): Promise<Account | undefined>;
  /**
   * Creates the account and, when given, its opening grant and its audit entry (an operator's
   * `account.created`; none for a test balance opened on first use), atomically.
   */
  create(account: Account, openingGrant?: LedgerEntry, entry?: AuditEntry): Promise<void>;
  /**
   * Changes the account's access from what it was read as, with the entry `audit` makes of the
   * change in the same write; a change that changes nothing writes nothing (`audit` answers
   * undefined then). Throws NotFoundError when the account does not exist.
   */
  updateAccess(
    accountId: string,
    changes: { paidAccess?: boolean; subscriptionStatus?: SubscriptionStatus },
    now: string,
    audit: (before: Account, after: Account) => AuditEntry | undefined,
  ): Promise<Account>;
  /** Adds a positive grant to the balance together with its ledger entry and its audit entry, atomically. */
  grant(entry: LedgerEntry, audit: AuditEntry): Promise<void>;
  /**
   * Starts (`active`: paid access, subscription `active`) or ends (no paid access, `canceled`)
   * the test subscription kept on a test partition's own item, in one write conditioned on a
   * change: true when this call changed it, false when it already was so (ending one never
   * started leaves `none`). Throws NotFoundError when the item does not exist.
   */
  setTestSubscription(partitionId: string, active: boolean, now: string): Promise<boolean>;
  /**
   * Sets how many days the account keeps outputs (null: for good) on the live account item, which
   * lists it for the expiry while set, with `audit(before)`'s entry in the same write (none, and
   * no write, when it gives undefined). Throws NotFoundError when the account does not exist.
   */
  setOutputRetention(accountId: string, days: number | null, now: string, audit: (before: Account) => AuditEntry | undefined): Promise<Account>;
  /** The accounts with a retention set (live ids), in shards read page by page: the expiry's work list. */
  listWithRetention(): AsyncIterable<string>[];
}

/**
 * Every account, for operators (the admin CLI's `account list`), test balances (their own
 * scope, `acc_…_test`) included, in no particular order. It reads the whole table: never on a
 * request's path.
 */
export interface AccountDirectory {
  listAll(): Promise<Account[]>;
}

/** Account holders and the accounts they belong to (functions/domain/accounts/holder.ts, roles.ts). */
export interface HolderStore {
  get(holderId: string): Promise<Holder | undefined>;
  /**
   * The holder and every account they belong to, in one consistent read (the authorizer's and
   * `GET /accounts`' one call); undefined for a holder never recorded.
   */
  withMemberships(holderId: string): Promise<{ holder: Holder; memberships: Membership[] } | undefined>;
  /**
   * Creates the account (with its opening grant, when given), the holder, and the holder's
   * membership as the account's owner, in one step. Throws HolderExistsError when the holder
   * already exists, and then nothing is created.
   */
  createWithAccount(holder: Holder, account: Account, openingGrant?: LedgerEntry): Promise<void>;
  /**
   * Records a new holder as a member of an existing account with `role`. Throws HolderExistsError
   * when the holder exists, NotFoundError when the account does not.
   */
  attach(holder: Holder, role: Role): Promise<void>;
  /**
   * A holder from before teams becomes the owner of their home account (they had every right
   * there): once, however many sign-ins race to do it.
   */
  adoptLegacy(holder: Holder, now: string): Promise<void>;
}

/** A member as the members list shows them: the email is the holder item's (the one place it lives). */
export interface Member {
  holderId: string;
  email: string;
  role: Role;
  joinedAt: string;
}

/** Who makes a member change: a member (checked in the same write) or the operator (null). */
export type MemberActor = { holderId: string; role: Role } | null;

/**
 * An account's members (the pair ACCOUNT#a/MEMBER#h, HOLDER#h/MEMBERSHIP#a and the TEAM
 * counter). Changes are conditioned on what the judge read (roles.ts, judgeMemberChange): they
 * answer false, writing nothing, when any of it moved (the target's role, the owner count, the
 * actor's role), for the caller to read and judge again.
 */
export interface TeamStore {
  list(accountId: string): Promise<Member[]>;
  /**
   * Makes a recorded holder a member of an existing account with `role`, with its audit entry, in
   * one write. Throws NotFoundError for an unknown holder or account, AlreadyMemberError when
   * they are one, ValidationError past MAX_MEMBERS (field `members`) or MAX_MEMBERSHIPS (field
   * `accounts`); nothing is written then.
   */
  add(accountId: string, holderId: string, role: Role, now: string, entry: AuditEntry): Promise<void>;
  /** One consistent read of the owner count and the roles of `holderIds` (absent: no member). */
  state(accountId: string, holderIds: readonly string[]): Promise<{ owners: number; roles: Map<string, Role> }>;
  /** `from` → `to`, with its entry; an owner's demotion only while another owner remains. */
  changeRole(accountId: string, holderId: string, from: Role, to: Role, actor: MemberActor, entry: AuditEntry): Promise<boolean>;
  /** Removes the member (an owner only while another owner remains), with its entry. */
  remove(accountId: string, holderId: string, from: Role, actor: MemberActor, entry: AuditEntry): Promise<boolean>;
}

/** An invitation to join an account (accounts/invitations.ts). */
export interface Invitation {
  /** `inv_` + ULID. */
  invitationId: string;
  accountId: string;
  /** Lowercased. */
  email: string;
  role: Role;
  /** The inviter's holder id, or `operator`. */
  invitedBy: string;
  createdAt: string;
  /** ISO; it can no longer be accepted from then on. */
  expiresAt: string;
}

/**
 * An account's open invitations (docs/data-model.md: invitation, invite quota): one per address
 * and account (a new one replaces it), found by account (consistent) and by address (gsi1: a new
 * one may take a moment to show). Reads leave out expired ones (the table's TTL lags).
 */
export interface InvitationStore {
  /**
   * Stores the invitation in place of an open one to the same address, with its entry, counting
   * it against the account's `quota.max` for `quota.day`, while the actor (null: the operator)
   * still has the role read: 'quota' or 'moved' when not, and nothing is written.
   */
  invite(invitation: Invitation, actor: MemberActor, entry: AuditEntry, quota: { day: string; max: number }): Promise<'invited' | 'quota' | 'moved'>;
  /** Open invitations of the account at `now`, newest first. */
  forAccount(accountId: string, now: string): Promise<Invitation[]>;
  /** Open invitations to the (lowercased) address at `now`, newest first. */
  forEmail(email: string, now: string): Promise<Invitation[]>;
  /**
   * Uses the invitation up: the holder joins with its role (both sides of the membership, the
   * counters), with its entry, in one write. 'gone' when it is no longer open (accepted,
   * replaced, revoked, expired at `now`), 'member' when the holder is one already; nothing is
   * written then. Throws ValidationError past MAX_MEMBERS (field `members`) or MAX_MEMBERSHIPS (`accounts`).
   */
  accept(invitation: Invitation, holderId: string, now: string, entry: AuditEntry): Promise<'joined' | 'gone' | 'member'>;
  /** Deletes this invitation (by id: not one that replaced it) with its entry, while the actor has the role read. */
  revoke(invitation: Invitation, actor: MemberActor, entry: AuditEntry): Promise<'revoked' | 'gone' | 'moved'>;
}

/** What an invitation mail says: who invites whom to which account as what, until when. No secret: acceptance is bound to the verified address. */
export interface InvitationMail {
  to: string;
  accountId: string;
  role: Role;
  /** The inviter's address (null: the operator). */
  inviterEmail: string | null;
  expiresAt: string;
}

/** Sends the service's own mail (locally: a line in the stack's log; deployed: SES). */
export interface Mailer {
  sendInvitation(mail: InvitationMail): Promise<void>;
}

/**
 * The identity provider, as sessions need it. `verifyAccessToken` checks the token itself (the
 * signature against the provider's published keys, issuer, client, token use, expiry) and
 * answers the holder's id, or undefined for any token that fails. `currentHolder` asks the
 * provider whether that holder still exists, is enabled and has not signed out everywhere
 * (a signature cannot say so): undefined when not.
 */
export interface IdentityProvider {
  verifyAccessToken(token: string): Promise<{ holderId: string } | undefined>;
  currentHolder(token: string): Promise<IdentityHolder | undefined>;
}

export interface ApiKeyStore {
  /**
   * Stores a new key and its audit entry together, unless its account already has `maxActive`
   * unrevoked keys (false then, and no entry; exact under concurrency). Fails if a key with the
   * same id already exists.
   */
  create(record: ApiKeyRecord, maxActive: number, entry: AuditEntry): Promise<boolean>;
  get(keyId: string): Promise<ApiKeyRecord | undefined>;
  listForAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /**
   * Changes a key of this account (applyKeyChanges to the record as read) together with the
   * entry `audit` makes of the change; a change that changes nothing writes nothing (`audit`
   * answers undefined then). A key changed meanwhile is read again. Undefined for an unknown key
   * or another account's.
   */
  update(accountId: string, keyId: string, changes: ApiKeyChanges, audit: KeyChangeAudit): Promise<ApiKeyRecord | undefined>;
  /**
   * Marks the key revoked and frees its place among the account's keys, with the entry `audit`
   * makes of it, in one write. Idempotent: a second revoke keeps the first time and writes no
   * entry. Throws NotFoundError for an unknown key, or for another account's when `accountId`
   * is given.
   */
  revoke(keyId: string, now: string, audit: (record: ApiKeyRecord) => AuditEntry, accountId?: string): Promise<ApiKeyRecord>;
  /** Notes a use of the key (at most one write per key and minute: the caller's rate window). */
  recordUse(keyId: string, at: string): Promise<void>;
  /** Credits charged through each key in `month` (`yyyy-mm`, UTC), less their refunds. */
  spentInMonth(keyIds: readonly string[], month: string): Promise<Map<string, number>>;
}

/** The audit entry of a key's change from `before` to `after`; undefined when nothing changed. */
export type KeyChangeAudit = (before: ApiKeyRecord, after: ApiKeyRecord) => AuditEntry | undefined;

/** What PATCH /keys/{key_id} may change; a null limit removes it. */
export interface ApiKeyChanges {
  name?: string;
  scopes?: ApiKeyRecord['scopes'];
  monthlySpendLimit?: number | null;
  endUserMonthlySpendLimit?: number | null;
}

export interface LedgerStore {
  listForAccount(accountId: string): Promise<LedgerEntry[]>;
  /**
   * One page of a scope's ledger, newest first, and how many entries it has. Entries are
   * numbered 1..total in the order they were written, so a page reads only its own entries.
   */
  listPage(accountId: string, page: number, limit: number): Promise<{ entries: LedgerEntry[]; total: number }>;
}
