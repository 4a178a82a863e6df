import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument, type OpenApiDocument } from '#openapi/document';
import { API_PREFIX } from '#http/routes/index';

/**
 * Checks HTTP responses against the OpenAPI document (contract tests): the status is one the
 * operation documents, every header the document marks required is there and well-formed, and
 * the body matches the documented media type and schema.
 *
 * Response objects are checked as closed (`additionalProperties: false` wherever the document
 * lists an object's properties and says nothing else), so a field the code sends but the
 * document does not name is a violation, as is a documented field that is missing or mistyped.
 *
 * A request that matches no operation (unknown route or method) must get one of the gateway's
 * own answers: 404 `not_found` or 413 `payload_too_large`, in the envelope, with X-Request-Id.
 *
 * Two ways in:
 * - `assertMatchesContract(...)` throws a ContractViolation at once;
 * - `recordContract(...)` (what `call()` in local-api.ts uses) keeps violations, and every test
 *   that received one fails in the afterEach hook this module registers.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

interface DocumentedResponse {
  headers: Array<{ name: string; required: boolean; validate: ValidateFunction }>;
  /** Media type (without parameters) -> body validator (undefined: any body of that type). */
  content: Map<string, ValidateFunction | undefined>;
}

interface CompiledOperation {
  method: string;
  template: string;
  pattern: RegExp;
  operationId: string;
  responses: Map<number, DocumentedResponse>;
}

interface Contract {
  document: OpenApiDocument;
  operations: CompiledOperation[];
  gatewayError: ValidateFunction;
  requestIdHeader: ValidateFunction;
}

const SCHEMAS_ID = 'https://contract.invalid/openapi-schemas';
let compiled: Contract | undefined;

/** The document and its validators, built once per test file. */
export function contract(): Contract {
  compiled ??= compile(buildOpenApiDocument());
  return compiled;
}

function compile(document: OpenApiDocument): Contract {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  const components = (document.components ?? {}) as JsonObject;
  ajv.addSchema({ $id: SCHEMAS_ID, $defs: closeObjects(rewriteRefs(components.schemas ?? {})) } as object);
  const compileSchema = (schema: Json) => ajv.compile(closeObjects(rewriteRefs(schema)) as object);
  const resolve = (value: Json): JsonObject => {
    const object = value as JsonObject;
    if (typeof object.$ref !== 'string') return object;
    const [, kind, name] = /^#\/components\/(\w+)\/(.+)$/.exec(object.$ref) ?? [];
    const target = (components[kind!] as JsonObject | undefined)?.[name!];
    if (!target) throw new Error(`Unresolvable ${object.$ref}`);
    return resolve(target);
  };

  const operations: CompiledOperation[] = [];
  for (const [template, item] of Object.entries((document.paths ?? {}) as Record<string, JsonObject>)) {
    for (const [method, value] of Object.entries(item)) {
      const operation = value as JsonObject;
      const responses = new Map<number, DocumentedResponse>();
      for (const [status, responseValue] of Object.entries(operation.responses as JsonObject)) {
        const response = resolve(responseValue);
        const headers = Object.entries((response.headers ?? {}) as JsonObject).map(([name, headerValue]) => {
          const header = resolve(headerValue);
          return { name, required: header.required === true, validate: compileSchema(header.schema ?? {}) };
        });
        const content = new Map<string, ValidateFunction | undefined>();
        for (const [mediaType, media] of Object.entries((response.content ?? {}) as JsonObject)) {
          const schema = (media as JsonObject).schema;
          content.set(mediaType, mediaType === 'application/json' && schema ? compileSchema(schema) : undefined);
        }
        responses.set(Number(status), { headers, content });
      }
      operations.push({
        method: method.toUpperCase(),
        template,
        pattern: templatePattern(template),
        operationId: String(operation.operationId),
        responses,
      });
    }
  }
  return {
    document,
    operations,
    gatewayError: compileSchema({ oneOf: [{ $ref: '#/components/schemas/Error404' }, { $ref: '#/components/schemas/Error413' }] }),
    requestIdHeader: compileSchema({ type: 'string', minLength: 1 }),
  };
}

