import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, type Db } from '../dynamo-client';
import { outputsPartition } from '../keys';

/** Updates in flight at once: enough to keep a Scan page's worth moving, few enough for one table's capacity. */
const CONCURRENT_UPDATES = 16;

export interface BackfillPage {
  /** Task items the Scan's filter kept: completed, outputs stored, in no list. */
  readonly found: number;
  /** Of those, entered into their partition's outputs list (the rest moved meanwhile). */
  readonly indexed: number;
  /** Where the next run starts (the Scan's position); absent when the table was read to its end. */
  readonly resumeKey?: string;
}

/**
 * Puts completed tasks written before the retention existed into their partition's list of
 * stored outputs (gsi2 OUTPUTS#, keys.ts), which the expiry reads: until then their outputs would
 * never expire. A Scan of the whole table, filtered to completed task items with outputs and no
 * gsi2 entry, then one conditional UpdateItem each, whose condition repeats the filter: a task
 * deleted, expired or re-listed meanwhile is left as it is. Idempotent: a second run finds nothing.
 * `maxPages` bounds one call (a Scan page is at most 1 MB, or `itemsPerPage` items read before the
 * filter); `resumeKey` continues where it stopped.
 */
export async function indexStoredOutputs(db: Db, options: { resumeKey?: string; maxPages?: number; itemsPerPage?: number } = {}): Promise<BackfillPage> {
  let startKey = options.resumeKey === undefined ? undefined : scanPosition(options.resumeKey);
  let found = 0;
  let indexed = 0;
  let pages = 0;
  do {
    const page = await db.doc.send(
      new ScanCommand({
        TableName: db.tableName,
        FilterExpression: `begins_with(sk, :task) AND #status = :completed AND ${STORED_AND_UNLISTED}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':task': 'TASK#', ':completed': 'completed' },
        ProjectionExpression: 'pk, sk, completed_at',
        ...(options.itemsPerPage && { Limit: options.itemsPerPage }),
        ...(startKey && { ExclusiveStartKey: startKey }),
      }),
    );
    const items = (page.Items ?? []) as Array<{ pk: string; sk: string; completed_at?: string }>;
    found += items.length;
    for (let next = 0; next < items.length; next += CONCURRENT_UPDATES) {
      const outcomes = await Promise.all(items.slice(next, next + CONCURRENT_UPDATES).map((item) => enter(db, item)));
      indexed += outcomes.filter(Boolean).length;
    }
    startKey = page.LastEvaluatedKey;
    pages += 1;
  } while (startKey && pages < (options.maxPages ?? Number.POSITIVE_INFINITY));
  return { found, indexed, ...(startKey && { resumeKey: Buffer.from(JSON.stringify(startKey)).toString('base64url') }) };
}

/** A resume key that no run printed. */
export class UnknownResumeKeyError extends Error {}

/** The Scan position a resume key holds: a task item's key (pk ACCOUNT#…, sk TASK#…). */
function scanPosition(resumeKey: string): Record<string, unknown> {
  try {
    const key = JSON.parse(Buffer.from(resumeKey, 'base64url').toString()) as { pk?: unknown; sk?: unknown };
    if (typeof key.pk === 'string' && typeof key.sk === 'string') return key;
  } catch {
    // Not JSON: said below.
  }
  throw new UnknownResumeKeyError('is not a resume key a previous run printed');
}

/** Completed with its outputs still stored (not deleted or expired) and in no gsi2 list (not the outbox, not deleting). */
const STORED_AND_UNLISTED = 'attribute_exists(completed_at) AND attribute_not_exists(output_deleted_at) AND attribute_not_exists(gsi2pk)';

async function enter(db: Db, item: { pk: string; sk: string; completed_at?: string }): Promise<boolean> {
  if (!item.completed_at) return false;
  const partitionId = item.pk.slice('ACCOUNT#'.length);
  const taskId = item.sk.slice('TASK#'.length);
  try {
    await db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: 'SET gsi2pk = :outputsPk, gsi2sk = :outputsSk',
        ConditionExpression: `#status = :completed AND ${STORED_AND_UNLISTED}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':completed': 'completed', ':outputsPk': outputsPartition(partitionId), ':outputsSk': `${item.completed_at}#${taskId}` },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
