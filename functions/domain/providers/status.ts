import { circuitStatus, type CircuitStatus } from './circuit-breaker';
import type { CircuitRecord, CircuitStore } from './ports';

/** Each provider's circuit as operators read it (the admin CLI's `circuits` and `task show`). */

/**
 * What operators ask about providers (the admin CLI's `task show` and `circuits`): which provider
 * runs a task, how its submission stands, and each provider's circuit as the table holds it.
 */

export interface CircuitView extends CircuitRecord {
  provider: string;
  status: CircuitStatus;
}

/** The circuits of `providers` as they stand at `now` (a provider never failed: closed, no failures). */
export async function circuitsOf(store: CircuitStore, providers: readonly string[], now: number): Promise<CircuitView[]> {
  return Promise.all(providers.map((provider) => circuitOf(store, provider, now)));
}

export async function circuitOf(store: CircuitStore, provider: string, now: number): Promise<CircuitView> {
  const record = await store.read(provider);
  return { provider, status: circuitStatus(record, now), ...record };
}
