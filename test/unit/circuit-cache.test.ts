import { CIRCUIT_CACHE_MS, CircuitBreaker } from '#domain/providers/circuit-breaker';
import { MemoryCircuitStore } from '#test-support/memory-circuits';

// Each container keeps what it knows of a circuit for CIRCUIT_CACHE_MS: a warm start reads no
// circuit, and another container's opening is seen at most that much late.
describe('the circuit breaker, per container', () => {
  const settings = { failureThreshold: 2, coolDownMs: 30_000, probeTimeoutMs: 10_000 };
  const T = 1_000_000;

  it('reads a circuit at most once per CIRCUIT_CACHE_MS', async () => {
    const store = new MemoryCircuitStore();
    const reads = jest.spyOn(store, 'read');
    const breaker = new CircuitBreaker(store, settings);
    for (const ms of [0, 10, 500, CIRCUIT_CACHE_MS - 1]) expect(await breaker.gate('p', T + ms)).toEqual({ state: 'closed', failures: 0 });
    expect(reads).toHaveBeenCalledTimes(1);
    await breaker.gate('p', T + CIRCUIT_CACHE_MS);
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it("sees its own opening at once, and another container's within CIRCUIT_CACHE_MS", async () => {
    const store = new MemoryCircuitStore();
    const [here, there] = [new CircuitBreaker(store, settings), new CircuitBreaker(store, settings)];
    expect((await here.gate('p', T)).state).toBe('closed');
    expect((await there.gate('p', T)).state).toBe('closed');
    await there.failed('p', T + 1);
    expect(await there.failed('p', T + 2)).toBe(true);
    expect((await there.gate('p', T + 3)).state).toBe('open');
    // Stale for at most the cache's life, then read again.
    expect((await here.gate('p', T + 3)).state).toBe('closed');
    expect((await here.gate('p', T + CIRCUIT_CACHE_MS)).state).toBe('open');
  });

  it('keeps the probe exclusive: its claim is a write, never cached', async () => {
    const store = new MemoryCircuitStore();
    const [here, there] = [new CircuitBreaker(store, settings), new CircuitBreaker(store, settings)];
    await here.failed('p', T);
    await here.failed('p', T);
    const after = T + settings.coolDownMs;
    const gates = await Promise.all([here.gate('p', after), there.gate('p', after), here.gate('p', after + 1)]);
    expect(gates.map((gate) => gate.state).sort()).toEqual(['open', 'open', 'probe']);
    // The probe's success closes it for this container at once.
    const probe = gates.find((gate) => gate.state === 'probe')!;
    const prober = gates[0] === probe || gates[2] === probe ? here : there;
    await prober.succeeded('p', probe, after + 2);
    expect((await prober.gate('p', after + 3)).state).toBe('closed');
  });
});
