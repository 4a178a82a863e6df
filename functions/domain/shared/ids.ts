import { monotonicFactory, ulid } from 'ulid';

// ULIDs sort by creation time, so "newest first" is a reverse key order in DynamoDB.
const nextUlid = monotonicFactory();

export const newAccountId = (): string => `acc_${nextUlid()}`;
export const newLedgerEntryId = (): string => nextUlid();
// Task ids appear in public URLs: a fresh random part each (a monotonic ULID made in the same
// millisecond would differ from its neighbour by one).
export const newTaskId = (kind: 'video' | 'image'): string => `${kind === 'video' ? 'vid' : 'img'}_${ulid()}`;
export const newWebhookId = (): string => `whk_${ulid()}`;
export const newEventId = (): string => `evt_${ulid()}`;
/** A task ends once, so its event id is derived from the task id: a re-announcement is the same event. */
export const taskEventId = (taskId: string): string => `evt_${taskId.replace(/^[a-z]+_/, '')}`;
/** Audit entries (issue 36): monotonic, so two entries of one millisecond keep their order. */
export const newAuditId = (): string => `aud_${nextUlid()}`;
/** Invitations (issue 36): a fresh random part each (the id is named in URLs and mail, never guessed from a neighbour). */
export const newInvitationId = (): string => `inv_${ulid()}`;
