import { monotonicFactory, ulid } from 'ulid';

// ULIDs sort by creation time, so "newest first" is a reverse key order in DynamoDB.
const nextUlid = monotonicFactory();

export const newAccountId = (): string => `acc_${nextUlid()}`;
export const newLedgerEntryId = (): string => nextUlid();
// Task ids appear in public URLs: a fresh random part each (a monotonic ULID made in the same
// millisecond would differ from its neighbour by one).
export const newTaskId = (kind: 'video' | 'image'): string => `${kind === 'video' ? 'vid' : 'img'}_${ulid()}`;
