import { isTestPartition } from '../shared/partition';
import type { GenerationProvider } from './provider';
import { providerFor, providerNamed, type ProviderChoice } from './choice';

/** A route names a provider this deployment does not have (start-up validation should have caught it). */
export class RouteNotConfiguredError extends Error {
  constructor(readonly providerName: string) {
    super(`The provider "${providerName}" named in the routes is not configured here.`);
    this.name = 'RouteNotConfiguredError';
  }
}

/** The providers a new task's create may go to, in order: a test-mode task only ever to the simulated one. */
export function routesOf(deps: ProviderChoice, task: { partitionId: string; params: { model: string } }): GenerationProvider[] {
  const names = deps.routes?.[task.params.model];
  if (isTestPartition(task.partitionId) || !names || names.length === 0) return [providerFor(deps, task)];
  return names.map((name) => {
    const provider = providerNamed(deps, task.partitionId, name);
    if (!provider) throw new RouteNotConfiguredError(name);
    return provider;
  });
}
