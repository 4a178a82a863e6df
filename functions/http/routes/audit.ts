import * as z from 'zod';
import { auditEventPageResponse, auditEventsQuery } from '#contract/audit';
import { ok } from '#contract/examples';
import { AUDIT_PAGE } from '#domain/accounts/audit-events';
import type { RouteDoc } from '../route';
import { json } from './operation-doc';

const EXAMPLE_EVENT = {
  id: 'aud_01M8EM6DZQNVPPS7K0AB4EEFEQ',
  at: '2026-11-27T14:03:11.482Z',
  actor: { type: 'holder' as const, id: '3f1c2a7e-5b9d-4c0e-8a6f-2d4b1e9c7a05', email: 'dev@example.com' },
  action: 'key.created' as const,
  target: { type: 'key', id: 'key_3f9a1c0d2b7e4a6f8c1d0e2f' },
  ip: '203.0.113.9',
  user_agent: 'Mozilla/5.0',
  details: { name: 'CI pipeline', mode: 'live', scopes: ['generate', 'read', 'webhooks'], expires_at: null, monthly_spend_limit: null },
};

/** The audit log (CONTRACT.md, "Teams"). */
export const AUDIT_DOCS: RouteDoc[] = [
  {
    handler: 'list-audit-events',
    doc: {
      operationId: 'listAuditEvents',
      summary: 'List audit events',
      description: `Every change to your account, newest first: keys made, changed and revoked, webhook endpoints made and deleted, and (as they are added) billing state, operator grants and team changes, each with who made it (a holder, \`operator\`, or Stripe), from which address and user agent, and what changed. Each entry is written in the same transaction as its change. Entries are kept at least a year. Test-mode changes are in the same log with \`details.mode = "test"\`. Pass a page's \`next_after\` as \`after\` for the next, older page; \`limit\` is 1 to ${AUDIT_PAGE.maxLimit} (default ${AUDIT_PAGE.defaultLimit}). With \`Accept: text/csv\` the same page comes as CSV (columns \`id, at, actor_type, actor_id, actor_email, action, target_type, target_id, ip, user_agent, details\`, details as compact JSON; cells that would start a spreadsheet formula get a leading \`'\`), its cursor in the \`Vidgen-Has-More\` and \`Vidgen-Next-After\` headers. For a signed-in session (the account's owner or admin); an API key gets 403.`,
      tag: 'Teams',
      request: { query: auditEventsQuery },
      success: {
        description: 'One page of audit events.',
        content: {
          ...json(auditEventPageResponse, ok({ events: [EXAMPLE_EVENT], has_more: false, next_after: null })).content,
          'text/csv': { schema: z.string().meta({ description: 'The same page as CSV (RFC 4180), a header row first.' }) },
        },
      },
      errors: [400, 401, 403, 429, 500],
      errorNotes: {
        400: {
          description: '`after` is not an audit event id, or `limit` is out of range.',
          example: 'after: must be an audit event id (aud_ + 26 characters): the next_after of an earlier page',
        },
      },
      // JSON here (the examples are run and read as JSON); add -H 'Accept: text/csv' for CSV.
      curl: `curl -s "{BASE}/audit-events?limit=50" \\\n  -H "Authorization: Bearer $SESSION_TOKEN"`,
    },
  },
];
