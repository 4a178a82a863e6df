import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TaskDurations } from '#domain/tasks/ports';
import { isConditionFailure, type Db } from './dynamo-client';
import { durationsKey } from './keys';

/**
 * Recent durations per provider and model, in one small item: `samples`, a list of `{ ms, at }`
 * that a completed task appends to (one write, no read), trimmed to the last SAMPLES once it
 * holds twice as many (a second, conditional write every SAMPLES completions). The typical
 * duration is the median of the recent samples of the last day (at least MIN_SAMPLES of them),
 * cached per container for CACHE_MS (a container that records a sample reads afresh; with no
 * history yet, for NO_HISTORY_CACHE_MS): a start or a view never waits on a read it made less
 * than a minute ago.
 */
const SAMPLES = 16;
const MIN_SAMPLES = 3;
const RECENT_MS = 24 * 60 * 60 * 1000;
export const DURATIONS_CACHE_MS = 60_000;
/** No history yet: looked at again sooner, so the first estimates appear seconds after the first completions. */
export const NO_HISTORY_CACHE_MS = 5_000;

interface Sample {
  ms: number;
  at: string;
}

export class DynamoTaskDurations implements TaskDurations {
  /** Per provider and model: the read (in flight or done) and when it was made; a page's tasks share one. */
  private readonly cache = new Map<string, { value: Promise<number | null>; readAt: number; keepMs: number }>();

  constructor(
    private readonly db: Db,
    private readonly cacheMs = DURATIONS_CACHE_MS,
  ) {}

  async record(provider: string, model: string, task: { taskId: string; createdAt: string; completedAt: string }): Promise<void> {
    const ms = Date.parse(task.completedAt) - Date.parse(task.createdAt);
    if (!Number.isFinite(ms) || ms < 0) return;
    const key = durationsKey(provider, model);
    const { Attributes } = await this.db.doc.send(
      new UpdateCommand({
        TableName: this.db.tableName,
        Key: key,
        UpdateExpression: 'SET samples = list_append(if_not_exists(samples, :none), :sample), updated_at = :at',
        ExpressionAttributeValues: { ':none': [], ':sample': [{ ms, at: task.completedAt } satisfies Sample], ':at': task.completedAt },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const length = Array.isArray(Attributes?.samples) ? Attributes.samples.length : 0;
    if (length >= 2 * SAMPLES) await this.trim(key, length);
    // This container reads its own samples at once; others within their cache's minute.
    this.cache.delete(`${provider}#${model}`);
  }

  /** Keeps the last SAMPLES, if nobody appended or trimmed since the length was read. */
  private async trim(key: ReturnType<typeof durationsKey>, length: number): Promise<void> {
    const oldest = Array.from({ length: length - SAMPLES }, (_, index) => `samples[${index}]`);
    try {
      await this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: key,
          UpdateExpression: `REMOVE ${oldest.join(', ')}`,
          ConditionExpression: 'size(samples) = :length',
          ExpressionAttributeValues: { ':length': length },
        }),
      );
    } catch (error) {
      // Another completion got there first: the next one trims.
      if (!isConditionFailure(error)) throw error;
    }
  }

  async typicalMs(provider: string, model: string, now: Date): Promise<number | null> {
    const key = `${provider}#${model}`;
    const cached = this.cache.get(key);
    if (cached && now.getTime() - cached.readAt < cached.keepMs) return cached.value;
    const value = this.db.doc
      .send(new GetCommand({ TableName: this.db.tableName, Key: durationsKey(provider, model) }))
      .then(({ Item }) => medianOfRecent(samplesOf(Item), now));
    const entry = { value, readAt: now.getTime(), keepMs: this.cacheMs };
    this.cache.set(key, entry);
    value.then(
      (typical) => {
        if (typical === null) entry.keepMs = Math.min(this.cacheMs, NO_HISTORY_CACHE_MS);
      },
      // A failed read is not kept: the next caller tries again.
      () => this.cache.delete(key),
    );
    return value;
  }
}

function samplesOf(item: Record<string, unknown> | undefined): Sample[] {
  const samples = Array.isArray(item?.samples) ? (item.samples as unknown[]) : [];
  return samples
    .slice(-SAMPLES)
    .filter((sample): sample is Sample => typeof sample === 'object' && sample !== null && typeof (sample as Sample).ms === 'number' && typeof (sample as Sample).at === 'string');
}

export function medianOfRecent(samples: readonly Sample[], now: Date): number | null {
  const recent = samples.filter((sample) => now.getTime() - Date.parse(sample.at) <= RECENT_MS).map((sample) => sample.ms);
  if (recent.length < MIN_SAMPLES) return null;
  const sorted = [...recent].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}
