import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { AUDIT_CSV_COLUMNS, auditCsvRow, auditEventPageView, auditEventsQuery } from '#contract/audit';
import { successEnvelope } from '#contract/envelope';
import { listAuditEvents } from '#domain/accounts/audit-events';
import { CSV_CONTENT_TYPE, toCsv, wantsCsv } from '#http/csv';
import { jsonResponse } from '#http/envelope';
import { headerValue } from '#http/headers';
import { apiHandler } from '#http/http-handler';
import { spec } from './list-audit-events.spec';

/** GET /api/v1/audit-events: the account's changes, newest first; `Accept: text/csv` for the same page as CSV. */
export const handler = apiHandler(
  spec,
  async ({ event, principal }) => {
    const { after, limit } = auditEventsQuery.parse(event.queryStringParameters ?? {});
    const page = await listAuditEvents(stores().auditLog, principal.partitionId, after, limit);
    if (!wantsCsv(headerValue(event, 'accept'))) return jsonResponse(200, successEnvelope(auditEventPageView(page)));
    return {
      statusCode: 200,
      // The cursor travels in headers, since a CSV body has no place for it.
      headers: { 'Content-Type': CSV_CONTENT_TYPE, 'Vidgen-Has-More': String(page.hasMore), 'Vidgen-Next-After': page.nextAfter ?? '' },
      body: toCsv(AUDIT_CSV_COLUMNS, page.entries.map(auditCsvRow)),
    };
  },
  { rateLimiter },
);
