import type { GenerationProvider } from '#domain/providers/provider';
import type { Telemetry } from '#domain/shared/telemetry';

/**
 * Measures every call to the provider: ProviderLatency (milliseconds, per operation) and
 * ProviderError when the call failed (unreachable, timed out, 5xx, unreadable answer). A
 * refused prompt or a failed generation is an answer, not an error: the task counts it.
 */
export function instrumentedProvider(provider: GenerationProvider, telemetry: Telemetry): GenerationProvider {
  async function measure<T>(operation: string, model: string | undefined, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await call();
    } catch (error) {
      telemetry.count('ProviderError', model ? { model } : {});
      throw error;
    } finally {
      telemetry.providerLatency(performance.now() - started, operation);
    }
  }
  return {
    name: provider.name,
    submit: (job, options) => measure('submit', job.model, () => provider.submit(job, options)),
    fetchResult: (jobId) => measure('fetch_result', undefined, () => provider.fetchResult(jobId)),
    cancel: (jobId) => measure('cancel', undefined, () => provider.cancel(jobId)),
    // A refused callback is somebody else's mistake (or an attack), not a provider error.
    readCallback: (request, now) => provider.readCallback(request, now),
    callbackToken: (target) => provider.callbackToken(target),
    close: () => provider.close?.(),
  };
}
