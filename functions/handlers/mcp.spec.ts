import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED, endsTasks, startsTasks } from '#spec/needs';

export const spec = defineFunction({
  name: 'mcp',
  purpose: 'serves the Model Context Protocol: the task, upload, credit and usage tools',
  area: 'tasks',
  // Streamable HTTP, stateless: GET (no event stream) and DELETE (no session) are the gateway's 405 (CONTRACT.md, "MCP transport").
  trigger: { kind: 'http', method: 'POST', path: '/mcp', streaming: true, refusedMethods: ['GET', 'DELETE'] },
  // Connecting needs `read`; each tool checks the capability of the route it mirrors.
  access: { callers: ['apiKey', 'session'], capability: 'read' },
  // The tools call the use cases of generate(-image), list/get/cancel/delete videos and images, upload,
  // quote, get-credits and get-usage: what those functions may do, together. Written out, not merged from
  // their specs, which would put eleven specs into this bundle; test/unit/specs.test.ts holds it
  // equal to their merge.
  needs: startsTasks(
    endsTasks({
      // lsi1: the history lists (endsTasks adds it too); gsi1: list_tasks with an end_user (an end
      // user's history, as list-videos reads it); the table itself: the usage roll-ups.
      table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'], query: ['lsi1', 'gsi1', 'table'] },
      media: { read: ['uploads/', 'videos/', 'images/'], write: ['uploads/'], delete: ['videos/', 'images/'], listBucket: true },
      providers: true,
      invokes: ['copy-output'],
    }),
  ),
  // The SDK's server imports Ajv (about 140 KB with its formats) for elicitation answers, which
  // our server never validates (functions/mcp/server.ts passes its own validator).
  bundle: { leaveOut: ['ajv', 'ajv-formats'] },
});
