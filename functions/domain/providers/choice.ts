import { isTestPartition } from '../shared/partition';
import type { GenerationProvider } from './provider';

/**
 * Operators route each model to an ordered list of providers (PROVIDER_ROUTES): a new task's
 * create goes to the first healthy one, and to the next only when a failure proves no job
 * exists upstream (docs/tasks.md, "Routing and failover"). Models without routes go to the
 * configured provider alone. Only submissions read routes: a task that has a job is followed
 * on the provider it recorded (provider-choice.ts), whatever the routes say later.
 */
export type ProviderRoutes = Readonly<Partial<Record<string, readonly string[]>>>;

/** The providers a deployment has: the configured one, the simulated one test mode uses, and any others still configured. */
export interface ProviderChoice {
  /** Where new live tasks go (the configured provider). */
  provider: GenerationProvider;
  /** The simulated provider, for test-mode tasks whatever PROVIDER says. */
  testProvider?: GenerationProvider;
  /**
   * The other providers this deployment has settings for, by name (built on first use): a task
   * that recorded one is still followed there after the configured provider changed.
   */
  otherProviders?: (name: string) => GenerationProvider | undefined;
  /** Per model, the providers a new live task may go to, in order (routing.ts); unset: `provider` alone. */
  routes?: ProviderRoutes;
}

/**
 * A task recorded a provider this deployment has no settings for any more (PROVIDER changed and
 * the old provider's settings were removed): nothing can ask about its job. The task is left as
 * it is; the sweeper times it out and refunds it (docs/decisions.md, "Tasks keep their provider").
 */
export class ProviderNotConfiguredError extends Error {
  constructor(readonly providerName: string) {
    super(`The provider "${providerName}" this task runs on is not configured here any more.`);
    this.name = 'ProviderNotConfiguredError';
  }
}

/**
 * The provider a NEW task is submitted to, decided by the task's mode alone: a test-mode task
 * never reaches the real upstream (not to submit, poll, cancel, nor to read a callback), so it
 * is never billed there. Only submissions consult configuration; everything that acts on a
 * task's job asks `providerOfTask`.
 */
export function providerFor(deps: ProviderChoice, task: { partitionId: string }): GenerationProvider {
  if (!isTestPartition(task.partitionId)) return deps.provider;
  if (!deps.testProvider) throw new Error('No simulated provider is wired for test-mode tasks.');
  return deps.testProvider;
}

/**
 * The provider that runs a task's job: the one the task recorded, whatever is configured now
 * (a task without a job yet goes where a new task goes). Throws ProviderNotConfiguredError when
 * the recorded one is not configured here any more.
 */
export function providerOfTask(deps: ProviderChoice, task: { partitionId: string; provider?: { name: string } }): GenerationProvider {
  if (!task.provider || isTestPartition(task.partitionId)) return providerFor(deps, task);
  const provider = providerNamed(deps, task.partitionId, task.provider.name);
  if (!provider) throw new ProviderNotConfiguredError(task.provider.name);
  return provider;
}

/**
 * A provider by name, among those a task of this account's scope may run on: a test-mode task
 * only on the simulated provider, a live one on any provider configured here. Undefined when
 * there is none by that name.
 */
export function providerNamed(deps: ProviderChoice, partitionId: string, name: string): GenerationProvider | undefined {
  if (isTestPartition(partitionId)) {
    const provider = providerFor(deps, { partitionId });
    return provider.name === name ? provider : undefined;
  }
  return deps.provider.name === name ? deps.provider : deps.otherProviders?.(name);
}
