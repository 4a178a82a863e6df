import { createHash } from 'node:crypto';
import type { InFlightPhase } from '#domain/tasks/phase';

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

/** lsi1 position of a ledger entry in its scope's ledger (zero-padded for order). */
export const LEDGER_POSITION_PREFIX = 'LEDGER#';
export const ledgerPositionKey = (position: number): string => `${LEDGER_POSITION_PREFIX}${String(position).padStart(12, '0')}`;

export const apiKeyKey = (keyId: string): PrimaryKey => ({ pk: `APIKEY#${keyId}`, sk: API_KEY_SK });

/** gsi1 entry that lists an account's keys. */
export const apiKeyByAccount = (accountId: string, keyId: string) => ({
  gsi1pk: accountPartition(accountId),
  gsi1sk: `APIKEY#${keyId}`,
});
export const API_KEY_GSI1_PREFIX = 'APIKEY#';

/** An account holder (the identity provider's `sub`) and the account their sessions act on. */
export const holderKey = (holderId: string): PrimaryKey => ({ pk: `HOLDER#${holderId}`, sk: 'HOLDER' });
/** The holder's side of a membership: one Query on `HOLDER#h` lists the holder and every account they belong to. */
export const MEMBERSHIP_SK_PREFIX = 'MEMBERSHIP#';
export const membershipKey = (holderId: string, accountId: string): PrimaryKey => ({ pk: `HOLDER#${holderId}`, sk: `${MEMBERSHIP_SK_PREFIX}${accountId}` });
export const holderPartition = (holderId: string): string => `HOLDER#${holderId}`;
/** The account's side of a membership (the members list: `begins_with MEMBER#`). */
export const MEMBER_SK_PREFIX = 'MEMBER#';
export const memberKey = (accountId: string, holderId: string): PrimaryKey => ({ pk: accountPartition(accountId), sk: `${MEMBER_SK_PREFIX}${holderId}` });
/** An account's member and owner counts: the "at least one owner" condition lives here, off the hot account item. */
export const teamKey = (accountId: string): PrimaryKey => ({ pk: accountPartition(accountId), sk: 'TEAM' });
/**
 * An open invitation, one per account and address: keyed by the address's hash (a fixed length
 * whatever the address), so a new invitation to the same address replaces the open one.
 */
export const INVITATION_SK_PREFIX = 'INVITATION#';
export const invitationKey = (accountId: string, email: string): PrimaryKey => ({
  pk: accountPartition(accountId),
  sk: `${INVITATION_SK_PREFIX}${createHash('sha256').update(email).digest('hex').slice(0, 32)}`,
});
/** gsi1 entry that lists an address's invitations, newest first (GET /invitations). */
export const inviteePartition = (email: string): string => `INVITEE#${email}`;
export const inviteeEntry = (email: string, createdAt: string, accountId: string) => ({ gsi1pk: inviteePartition(email), gsi1sk: `INVITATION#${createdAt}#${accountId}` });
/** Invitations an account sent on one UTC day (`yyyy-mm-dd`): the daily quota's condition. */
export const inviteQuotaKey = (accountId: string, day: string): PrimaryKey => ({ pk: accountPartition(accountId), sk: `INVITES#${day}` });
/** How many unrevoked keys an account has (apart from the account item, which every start writes). */
export const apiKeyCountKey = (accountId: string): PrimaryKey => ({ pk: accountPartition(accountId), sk: 'APIKEYCOUNT' });

/** Credits charged through a key in one UTC calendar month (`yyyy-mm`): a new month is a new item. */
export const keySpendKey = (keyId: string, month: string): PrimaryKey => ({ pk: `KEYSPEND#${keyId}#${month}`, sk: 'KEYSPEND' });

/**
 * What one end user was charged through one key in one month (`yyyy-mm`), less refunds: the
 * key's limit per end user is a condition on it. `#` never occurs in an end user (its alphabet
 * is `A-Z a-z 0-9 _ - . : @`) or a key id.
 */
/**
 * A usage roll-up cell (domain/usage/cells.ts): per partition, kind of group and period (`yyyy-mm`
 * month item, `yyyy` year item), one item per group; `G#` alone is "no group" (no key, no end user).
 */
export const usageCellKey = (partitionId: string, kind: string, period: string, group: string | null): PrimaryKey => ({
  pk: usagePartition(partitionId, kind, period),
  sk: `${USAGE_GROUP_PREFIX}${group ?? ''}`,
});
export const usagePartition = (partitionId: string, kind: string, period: string): string => `USAGE#${partitionId}#${kind}#${period}`;
export const USAGE_GROUP_PREFIX = 'G#';

export const endUserSpendKey = (keyId: string, month: string, endUser: string): PrimaryKey => ({
  pk: `EUSPEND#${keyId}#${month}#${endUser}`,
  sk: 'EUSPEND',
});