/** `/videos/{video_id}` -> /^\/videos\/([^/]+)$/ */
function templatePattern(template: string): RegExp {
  const source = template
    .split('/')
    .map((segment) => (/^\{\w+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

function rewriteRefs(node: Json): Json {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')
        ? `${SCHEMAS_ID}#/$defs/${value.slice('#/components/schemas/'.length)}`
        : rewriteRefs(value);
  }
  return out;
}

/** Objects with listed properties and no word on others get `additionalProperties: false`. */
function closeObjects(node: Json): Json {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) out[key] = closeObjects(value);
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** The operation for a method and a path (with or without /api/v1, query ignored). */
export function operationFor(method: string, path: string): CompiledOperation | undefined {
  const pathname = documentPathOf(path);
  return contract().operations.find((operation) => operation.method === method.toUpperCase() && operation.pattern.test(pathname));
}

function documentPathOf(path: string): string {
  const pathname = new URL(path, 'http://contract.invalid').pathname;
  return pathname.startsWith(`${API_PREFIX}/`) ? pathname.slice(API_PREFIX.length) : pathname;
}

function headerOf(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value.join(', ') : value;
}

const describeErrors = (validate: ValidateFunction) =>
  (validate.errors ?? [])
    .slice(0, 8)
    .map((error) => `${error.instancePath || '(root)'} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`)
    .join('; ');

/** The problems with one response, or an empty list. */
export function contractProblems(
  method: string,
  path: string,
  status: number,
  headers: HeaderSource,
  body: unknown,
): string[] {
  const { gatewayError, requestIdHeader } = contract();
  const problems: string[] = [];
  const requestId = headerOf(headers, 'x-request-id');
  if (!requestId || !requestIdHeader(requestId)) problems.push('X-Request-Id header is missing');

  const operation = operationFor(method, path);
  if (!operation) {
    if (status !== 404 && status !== 413) problems.push(`no operation matches, so it must be a gateway 404 or 413, not ${status}`);
    if (!gatewayError(body)) problems.push(`body is not the error envelope: ${describeErrors(gatewayError)}`);
    return problems;
  }

  const documented = operation.responses.get(status);
  if (!documented) {
    return [...problems, `${operation.operationId} does not document status ${status} (documented: ${[...operation.responses.keys()].join(', ')})`];
  }
  for (const header of documented.headers) {
    const value = headerOf(headers, header.name);
    if (value === undefined) {
      if (header.required) problems.push(`required header ${header.name} is missing`);
      continue;
    }
    const parsed = /^-?\d+$/.test(value) ? Number(value) : value;
    if (!header.validate(parsed) && !header.validate(value)) {
      problems.push(`header ${header.name}: ${JSON.stringify(value)} ${describeErrors(header.validate)}`);
    }
  }
  const mediaType = headerOf(headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (!mediaType || !documented.content.has(mediaType)) {
    problems.push(`Content-Type ${mediaType ?? '(none)'} is not documented (documented: ${[...documented.content.keys()].join(', ')})`);
    return problems;
  }
  const validate = documented.content.get(mediaType);
  if (validate && !validate(body)) problems.push(`body does not match the schema: ${describeErrors(validate)}`);
  return problems;
}

export function assertMatchesContract(
  method: string,
  path: string,
  status: number,
  headers: HeaderSource,
  body: unknown,
): void {
  const problems = contractProblems(method, path, status, headers, body);
  if (problems.length > 0) {
    throw new ContractViolation(`${method.toUpperCase()} ${path} -> ${status}:\n  - ${problems.join('\n  - ')}\n  body: ${preview(body)}`);
  }
}

const preview = (body: unknown) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text === undefined ? 'undefined' : text.length > 600 ? `${text.slice(0, 600)}…` : text;
};

/* Collector: record now, fail the test in afterEach. */

const violations: string[] = [];
let checked = 0;

/** Checks a response and remembers any violation; the current test fails after it ends. */
export function recordContract(method: string, path: string, status: number, headers: HeaderSource, body: unknown): void {
  // Media files (the CDN on AWS, /media/ locally) are outside the API and its contract.
  if (new URL(path, 'http://contract.invalid').pathname.startsWith('/media/')) return;
  checked += 1;
  try {
    assertMatchesContract(method, path, status, headers, body);
  } catch (error) {
    violations.push(error instanceof Error ? error.message : String(error));
  }
}

/** How many responses were checked in this test file (so a test can tell the hook ran). */
export const checkedResponses = (): number => checked;

function flush(): void {
  if (violations.length === 0) return;
  const found = violations.splice(0);
  throw new ContractViolation(
    `${found.length} response(s) do not match the OpenAPI document (functions/openapi):\n${found.join('\n')}`,
  );
}

// Registered when a test file imports this module (directly or through local-api.ts).
if (typeof afterEach === 'function') afterEach(flush);
if (typeof afterAll === 'function') afterAll(flush);
