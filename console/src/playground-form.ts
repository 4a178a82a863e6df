/**
 * The playground's form, drawn from a request schema of the OpenAPI document: every parameter
 * the API documents, with its allowed values, so a new parameter appears here without a change
 * to the console. Pure functions (unit-tested in test/unit/console-playground.test.ts).
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

export type FieldKind = 'prompt' | 'choice' | 'integer' | 'url' | 'urls' | 'text';

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
  if (property.format === 'uri') return 'url';
  return 'text';
}

export type FormValues = Record<string, string>;

/** The request body: the fields given (blank ones left to the API's defaults), in the API's types. */
export function requestBody(fields: readonly Field[], values: FormValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = (values[field.name] ?? '').trim();
    if (raw === '') continue;
    if (field.kind === 'choice' && String(field.schema.default) === raw) continue;
    if (field.kind === 'integer') body[field.name] = Number(raw);
    else if (field.kind === 'urls') body[field.name] = raw.split(/\s+/).filter(Boolean);
    else body[field.name] = raw;
  }
  return body;
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