/**
 * One end user's history in a partition (issue 34, pattern 16b): this item holds its counts per
 * kind and the positions its starts allocated until they are settled (`pending_<taskId>`), out
 * of the ACCOUNT# item collection; each settled task's gsi1 entry sits under the same value, at
 * the same zero-padded positions as lsi1, so a page is one exact range read.
 */
export const END_USER_SK = 'ENDUSER';
export const endUserPartition = (partitionId: string, endUser: string): string => `ENDUSER#${partitionId}#${endUser}`;
export const endUserKey = (partitionId: string, endUser: string): PrimaryKey => ({ pk: endUserPartition(partitionId, endUser), sk: END_USER_SK });
export const endUserHistoryEntry = (partitionId: string, endUser: string, kind: 'video' | 'image', seq: number) => ({
  gsi1pk: endUserPartition(partitionId, endUser),
  gsi1sk: taskHistoryKey(kind, seq),
});

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

/**
 * The in-flight index (gsi2, keys only) holds a task only while it is processing: the sweeper's
 * work list, oldest first within each shard. Tasks spread over IN_FLIGHT_SHARDS partitions by a
 * hash of their id, so no single partition takes every start's and every finish's index write.
 * The count may only grow: tasks written under a smaller count stay in shards the sweeper reads.
 * A task's start indexes it under TASKS#PROCESSING#<shard> (by creation); each move into another
 * in-flight phase re-indexes it under TASKS#<PHASE>#<shard> (by when it entered that phase).
 */
