/**
 * The playground's form, drawn from a request schema of the OpenAPI document: every parameter
 * the API documents, with its allowed values, so a new parameter appears here without a change
 * to the console, in words a person reads (labels, help, only the fields that apply), with the
 * price from POST /quote. Pure functions (unit-tested in test/unit/console-usage.test.ts).
 */
export interface PropertySchema {
  type?: string | string[];
  enum?: readonly (string | number)[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  description?: string;
  items?: PropertySchema;
  maxItems?: number;
}

export interface RequestSchema {
  properties: Record<string, PropertySchema>;
  required?: string[];
}

export type FieldKind = 'prompt' | 'choice' | 'integer' | 'url' | 'urls' | 'pairs' | 'text';

export interface Field {
  name: string;
  kind: FieldKind;
  schema: PropertySchema;
  required: boolean;
}

export function fieldsOf(schema: RequestSchema): Field[] {
  return Object.entries(schema.properties).map(([name, property]) => ({
    name,
    kind: kindOf(name, property),
    schema: property,
    required: schema.required?.includes(name) ?? false,
  }));
}

function kindOf(name: string, property: PropertySchema): FieldKind {
  if (name === 'prompt') return 'prompt';
  if (property.enum) return 'choice';
  if (property.type === 'integer' || (Array.isArray(property.type) && property.type.includes('integer'))) return 'integer';
  if (property.type === 'array') return 'urls';
  // An object of string values (metadata): typed as `key=value` lines.
  if (property.type === 'object') return 'pairs';
  if (property.format === 'uri') return 'url';
  return 'text';
}

export type FormValues = Record<string, string>;

/** What the console calls each parameter, with help in plain words (the API reference has the rest). */
const FIELD_TEXT: Readonly<Record<string, { label: string; help?: string }>> = {
  prompt: { label: 'Prompt', help: 'Describe what to show: the subject, the scene, the style.' },
  model: { label: 'Model', help: 'Models marked "subscription" need an active subscription in live mode.' },
  generation_type: { label: 'Generation type', help: 'Make the video from the prompt alone, or bring a picture to life.' },
  image_url: { label: 'Image URL', help: 'The picture the video starts from: paste a link, or upload a file.' },
  end_image_url: { label: 'End image URL', help: 'Optional: the picture the video ends on.' },
  aspect_ratio: { label: 'Aspect ratio', help: 'Width to height.' },
  duration: { label: 'Duration (seconds)' },
  resolution: { label: 'Resolution' },
  output_format: { label: 'File format' },
  images: { label: 'Images to edit', help: 'Optional: links to up to 10 pictures to change, one a line. Leave empty to make a new image.' },
  seed: { label: 'Seed', help: 'Optional: the same seed with the same settings makes the same result again.' },
  negative_prompt: { label: 'Negative prompt', help: 'Optional: what the result should not show.' },
  end_user: { label: 'End user', help: 'Optional: your own id of the user this is for. It is kept with the result.' },
  metadata: { label: 'Metadata', help: 'Optional: up to 16 values of your own to keep with the result, one key=value a line.' },
};

/** Choices shown in words where the API's value is not one already. */
const OPTION_TEXT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  generation_type: { text_to_video: 'Text to video', image_to_video: 'Image to video' },
  output_format: { png: 'PNG', jpg: 'JPEG', webp: 'WebP' },
};

/** `end_user` → "End user": a parameter the console has no words for yet still reads as a label. */
export function labelOf(field: Pick<Field, 'name'>): string {
  const known = FIELD_TEXT[field.name]?.label;
  if (known) return known;
  const words = field.name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Help for a field: ours, or the API's description in plain words (no code quotes, and without
 * the sentences that point at other endpoints or fields of the API reference).
 */
