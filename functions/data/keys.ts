/**
 * Every key template of the table lives here and nowhere else. Repositories build items with
 * these functions; nothing else in the code base spells a `pk` or `sk` value.
 */
export interface PrimaryKey {
  pk: string;
  sk: string;
}

export const ACCOUNT_SK = 'ACCOUNT';
export const LEDGER_SK_PREFIX = 'LEDGER#';
const API_KEY_SK = 'APIKEY';
const RATE_SK = 'RATE';

export const accountKey = (accountId: string): PrimaryKey => ({
  pk: `ACCOUNT#${accountId}`,
  sk: ACCOUNT_SK,
});

export const accountPartition = (accountId: string): string => `ACCOUNT#${accountId}`;

export const ledgerEntryKey = (accountId: string, entryId: string): PrimaryKey => ({
  pk: accountPartition(accountId),
  sk: `${LEDGER_SK_PREFIX}${entryId}`,
});

export const apiKeyKey = (keyId: string): PrimaryKey => ({ pk: `APIKEY#${keyId}`, sk: API_KEY_SK });

/** gsi1 entry that lists an account's keys. */
export const apiKeyByAccount = (accountId: string, keyId: string) => ({
  gsi1pk: accountPartition(accountId),
  gsi1sk: `APIKEY#${keyId}`,
});
export const API_KEY_GSI1_PREFIX = 'APIKEY#';

/** One counter item per key and one-minute window. */
export const rateWindowKey = (keyId: string, windowId: number): PrimaryKey => ({
  pk: `RATE#${keyId}#${windowId}`,
  sk: RATE_SK,
});
