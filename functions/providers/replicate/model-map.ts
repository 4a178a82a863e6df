import * as z from 'zod';
import { IMAGE_MODEL_IDS, VIDEO_MODEL_IDS, type ImageModel, type VideoModel } from '#domain/catalogue/catalogue';
import type { GenerationJob } from '#domain/providers/provider';

/**
 * Which Replicate model serves each of our model ids, and how a job becomes that model's
 * `input`. This is configuration (a JSON object, see default-models.json), not code:
 *
 *   {
 *     "vid-2-0": {
 *       "model": "owner/name",            // official model, or "version": "<64 hex>" (exactly one)
 *       "input": {
 *         "prompt": "{{prompt}}",         // whole-string placeholder: keeps the job value's type
 *         "duration": "{{duration}}",     // a number stays a number; undefined drops the field
 *         "size": { "from": "resolution", "map": { "1k": "1K" } },  // value map
 *         "camera_fixed": false           // anything else is sent as written
 *       }
 *     }
 *   }
 *
 * Placeholders are recognised only as the whole value of a top-level input field. A string
 * containing "{{" that is not exactly one known placeholder is a configuration error, which
 * catches typos such as "{{promt}}". An object with a "from" key is a value map; a job value
 * missing from its map is a configuration error too (raised by buildInput).
 * "$comment" keys, at the top and in each model entry, are ignored.
 *
 * A parameter the request left out ({{seed}}, {{negative_prompt}}, {{end_image_url}}, ...) is
 * undefined, so its field is not sent: the model's own default applies. Which of our models
 * take which parameter is the catalogue's (capabilities, domain/catalogue.ts); a mapping passes
 * each where its upstream model has an input for it.
 */

/** The catalogue's model ids, every one a mapping can cover. */
export const MODEL_IDS: readonly ModelId[] = [...VIDEO_MODEL_IDS, ...IMAGE_MODEL_IDS];
export type ModelId = VideoModel | ImageModel;

export const PLACEHOLDERS = [
  'prompt',
  'duration',
  'aspect_ratio',
  'resolution',
  'image_url',
  'images',
  'output_format',
  'generation_type',
  'seed',
  'negative_prompt',
  'end_image_url',
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** `{ "from": "resolution", "map": { "1k": "1024x1024" } }`: the job value, translated. */
export type ValueMapTemplate = {
  from: Placeholder;
  map: Record<string, JsonValue>;
};

/** A literal JSON value, a "{{placeholder}}" string, or a value map. */
export type InputTemplate = JsonValue | ValueMapTemplate;

export interface ReplicateModelMapping {
  /** "owner/name" of an official model: POST /v1/models/{owner}/{name}/predictions. */
  model?: string;
  /** A model version id: POST /v1/predictions with { version }. */
  version?: string;
  input: Record<string, InputTemplate>;
}

export type ReplicateModelMap = Readonly<Partial<Record<ModelId, ReplicateModelMapping>>>;

/** The model map is malformed, or does not cover a job it was asked to translate. */
export class ModelMapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelMapError';
  }
}

const PLACEHOLDER_LIST = PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ');
const PLACEHOLDER_PATTERN = /^\{\{\s*([A-Za-z_]+)\s*\}\}$/;
const OWNER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
const VERSION_PATTERN = /^[a-f0-9]{64}$/;

function isPlaceholder(name: string): name is Placeholder {
  return (PLACEHOLDERS as readonly string[]).includes(name);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validated by parseModelMap: an object with a "from" key is always a value map. */
function isValueMap(template: InputTemplate): template is ValueMapTemplate {
  return isRecord(template) && 'from' in template;
}

/** The placeholder a template string names, or undefined for a plain literal string. */
function placeholderOf(template: string): Placeholder | undefined {
  const match = PLACEHOLDER_PATTERN.exec(template);
  return match?.[1] !== undefined && isPlaceholder(match[1]) ? match[1] : undefined;
}

const jsonValue = z.json();

const valueMapSchema = z.strictObject({
  from: z.enum(PLACEHOLDERS, { error: `"from" must be one of ${PLACEHOLDERS.join(', ')}` }),
  map: z.record(z.string(), jsonValue),
});

/** Where a nested literal holds a "{{", which would be sent as written: path inside the literal. */
function nestedPlaceholder(value: JsonValue, path: string[] = []): string[] | undefined {
  if (typeof value === 'string') return value.includes('{{') ? path : undefined;
  const entries: [string, JsonValue][] = Array.isArray(value)
    ? value.map((item, index) => [String(index), item])
    : isRecord(value)
      ? Object.entries(value)
      : [];
  for (const [key, item] of entries) {
    const found = nestedPlaceholder(item, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

const templateSchema = jsonValue.superRefine((value, ctx) => {
  const isLiteral = typeof value === 'object' && value !== null && !('from' in value);
  const nested = isLiteral ? nestedPlaceholder(value) : undefined;
  if (nested) {
    ctx.addIssue({
      code: 'custom',
      path: nested,
      message: 'placeholders work only as the whole value of a top-level input field, not inside a literal',
    });
  } else if (typeof value === 'string') {
    if (value.includes('{{') && placeholderOf(value) === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `"${value}" is not a placeholder; use exactly one of ${PLACEHOLDER_LIST}`,
      });
    }
  } else if (isRecord(value) && 'from' in value) {
    const parsed = valueMapSchema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path.map(String) });
      }
    }
  }
});

