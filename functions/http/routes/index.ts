import { isHttpSpec } from '#spec/function-spec';
import { loadSpecs } from '#spec/registry';
import { toApiRoute, type ApiRoute, type RouteDoc } from '../route';
import { ACCOUNT_DOCS } from './account';
import { AUDIT_DOCS } from './audit';
import { BILLING_DOCS, BILLING_WEBHOOK_DOCS } from './billing';
import { CATALOGUE_DOCS } from './catalogue';
import { EVENT_DOCS } from './events';
import { IMAGE_DOCS } from './images';
import { KEY_DOCS } from './keys';
import { MCP_DOCS } from './mcp';
import { PROVIDER_CALLBACK_DOCS } from './provider-callbacks';
import { REFERENCE_DOCS } from './reference';
import { TEAM_DOCS } from './teams';
import { UPLOAD_DOCS } from './uploads';
import { USAGE_DOCS } from './usage';
import { VIDEO_DOCS } from './videos';
import { WEBHOOK_DOCS } from './webhooks';

/**
 * The API's route table: each function's spec (functions/handlers/<name>.spec.ts: method, path,
 * callers, streaming) joined with its documentation (one file per resource here), in the order
 * the API reference lists them. The local server routes with it, the CDK stack declares the API
 * Gateway methods from it, the OpenAPI document is built from it. Node-side only: a function's
 * bundle carries its own spec and never this table (its prose).
 */

export { API_PREFIX } from './prefix';

export const ROUTE_DOCS: readonly RouteDoc[] = [
  ...VIDEO_DOCS,
  ...IMAGE_DOCS,
  ...CATALOGUE_DOCS,
  ...UPLOAD_DOCS,
  ...ACCOUNT_DOCS,
  ...USAGE_DOCS,
  ...WEBHOOK_DOCS,
  ...EVENT_DOCS,
  ...KEY_DOCS,
  ...TEAM_DOCS,
  ...AUDIT_DOCS,
  ...MCP_DOCS,
  ...PROVIDER_CALLBACK_DOCS,
  ...BILLING_DOCS,
  ...BILLING_WEBHOOK_DOCS,
  ...REFERENCE_DOCS,
];

/** Every HTTP spec with its doc; throws naming a spec without one, or a doc without its spec. */
export function routesOf(docs: readonly RouteDoc[] = ROUTE_DOCS): ApiRoute[] {
  const specs = loadSpecs().filter(isHttpSpec);
  const documented = new Set(docs.map((entry) => entry.handler));
  const undocumented = specs.filter((spec) => !documented.has(spec.name)).map((spec) => spec.name);
  const twice = docs.filter((entry, index) => docs.findIndex((other) => other.handler === entry.handler) !== index).map((entry) => entry.handler);
  if (undocumented.length > 0 || twice.length > 0) {
    throw new Error(`Route docs (functions/http/routes/): ${[...undocumented.map((name) => `${name} has none`), ...twice.map((name) => `${name} has two`)].join('; ')}.`);
  }
  return docs.map((entry) => {
    const spec = specs.find((candidate) => candidate.name === entry.handler);
    if (!spec) throw new Error(`functions/http/routes/ documents ${entry.handler}, which is not a function behind a route.`);
    return toApiRoute(spec, entry.doc);
  });
}

export const ROUTES: readonly ApiRoute[] = routesOf();

/**
 * Request bodies API Gateway passes to Lambda base64-encoded instead of as text. Without
 * multipart here, binary uploads would be mangled.
 */
export const BINARY_MEDIA_TYPES = ['multipart/form-data', 'image/*', 'application/octet-stream'] as const;

export type { ApiRoute, Route } from '../route';
