import { ProviderUnavailableError, type GenerationProvider } from '../domain/provider';

/**
 * A provider built on its first use (for example once its API token has been read from
 * Secrets Manager). A failed build is not cached: the next call tries again, and meanwhile the
 * provider counts as unavailable, which never changes a task by itself.
 */
export function lazyProvider(name: string, build: () => Promise<GenerationProvider>): GenerationProvider {
  let built: Promise<GenerationProvider> | undefined;
  const provider = async () => {
    built ??= build().catch((error: unknown) => {
      built = undefined;
      throw new ProviderUnavailableError(`The ${name} provider could not be set up: ${(error as Error).message}`);
    });
    return built;
  };
  return {
    name,
    submit: async (job) => (await provider()).submit(job),
    fetchResult: async (jobId) => (await provider()).fetchResult(jobId),
    cancel: async (jobId) => (await provider()).cancel(jobId),
  };
}
