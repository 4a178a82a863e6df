/**
 * Stands in for `ajv` and `ajv-formats` in the MCP function's bundle (its spec's
 * `bundle.leaveOut`, lib/bundle-options.ts). The SDK's server imports its Ajv validator but only builds it when given no
 * other; ours passes its own (functions/mcp/server.ts), so this never runs.
 */
export default function notBundled(): never {
  throw new Error('ajv is not bundled in this function: pass the server a jsonSchemaValidator.');
}
