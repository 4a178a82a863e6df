import type { ApiKeyRecord } from '../../functions/domain/api-key';
import { NotFoundError } from '../../functions/domain/errors';
import type { ApiKeyStore } from '../../functions/domain/ports';
import type { RateCounter, RateWindow } from '../../functions/domain/rate-limit';

/** In-memory stand-ins for unit tests of the use cases (the DynamoDB ones have their own tests). */
export class MemoryApiKeyStore implements ApiKeyStore {
  readonly records = new Map<string, ApiKeyRecord>();
  lookups = 0;

  async create(record: ApiKeyRecord): Promise<void> {
    if (this.records.has(record.keyId)) throw new Error('duplicate');
    this.records.set(record.keyId, { ...record });
  }
  async get(keyId: string): Promise<ApiKeyRecord | undefined> {
    this.lookups += 1;
    return this.records.get(keyId);
  }
  async listForAccount(accountId: string): Promise<ApiKeyRecord[]> {
    return [...this.records.values()].filter((record) => record.accountId === accountId);
  }
  async revoke(keyId: string, now: string): Promise<ApiKeyRecord> {
    const record = this.records.get(keyId);
    if (!record) throw new NotFoundError(keyId);
    record.revokedAt ??= now;
    return record;
  }
}

export class MemoryRateCounter implements RateCounter {
  readonly counts = new Map<string, number>();

  async increment(keyId: string, window: RateWindow, limit: number): Promise<number | undefined> {
    const id = `${keyId}#${window.id}`;
    const count = this.counts.get(id) ?? 0;
    if (count >= limit) return undefined;
    this.counts.set(id, count + 1);
    return count + 1;
  }
}
