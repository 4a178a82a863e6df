import * as z from 'zod';
import { MODEL_IDS, ModelMapError, parseModelMap, type ModelId, type ReplicateModelMapping } from '../replicate/model-map';

/**
 * Which fal.ai endpoint serves each of our model ids, and how a job becomes its input: like the
 * Replicate model map (same templates, same placeholders, checked by the same rules), with an
 * `endpoint` in place of Replicate's model:
 *
 *   { "image-2": { "endpoint": "fal-ai/flux-pro/v1.1", "input": { "prompt": "{{prompt}}" } } }
 *
 * The endpoint's first two segments are its app ("fal-ai/flux-pro"): fal's queue reads a
 * request's status, result and cancel under the app, not the endpoint's path.
 */
export interface FalModelMapping {
  endpoint: string;
  /** The endpoint's app, "owner/name". */
  app: string;
  input: ReplicateModelMapping['input'];
}

export type FalModelMap = Readonly<Partial<Record<ModelId, FalModelMapping>>>;

const ENDPOINT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

const entry = z.strictObject({
  $comment: z.string().optional(),
  endpoint: z.string().regex(ENDPOINT_PATTERN, 'must look like "owner/app" or "owner/app/path"'),
  input: z.record(z.string(), z.unknown()),
});
const mapSchema = z.strictObject({ $comment: z.string().optional(), ...Object.fromEntries(MODEL_IDS.map((id) => [id, entry.optional()])) });

/** Validates a fal model map (already parsed from JSON). Throws ModelMapError naming the bad spot. */
export function parseFalModelMap(json: unknown): FalModelMap {
  const parsed = mapSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(top level)'}: ${issue.message}`);
    throw new ModelMapError(`Invalid fal model map: ${problems.join('; ')}`);
  }
  const entries = MODEL_IDS.flatMap((id) => {
    const value = (parsed.data as Record<string, z.infer<typeof entry> | undefined>)[id];
    return value ? [[id, value] as const] : [];
  });
  // The input templates follow the Replicate map's rules: checked by its parser, under a stand-in model.
  let templates;
  try {
    templates = parseModelMap(Object.fromEntries(entries.map(([id, value]) => [id, { model: 'fal/app', input: value.input }])));
  } catch (error) {
    if (error instanceof ModelMapError) throw new ModelMapError(error.message.replace('Invalid Replicate model map', 'Invalid fal model map'));
    throw error;
  }
  return Object.fromEntries(
    entries.map(([id, value]) => [id, { endpoint: value.endpoint, app: value.endpoint.split('/').slice(0, 2).join('/'), input: templates[id]!.input }]),
  );
}
