import { isTestScope } from './mode';
import type { GenerationProvider } from './provider';
import type { Task } from './task';

/** The providers a deployment has: the configured one, and the simulated one test mode uses. */
export interface ProviderChoice {
  provider: GenerationProvider;
  /** The simulated provider, for test-mode tasks whatever PROVIDER says. */
  testProvider?: GenerationProvider;
}

/**
 * The provider a task runs on, decided by the task's mode alone: a test-mode task never
 * reaches the real upstream (not to submit, poll, cancel, nor to read a callback), so it is
 * never billed there. Every call to a provider about a task goes through here.
 */
export function providerFor(deps: ProviderChoice, task: Pick<Task, 'accountId'>): GenerationProvider {
  if (!isTestScope(task.accountId)) return deps.provider;
  if (!deps.testProvider) throw new Error('No simulated provider is wired for test-mode tasks.');
  return deps.testProvider;
}
