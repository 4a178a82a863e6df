import type { CircuitRecord, CircuitStore } from '#domain/providers/ports';

/** Circuits in one process's memory, for unit tests (the table's: adapters/dynamodb/circuit-repository.ts). */
export class MemoryCircuitStore implements CircuitStore {
  private readonly records = new Map<string, CircuitRecord>();

  async read(provider: string): Promise<CircuitRecord> {
    return { ...(this.records.get(provider) ?? { failures: 0 }) };
  }

  async addFailure(provider: string): Promise<CircuitRecord> {
    const record = { ...(this.records.get(provider) ?? { failures: 0 }) };
    record.failures += 1;
    this.records.set(provider, record);
    return { ...record };
  }

  async open(provider: string, seenOpenUntil: number | undefined, until: number): Promise<boolean> {
    const record = this.records.get(provider) ?? { failures: 0 };
    if (record.openUntil !== seenOpenUntil) return false;
    const { probeUntil: _, ...rest } = record;
    this.records.set(provider, { ...rest, openUntil: until });
    return true;
  }

  async claimProbe(provider: string, openUntil: number, now: number, probeUntil: number): Promise<boolean> {
    const record = this.records.get(provider);
    if (!record || record.openUntil !== openUntil || (record.probeUntil !== undefined && record.probeUntil > now)) return false;
    this.records.set(provider, { ...record, probeUntil });
    return true;
  }

  async close(provider: string): Promise<void> {
    this.records.set(provider, { failures: 0 });
  }
}