const mappingSchema = z
  .strictObject({
    $comment: z.string().optional(),
    model: z.string().regex(OWNER_NAME_PATTERN, 'must look like "owner/name"').optional(),
    version: z.string().regex(VERSION_PATTERN, 'must be a 64-character hex version id').optional(),
    input: z.record(z.string(), templateSchema),
  })
  .refine((m) => (m.model === undefined) !== (m.version === undefined), {
    message: 'needs exactly one of "model" or "version"',
  });

const modelMapSchema = z.strictObject({
  $comment: z.string().optional(),
  ...Object.fromEntries(MODEL_IDS.map((id) => [id, mappingSchema.optional()])),
});

function describePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(top level)' : path.map(String).join('.');
}

/** Validates a model map (already parsed from JSON). Throws ModelMapError naming the bad spot. */
export function parseModelMap(json: unknown): ReplicateModelMap {
  const parsed = modelMapSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const detail =
        issue.code === 'unrecognized_keys'
          ? `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}` +
            (issue.path.length === 0 ? `; model ids are ${MODEL_IDS.join(', ')}` : '')
          : issue.code === 'invalid_union'
            ? 'must be a JSON value' // z.json() is the only union here
            : issue.message;
      return `${describePath(issue.path)}: ${detail}`;
    });
    throw new ModelMapError(`Invalid Replicate model map: ${problems.join('; ')}`);
  }
  const map: Partial<Record<ModelId, ReplicateModelMapping>> = {};
  for (const id of MODEL_IDS) {
    const entry = (parsed.data as Record<string, unknown>)[id] as
      | (ReplicateModelMapping & { $comment?: string })
      | undefined;
    if (entry === undefined) continue;
    map[id] = {
      ...(entry.model !== undefined && { model: entry.model }),
      ...(entry.version !== undefined && { version: entry.version }),
      input: entry.input,
    };
  }
  return map;
}

/** The mapping for one of our model ids, or undefined when the map does not cover it. */
export function findMapping(map: ReplicateModelMap, modelId: string): ReplicateModelMapping | undefined {
  return Object.hasOwn(map, modelId) ? map[modelId as ModelId] : undefined;
}

/** The job's value for a placeholder; undefined when this kind of job has none. */
function jobValue(job: GenerationJob, name: Placeholder): JsonValue | undefined {
  switch (name) {
    case 'prompt':
      return job.prompt;
    case 'aspect_ratio':
      return job.aspectRatio;
    case 'resolution':
      return job.resolution;
    case 'duration':
      return job.kind === 'video' ? job.duration : undefined;
    case 'image_url':
      return job.kind === 'video' ? job.imageUrl : undefined;
    case 'generation_type':
      return job.kind === 'video' ? job.generationType : undefined;
    case 'images':
      return job.kind === 'image' ? job.images : undefined;
    case 'output_format':
      return job.kind === 'image' ? job.outputFormat : undefined;
    case 'seed':
      return job.seed;
    case 'negative_prompt':
      return job.negativePrompt;
    case 'end_image_url':
      return job.kind === 'video' ? job.endImageUrl : undefined;
  }
}

function resolveTemplate(field: string, template: InputTemplate, job: GenerationJob): JsonValue | undefined {
  if (typeof template === 'string') {
    const name = placeholderOf(template);
    return name === undefined ? template : jobValue(job, name);
  }
  if (isValueMap(template)) {
    const { from, map } = template;
    const value = jobValue(job, from);
    if (value === undefined) return undefined;
    const key = String(value);
    if (!Object.hasOwn(map, key)) {
      throw new ModelMapError(
        `Replicate model map for "${job.model}": input.${field} has no entry for ${from} "${key}".`,
      );
    }
    return map[key];
  }
  return template;
}

/** The Replicate `input` object for a job, following the mapping's templates. */
export function buildInput(mapping: ReplicateModelMapping, job: GenerationJob): Record<string, JsonValue> {
  const input: Record<string, JsonValue> = {};
  for (const [field, template] of Object.entries(mapping.input)) {
    const value = resolveTemplate(field, template, job);
    if (value !== undefined) input[field] = value;
  }
  return input;
}
