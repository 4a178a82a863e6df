import type { CircuitRecord, CircuitStore } from './ports';

export interface CircuitSettings {
  failureThreshold: number;
  coolDownMs: number;
  /** How long a claimed probe holds the half-open circuit before another caller may probe. */
  probeTimeoutMs: number;
}

/** How long a container trusts what it knows of a circuit without reading it again. */
export const CIRCUIT_CACHE_MS = 1_000;

export const DEFAULT_CIRCUIT_SETTINGS: CircuitSettings = {
  failureThreshold: 5,
  coolDownMs: 30_000,
  probeTimeoutMs: 30_000,
};

/**
 * A circuit as operators read it: `closed` (creates go out), `open` (skipped until `openUntil`),
 * or `half_open` (the cool-down is over: the next start probes it, or its probe is out).
 */
export type CircuitStatus = 'closed' | 'open' | 'half_open';

export function circuitStatus(record: CircuitRecord, now: number): CircuitStatus {
  if (record.openUntil === undefined) return 'closed';
  return now < record.openUntil ? 'open' : 'half_open';
}

/** What a caller may do now: send (`closed`), send the one probe (`probe`), or skip (`open`). */
export type CircuitState = 'closed' | 'probe' | 'open';

export interface CircuitGate {
  state: CircuitState;
  /** Consecutive failures as read: a success needs to write only when there were some. */
  failures: number;
}

/**
 * A circuit breaker per provider, shared by every function instance through the table (not per
 * process: one Lambda that saw a provider fail must spare the others the same timeouts).
 *
 * - Closed: creates go out. Each create that failed in a way that says the provider is unwell
 *   (5xx, refused connection, timeout) adds one consecutive failure; any answer resets the count.
 * - Open: after `failureThreshold` consecutive failures the provider is skipped until
 *   `coolDownMs` has passed (starts go to the model's next route, or answer 502).
 * - Half-open: after the cool-down exactly ONE caller, across all instances, wins a conditional
 *   write and sends a probe create; the others keep skipping. The probe's success closes the
 *   circuit; its failure opens it for another cool-down. A probe whose caller died is given up
 *   after `probeTimeoutMs`, so another caller may probe.
 *
 * Each instance (one per container) keeps what it last read or wrote of a circuit for
 * CIRCUIT_CACHE_MS, so a warm start reads nothing: another container's opening is seen up to that
 * much late (a few extra creates to a provider that just failed elsewhere; docs/tasks.md,
 * "Routing and failover"). The probe's claim is never cached: it stays one conditional write.
 */
export class CircuitBreaker {
  /** What this container last knew of each circuit, and when (the gate's own clock). */
  private readonly known = new Map<string, { record: CircuitRecord; at: number }>();

  constructor(
    private readonly store: CircuitStore,
    readonly settings: CircuitSettings = DEFAULT_CIRCUIT_SETTINGS,
  ) {}

  /**
   * Reads the circuit into this container's cache if what it knows is stale, so the `gate` that
   * follows within CIRCUIT_CACHE_MS reads nothing (a start warms it alongside its charge).
   */
  async warm(provider: string, now: number): Promise<void> {
    await this.read(provider, now);
  }

  /** May a create go to `provider` now? A half-open circuit admits one caller as its probe. */
  async gate(provider: string, now: number): Promise<CircuitGate> {
    const record = await this.read(provider, now);
    if (record.openUntil === undefined) return { state: 'closed', failures: record.failures };
    if (now < record.openUntil) return { state: 'open', failures: record.failures };
    const claimed = await this.store.claimProbe(provider, record.openUntil, now, now + this.settings.probeTimeoutMs);
    return { state: claimed ? 'probe' : 'open', failures: record.failures };
  }

  /** The provider answered: the circuit closes (written only when it was not already clean). */
  async succeeded(provider: string, gate: CircuitGate, now: number): Promise<void> {
    if (gate.state !== 'probe' && gate.failures === 0) return;
    await this.store.close(provider);
    this.known.set(provider, { record: { failures: 0 }, at: now });
  }

  /** The provider failed a create: counted; true when this failure opened (or reopened) the circuit. */
  async failed(provider: string, now: number): Promise<boolean> {
    const record = await this.store.addFailure(provider);
    this.known.set(provider, { record, at: now });
    if (record.failures < this.settings.failureThreshold) return false;
    // Already open and cooling down: in-flight failures do not extend the cool-down.
    if (record.openUntil !== undefined && record.openUntil > now) return false;
    const until = now + this.settings.coolDownMs;
    const opened = await this.store.open(provider, record.openUntil, until);
    // Opened here, or by a racing failure elsewhere: read it again next time.
    if (opened) this.known.set(provider, { record: { failures: record.failures, openUntil: until }, at: now });
    else this.known.delete(provider);
    return opened;
  }

  private async read(provider: string, now: number): Promise<CircuitRecord> {
    const known = this.known.get(provider);
    if (known && now >= known.at && now - known.at < CIRCUIT_CACHE_MS) return known.record;
    const record = await this.store.read(provider);
    this.known.set(provider, { record, at: now });
    return record;
  }
}