export const IN_FLIGHT_SHARDS = 16;
const IN_FLIGHT_PREFIX = 'TASKS#PROCESSING#';
export const inFlightPartition = (shard: number): string => `${IN_FLIGHT_PREFIX}${shard}`;
export function inFlightShardOf(taskId: string): number {
  let hash = 0x811c9dc5; // FNV-1a: stable across processes and releases
  for (let i = 0; i < taskId.length; i += 1) hash = Math.imul(hash ^ taskId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % IN_FLIGHT_SHARDS;
}
/**
 * The same index's outbox: a task that has ended keeps an entry under TASKS#ENDED#<shard> until
 * its webhook events are published, so an ending whose publication was cut short is found again.
 */
export const OUTBOX_PREFIX = 'TASKS#ENDED#';
export const endedPartition = (shard: number): string => `${OUTBOX_PREFIX}${shard}`;
export const endedEntryValues = (endedAt: string, taskId: string) => ({
  ':endedPk': endedPartition(inFlightShardOf(taskId)),
  ':endedSk': `${endedAt}#${taskId}`,
});

/**
 * The phases with a work list of their own: in flight, `delivering` (once announced: a delivery
 * whose message went missing) and `deleting` (outputs whose removal was cut short).
 */
export type ListedPhase = InFlightPhase | 'delivering' | 'deleting';
export const phasePartition = (phase: ListedPhase, shard: number): string => `TASKS#${phase.toUpperCase()}#${shard}`;
export const phaseEntryValues = (phase: ListedPhase, phaseAt: string, taskId: string) => ({
  ':phasePk': phasePartition(phase, inFlightShardOf(taskId)),
  ':phaseSk': `${phaseAt}#${taskId}`,
});

export const inFlightEntry = (createdAt: string, taskId: string) => ({
  gsi2pk: inFlightPartition(inFlightShardOf(taskId)),
  gsi2sk: `${createdAt}#${taskId}`,
});

/** The owner and id of a task, read back from its primary key (the in-flight index projects keys only). */
export function taskRefOf(key: { pk: string; sk: string }): { accountId: string; taskId: string } {
  return { accountId: key.pk.slice('ACCOUNT#'.length), taskId: key.sk.slice('TASK#'.length) };
}

export const IDEMPOTENCY_SK = 'IDEMPOTENCY';
/** One record per account and Idempotency-Key (the key itself hashed: it is client data). */
export const idempotencyKey = (accountId: string, keyHash: string): PrimaryKey => ({
  pk: `IDEMPOTENCY#${accountId}#${keyHash}`,
  sk: IDEMPOTENCY_SK,
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

/**
 * The same index's list of pending deliveries: a delivery keeps an entry under
 * DELIVERIES#PENDING#<shard>, sorted by when its next attempt is due, until it is delivered or
 * failed, so the sweeper finds the ones whose queue message was lost (a restart of the local stack).
 */
const PENDING_DELIVERY_PREFIX = 'DELIVERIES#PENDING#';
export const pendingDeliveryPartition = (shard: number): string => `${PENDING_DELIVERY_PREFIX}${shard}`;
export const pendingDeliveryEntry = (nextAttemptAt: string, webhookId: string, eventId: string) => ({
  gsi2pk: pendingDeliveryPartition(inFlightShardOf(eventId)),
  gsi2sk: `${nextAttemptAt}#${webhookId}#${eventId}`,
});

/** The delivery a pending entry names, read back from its primary key (the index projects keys only). */
export function deliveryRefOf(key: { pk: string; sk: string }): { accountId: string; webhookId: string; eventId: string } {
  const [webhookId = '', eventId = ''] = key.sk.slice('DELIVERY#'.length).split('#');
  return { accountId: key.pk.slice('ACCOUNT#'.length), webhookId, eventId };
}

/** lsi1 position of a delivery in its endpoint's list (zero-padded for order). */
export const deliveryListKey = (webhookId: string, seq: number): string => `DELIVERY#${webhookId}#${String(seq).padStart(12, '0')}`;

/** The publication claim and answer of one direct upload (POST /uploads/{id}/complete). */
export const uploadPublicationKey = (accountId: string, uploadId: string): PrimaryKey => ({
  pk: `UPLOAD#${accountId}#${uploadId}`,
  sk: 'UPLOAD',
});

/** A provider callback message already received (its webhook-id hashed: it is the provider's data). */
export const callbackReceiptKey = (provider: string, messageIdHash: string): PrimaryKey => ({
  pk: `CALLBACK#${provider}#${messageIdHash}`,
  sk: 'CALLBACK',
});

/** One item per provider: its circuit breaker, shared by every function instance. */
export const circuitKey = (provider: string): PrimaryKey => ({ pk: `CIRCUIT#${provider}`, sk: 'CIRCUIT' });
/** A small recent sample of how long tasks of a model take on a provider (task-durations.ts). */
export const durationsKey = (provider: string, model: string): PrimaryKey => ({ pk: `DURATIONS#${provider}#${model}`, sk: 'DURATIONS' });
/** Billing: which account a payment customer (Stripe `cus_…`) belongs to. */
export const paymentCustomerKey = (customerId: string): PrimaryKey => ({ pk: `PAYCUSTOMER#${customerId}`, sk: 'PAYCUSTOMER' });
/** A pack bought, keyed by its Checkout Session: its one grant, and what reversals claimed back. */
export const purchaseKey = (checkoutId: string): PrimaryKey => ({ pk: `PURCHASE#${checkoutId}`, sk: 'PURCHASE' });
/** The purchase a payment (Stripe `pi_…`) paid for, named by its refunds and disputes. */
export const purchasePaymentKey = (paymentId: string): PrimaryKey => ({ pk: `PAYMENT#${paymentId}`, sk: 'PAYMENT' });
/** A subscription invoice (Stripe `in_…`) already recorded as paid: its payment is listed once. */
export const paidInvoiceKey = (invoiceId: string): PrimaryKey => ({ pk: `INVOICE#${invoiceId}`, sk: 'INVOICE' });
/** A subscription payment in its account's partition, ordered by when it was paid (its invoice breaks ties). */
export const SUBSCRIPTION_PAYMENT_SK_PREFIX = 'SUBPAYMENT#';
export const subscriptionPaymentKey = (accountId: string, paidAt: string, invoiceId: string): PrimaryKey => ({
  pk: accountPartition(accountId),
  sk: `${SUBSCRIPTION_PAYMENT_SK_PREFIX}${paidAt}#${invoiceId}`,
});
/**
 * A scope's events feed: a counter item (the last position taken) and one item per event, keyed
 * by the event id so an ending announced twice is stored once.
 */
export const eventFeedCounterKey = (accountId: string): PrimaryKey => ({ pk: accountPartition(accountId), sk: 'EVENTS' });
export const feedEventKey = (accountId: string, eventId: string): PrimaryKey => ({
  pk: accountPartition(accountId),
  sk: `EVENT#${eventId}`,
});
/** lsi1 position of an event in its scope's feed (zero-padded for order). */
export const feedPositionKey = (position: number): string => `EVENT#${String(position).padStart(12, '0')}`;

/** An account's audit log (issue 36): its own partition, out of the ACCOUNT# item collection (lsi1's 10 GB). */
export const auditPartition = (accountId: string): string => `AUDIT#${accountId}`;
/** The sort key is the entry id's ULID: newest first is a reverse Query. */
export const auditKey = (accountId: string, entryId: string): PrimaryKey => ({ pk: auditPartition(accountId), sk: entryId.replace(/^aud_/, '') });
/**
 * The accounts with an output retention (gsi2, keys only; the account item's own entry while set):
 * RETENTION#<shard> / accountId, 16 shards by the same hash. The expiry reads them.
 */
export const retentionPartition = (shard: number): string => `RETENTION#${shard}`;
export const retentionEntryValues = (accountId: string) => ({ ':listPk': retentionPartition(inFlightShardOf(accountId)), ':listSk': accountId });

/**
 * A partition's completed tasks with stored outputs, by completion (gsi2, keys only): OUTPUTS#<partition>
 * / <completed_at>#<taskId>, written when the completion is announced, replaced when the outputs are deleted.
 */
export const outputsPartition = (partitionId: string): string => `OUTPUTS#${partitionId}`;