export function helpOf(field: Pick<Field, 'name' | 'kind' | 'schema'>): string | undefined {
  const { minimum, maximum } = field.schema;
  if (field.name === 'duration' && minimum !== undefined && maximum !== undefined) return `Whole seconds, ${minimum} to ${maximum}.`;
  const known = FIELD_TEXT[field.name];
  if (known) return known.help;
  const description = field.schema.description;
  if (!description) return undefined;
  const sentences = description
    .split(/(?<=\.)\s+/)
    .filter((sentence) => !/(GET|POST|PATCH|DELETE) \/|capabilities\./.test(sentence))
    .map((sentence) => sentence.replace(/`/g, '').replace(/\s*\((for example|see)[^)]*\)/g, ''));
  return sentences.join(' ').trim() || undefined;
}

/** A choice's text: the model's name for models (when the catalogue is known), else words or the value. */
export function optionLabel(field: Pick<Field, 'name'>, value: string, models?: readonly CatalogueModel[]): string {
  if (field.name === 'model') {
    const model = models?.find((candidate) => candidate.id === value);
    return model ? `${model.name} (${value})${model.subscription_required ? ' · subscription' : ''}` : value;
  }
  return OPTION_TEXT[field.name]?.[value] ?? value;
}

/** What the playground needs of GET /models: names and what each model can do. */
export interface CatalogueModel {
  id: string;
  name: string;
  subscription_required: boolean;
  capabilities: Partial<Record<'image_to_video' | 'end_image' | 'seed' | 'negative_prompt' | 'reference_images', boolean>>;
}

/** Fields that only mean something with an image to start from. */
const IMAGE_TO_VIDEO_ONLY: ReadonlySet<string> = new Set(['image_url', 'end_image_url']);
/** Fields a model may lack, by the capability that offers them. */
const CAPABILITY_OF: Readonly<Record<string, keyof CatalogueModel['capabilities']>> = {
  image_url: 'image_to_video',
  end_image_url: 'end_image',
  seed: 'seed',
  negative_prompt: 'negative_prompt',
  images: 'reference_images',
};

/** The value a field has now: the one typed or chosen, else its default. */
export function valueOf(fields: readonly Field[], values: FormValues, name: string): string {
  const field = fields.find((candidate) => candidate.name === name);
  return values[name] || (field?.schema.default === undefined ? '' : String(field.schema.default));
}

/**
 * The fields that apply to what is chosen: image URLs only for image-to-video, and only what
 * the chosen model can do (when the catalogue is known). The others are neither shown nor sent.
 */
export function shownFields(fields: readonly Field[], values: FormValues, models?: readonly CatalogueModel[]): Field[] {
  const imageToVideo = valueOf(fields, values, 'generation_type') === 'image_to_video';
  const model = models?.find((candidate) => candidate.id === valueOf(fields, values, 'model'));
  return fields.filter((field) => {
    if (IMAGE_TO_VIDEO_ONLY.has(field.name) && !imageToVideo) return false;
    const capability = CAPABILITY_OF[field.name];
    return !(capability && model && model.capabilities[capability] === false);
  });
}

/** Fields that must be filled before a start (or its price) can be asked for. */
export function missingFields(fields: readonly Field[], values: FormValues): Field[] {
  return fields.filter((field) => (field.required || field.name === 'image_url') && field.name !== 'prompt' && !(values[field.name] ?? '').trim());
}

/** The request body: the fields given (blank ones left to the API's defaults), in the API's types. */
export function requestBody(fields: readonly Field[], values: FormValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = (values[field.name] ?? '').trim();
    if (raw === '') continue;
    if (field.kind === 'choice' && String(field.schema.default) === raw) continue;
    if (field.kind === 'integer') body[field.name] = Number(raw);
    else if (field.kind === 'urls') body[field.name] = raw.split(/\s+/).filter(Boolean);
    else if (field.kind === 'pairs') body[field.name] = pairsOf(raw);
    else body[field.name] = raw;
  }
  return body;
}

/** `key=value` lines as an object (a line without `=` is a key with an empty value; the API checks the rest). */
function pairsOf(text: string): Record<string, string> {
  const lines = text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  return Object.fromEntries(lines.map((line) => {
    const at = line.indexOf('=');
    return at < 0 ? [line, ''] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
  }));
}

/** The same request as a curl command, with the key left to an environment variable. */
export function curlCommand(apiUrl: string, path: string, body: Record<string, unknown>): string {
  const json = JSON.stringify(body).replace(/'/g, "'\\''");
  return [
    `curl -s -X POST ${apiUrl}${path} \\`,
    '  -H "Authorization: Bearer $VIDGEN_API_KEY" \\',
    '  -H "Content-Type: application/json" \\',
    '  -H "Idempotency-Key: $(uuidgen)" \\',
    `  -d '${json}'`,
  ].join('\n');
}
