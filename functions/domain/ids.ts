import { monotonicFactory } from 'ulid';

// ULIDs sort by creation time, so "newest first" is a reverse key order in DynamoDB.
const nextUlid = monotonicFactory();

export const newAccountId = (): string => `acc_${nextUlid()}`;
export const newLedgerEntryId = (): string => nextUlid();
