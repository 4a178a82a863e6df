import { isTestScope } from '../shared/partition';
import type { GenerationProvider } from './provider';
import { providerFor, providerNamed, type ProviderChoice } from './choice';
import type { Task } from '../tasks/task';

/**
 * Operators route each model to an ordered list of providers (PROVIDER_ROUTES): a new task's
 * create goes to the first healthy one, and to the next only when a failure proves no job
 * exists upstream (docs/tasks.md, "Routing and failover"). Models without routes go to the
 * configured provider alone. Only submissions read routes: a task that has a job is followed
 * on the provider it recorded (provider-choice.ts), whatever the routes say later.
 */
export type ProviderRoutes = Readonly<Partial<Record<string, readonly string[]>>>;

/** A route names a provider this deployment does not have (start-up validation should have caught it). */
export class RouteNotConfiguredError extends Error {
  constructor(readonly providerName: string) {
    super(`The provider "${providerName}" named in the routes is not configured here.`);
    this.name = 'RouteNotConfiguredError';
  }
}

/** The providers a new task's create may go to, in order: a test-mode task only ever to the simulated one. */
export function routesOf(deps: ProviderChoice, task: Pick<Task, 'accountId' | 'params'>): GenerationProvider[] {
  const names = deps.routes?.[task.params.model];
  if (isTestScope(task.accountId) || !names || names.length === 0) return [providerFor(deps, task)];
  return names.map((name) => {
    const provider = providerNamed(deps, task.accountId, name);
    if (!provider) throw new RouteNotConfiguredError(name);
    return provider;
  });
}
