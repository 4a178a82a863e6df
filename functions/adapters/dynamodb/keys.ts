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

/** A task lives in its account's partition, so a lookup by id is owner-only by construction. */
export const taskKey = (accountId: string, taskId: string): PrimaryKey => ({
  pk: accountPartition(accountId),
  sk: `TASK#${taskId}`,
});

/** lsi1 position of a task in its account's history of that kind (zero-padded for order). */
export const taskHistoryPrefix = (kind: 'video' | 'image'): string => (kind === 'video' ? 'VIDEO#' : 'IMAGE#');
export const taskHistoryKey = (kind: 'video' | 'image', seq: number): string =>
  `${taskHistoryPrefix(kind)}${String(seq).padStart(12, '0')}`;

/** gsi1 entry present only while a task is processing: the sweeper's work list, oldest first. */
export const PROCESSING_GSI1_PK = 'TASKS#PROCESSING';
export const processingEntry = (createdAt: string, taskId: string) => ({
  gsi1pk: PROCESSING_GSI1_PK,
  gsi1sk: `${createdAt}#${taskId}`,
});

/** One record per account and Idempotency-Key (the key itself hashed: it is client data). */
export const idempotencyKey = (accountId: string, keyHash: string): PrimaryKey => ({
  pk: `IDEMPOTENCY#${accountId}#${keyHash}`,
  sk: 'IDEMPOTENCY',
});

/** A webhook endpoint, in its account's partition (so lookups are owner-only by construction). */
export const WEBHOOK_SK_PREFIX = 'WEBHOOK#';
export const webhookKey = (accountId: string, webhookId: string): PrimaryKey => ({
  pk: accountPartition(accountId),
  sk: `${WEBHOOK_SK_PREFIX}${webhookId}`,
});

/** One delivery of one event to one endpoint: the key makes a second record for the pair impossible. */
export const deliveryKey = (accountId: string, webhookId: string, eventId: string): PrimaryKey => ({
  pk: accountPartition(accountId),
  sk: `DELIVERY#${webhookId}#${eventId}`,
});

/** lsi1 position of a delivery in its endpoint's list (zero-padded for order). */
export const deliveryListKey = (webhookId: string, seq: number): string => `DELIVERY#${webhookId}#${String(seq).padStart(12, '0')}`;

/** The publication claim and answer of one direct upload (POST /uploads/{id}/complete). */
export const uploadPublicationKey = (accountId: string, uploadId: string): PrimaryKey => ({
  pk: `UPLOAD#${accountId}#${uploadId}`,
  sk: 'UPLOAD',
});
