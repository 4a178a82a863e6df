import { ProviderUnavailableError, type GenerationProvider } from '#domain/providers/provider';

export interface LazyProviderOptions {
  /**
   * Build the provider again after this long (for example to pick up a rotated API token).
   * Unset: built once per process.
   */
  rebuildAfterMs?: number;
  /** Told when a rebuild failed while an earlier provider keeps serving. */
  onRebuildError?: (error: unknown) => void;
  now?: () => number;
}

/**
 * A provider built on its first use (for example once its API token has been read from
 * Secrets Manager). A failed first build is not cached: the next call tries again, and
 * meanwhile the provider counts as unavailable, which never changes a task by itself. A failed
 * rebuild keeps the provider it had for another period: a Secrets Manager outage must not stop
 * a token that still works.
 */
export function lazyProvider(
  name: string,
  build: () => Promise<GenerationProvider>,
  options: LazyProviderOptions = {},
): GenerationProvider {
  const now = options.now ?? Date.now;
  let current: { provider: Promise<GenerationProvider>; builtAt: number } | undefined;
  let lastGood: GenerationProvider | undefined;

  const rebuild = () => {
    const provider: Promise<GenerationProvider> = build().then(
      (fresh) => (lastGood = fresh),
      (error: unknown) => {
        if (lastGood) {
          options.onRebuildError?.(error);
          return lastGood;
        }
        if (current?.provider === provider) current = undefined;
        // Nothing was sent: our secret store failed, not the provider (its circuit is not told).
        throw new ProviderUnavailableError(`The ${name} provider could not be set up: ${(error as Error).message}`, { reason: 'not_sent' });
      },
    );
    current = { provider, builtAt: now() };
    return provider;
  };
  const provider = () => {
    if (!current) return rebuild();
    const { rebuildAfterMs } = options;
    if (rebuildAfterMs !== undefined && now() - current.builtAt >= rebuildAfterMs) return rebuild();
    return current.provider;
  };
  return {
    name,
    submit: async (job, submitOptions) => (await provider()).submit(job, submitOptions),
    fetchResult: async (jobId) => (await provider()).fetchResult(jobId),
    cancel: async (jobId) => (await provider()).cancel(jobId),
    readCallback: async (request, now) => (await provider()).readCallback(request, now),
    callbackToken: async (target) => (await provider()).callbackToken(target),
  };
}
