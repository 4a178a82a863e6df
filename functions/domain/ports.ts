import type { Account, SubscriptionStatus } from './account';
import type { ApiKeyRecord } from './api-key';
import type { LedgerEntry } from './ledger';

/**
 * What the use cases need from storage. The DynamoDB repositories in functions/data implement
 * these; the domain never sees a table, a key template or an SDK call.
 */
export interface AccountStore {
  get(accountId: string): Promise<Account | undefined>;
  /** Creates the account and, when given, its opening grant, atomically. */
  create(account: Account, openingGrant?: LedgerEntry): Promise<void>;
  /** Throws NotFoundError when the account does not exist. */
  updateAccess(
    accountId: string,
    changes: { paidAccess?: boolean; subscriptionStatus?: SubscriptionStatus },
    now: string,
  ): Promise<Account>;
  /** Adds a positive grant to the balance together with its ledger entry. */
  grant(entry: LedgerEntry): Promise<void>;
}

export interface ApiKeyStore {
  /** Fails if a key with the same id already exists. */
  create(record: ApiKeyRecord): Promise<void>;
  get(keyId: string): Promise<ApiKeyRecord | undefined>;
  listForAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked (idempotent). Throws NotFoundError for an unknown key. */
  revoke(keyId: string, now: string): Promise<ApiKeyRecord>;
}

export interface LedgerStore {
  listForAccount(accountId: string): Promise<LedgerEntry[]>;
}
