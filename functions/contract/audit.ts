import * as z from 'zod';
import { AUDIT_PAGE, type AuditEventsPage } from '#domain/accounts/audit-events';
import { AUDIT_ACTIONS, AUDIT_ID_PATTERN, type AuditEntry } from '#domain/shared/audit';
import { successEnvelopeSchema } from './envelope';
import { timestamp } from './fields';
import { wholeNumberParam } from './pagination';

/** The audit log (CONTRACT.md, "Teams"): GET /audit-events, as JSON or CSV. */

export const auditEventsQuery = z.object({
  after: z
    .string()
    .regex(AUDIT_ID_PATTERN, 'must be an audit event id (aud_ + 26 characters): the next_after of an earlier page')
    .optional()
    .describe('after'),
  limit: wholeNumberParam('limit', 1, AUDIT_PAGE.maxLimit, AUDIT_PAGE.defaultLimit),
});

/** The query parameters as the API reference shows them (`limit` is parsed by a transform zod cannot describe). */
export const AUDIT_EVENTS_PARAMETERS = {
  after: {
    description: 'The `next_after` of an earlier page: the list continues with older events. Leave it out to start at the newest.',
    schema: { type: 'string', pattern: AUDIT_ID_PATTERN.source },
  },
  limit: {
    description: `Events per page, 1 to ${AUDIT_PAGE.maxLimit}.`,
    schema: { type: 'integer', minimum: 1, maximum: AUDIT_PAGE.maxLimit, default: AUDIT_PAGE.defaultLimit },
  },
} as const;

const detailValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]);

export const auditEvent = z
  .object({
    id: z.string().meta({ description: 'The event id (`aud_` + ULID).', examples: ['aud_01M8EM6DZQNVPPS7K0AB4EEFEQ'] }),
    at: timestamp('When the change was made.'),
    actor: z
      .object({
        type: z.enum(['holder', 'key', 'operator', 'stripe']),
        id: z.string().meta({ description: 'The holder id, the key id, `operator`, or the Stripe event id.' }),
        email: z.string().nullable().meta({ description: "A holder's email at the time; null for the others." }),
      })
      .meta({ description: 'Who made the change.' }),
    action: z.enum(AUDIT_ACTIONS),
    target: z.object({ type: z.string(), id: z.string() }).meta({ description: 'What was changed.' }),
    ip: z.string().nullable().meta({ description: 'The address the request came from, as the API gateway saw it; null for operators and Stripe.' }),
    user_agent: z.string().nullable().meta({ description: "The request's User-Agent (at most 256 characters)." }),
    details: z
      .record(z.string(), z.union([detailValue, z.object({ from: detailValue, to: detailValue })]))
      .meta({ description: 'What changed, per action (a change as `{ from, to }`). Never key material, key hashes, webhook secrets or URL queries.' }),
  })
  .meta({ id: 'AuditEvent' });

export const auditEventPage = z
  .object({
    events: z.array(auditEvent).meta({ description: 'Newest first.' }),
    has_more: z.boolean().meta({ description: 'Whether older events follow this page.' }),
    next_after: z.string().nullable().meta({ description: 'The cursor to pass as `after` for the next (older) page; null when there is none.' }),
  })
  .meta({ id: 'AuditEventPage' });
export const auditEventPageResponse = successEnvelopeSchema('AuditEventPageResponse', auditEventPage);

export const auditEventView = (entry: AuditEntry): z.infer<typeof auditEvent> => ({
  id: entry.id,
  at: entry.at,
  actor: { type: entry.actor.type, id: entry.actor.id, email: entry.actor.email },
  action: entry.action,
  target: { type: entry.target.type, id: entry.target.id },
  ip: entry.origin.ip,
  user_agent: entry.origin.userAgent,
  details: entry.details as z.infer<typeof auditEvent>['details'],
});

export const auditEventPageView = (page: AuditEventsPage): z.infer<typeof auditEventPage> => ({
  events: page.entries.map(auditEventView),
  has_more: page.hasMore,
  next_after: page.nextAfter,
});

/** The CSV columns (`Accept: text/csv`): the JSON's fields flattened, details as compact JSON. */
export const AUDIT_CSV_COLUMNS = ['id', 'at', 'actor_type', 'actor_id', 'actor_email', 'action', 'target_type', 'target_id', 'ip', 'user_agent', 'details'] as const;

export const auditCsvRow = (entry: AuditEntry) => [
  entry.id,
  entry.at,
  entry.actor.type,
  entry.actor.id,
  entry.actor.email,
  entry.action,
  entry.target.type,
  entry.target.id,
  entry.origin.ip,
  entry.origin.userAgent,
  JSON.stringify(entry.details),
];
