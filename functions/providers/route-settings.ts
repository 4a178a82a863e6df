import * as z from 'zod';
import { IMAGE_MODEL_IDS, VIDEO_MODEL_IDS } from '#domain/catalogue/catalogue';
import type { ProviderRoutes } from '#domain/providers/choice';
import { PROVIDER_NAMES } from './settings-registry';

/**
 * PROVIDER_ROUTES (deploy context `providerRoutes`): per model of the catalogue, the providers
 * its new tasks go to, in order of preference, as JSON:
 *
 *   { "vid-2-0": ["replicate", "fal"], "image-2": ["fal", "replicate"] }
 *
 * Models left out go to PROVIDER alone. Checked here against the catalogue's model ids and the
 * providers this code base knows; that each provider is configured and serves the model it is
 * routed is checked when the providers are built (app-context/provider.ts), at cold start.
 */
const MODEL_IDS: readonly string[] = [...VIDEO_MODEL_IDS, ...IMAGE_MODEL_IDS];

const routeList = z
  .array(z.string().refine((name) => (PROVIDER_NAMES as readonly string[]).includes(name), { error: (issue) => `"${String(issue.input)}" is not a provider (${PROVIDER_NAMES.join(', ')})` }))
  .min(1, { error: 'needs at least one provider' })
  .refine((names) => new Set(names).size === names.length, { error: 'names a provider twice' });

const routesSchema = z.record(z.string(), routeList).superRefine((routes, ctx) => {
  for (const model of Object.keys(routes)) {
    if (!MODEL_IDS.includes(model)) ctx.addIssue({ code: 'custom', path: [model], message: `"${model}" is not a model id (${MODEL_IDS.join(', ')})` });
  }
});

/** Reads the routes from their JSON text (or an object from cdk.json); throws an Error naming the bad spot. */
export function parseProviderRoutes(value: unknown): ProviderRoutes {
  let json = value;
  if (typeof value === 'string') {
    try {
      json = JSON.parse(value);
    } catch {
      throw new Error('must be JSON: an object of model id -> list of providers');
    }
  }
  const parsed = routesSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    throw new Error(`${where}${issue.code === 'invalid_type' ? 'must be an object of model id -> list of providers' : issue.message}`);
  }
  return parsed.data;
}

/** Every provider the routes name. */
export function routedProviders(routes: ProviderRoutes): string[] {
  return [...new Set(Object.values(routes).flatMap((names) => names ?? []))];
}
