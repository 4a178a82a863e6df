import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { successEnvelope } from '#contract/envelope';
import { usageCsvColumns, usageCsvFileName, usageCsvRow, usageQuery, usageReportView } from '#contract/usage';
import { getUsage } from '#domain/usage/report';
import { CSV_CONTENT_TYPE, toCsv, wantsCsv } from '#http/csv';
import { jsonResponse } from '#http/envelope';
import { headerValue } from '#http/headers';
import { apiHandler } from '#http/http-handler';
import { spec } from './get-usage.spec';

/** GET /api/v1/usage: the caller's usage (its mode's) over a range, grouped; `Accept: text/csv` for the rows as CSV. */
export const handler = apiHandler(
  spec,
  async ({ event, principal }) => {
    const query = usageQuery.parse(event.queryStringParameters ?? {});
    const report = await getUsage(stores().usage, principal.partitionId, { from: query.from, to: query.to, groupBy: query.group_by }, new Date());
    if (!wantsCsv(headerValue(event, 'accept'))) return jsonResponse(200, successEnvelope(usageReportView(report)));
    return {
      statusCode: 200,
      headers: { 'Content-Type': CSV_CONTENT_TYPE, 'Content-Disposition': `attachment; filename="${usageCsvFileName(report, principal.mode)}"` },
      body: toCsv(usageCsvColumns(report), report.rows.map(usageCsvRow)),
    };
  },
  { rateLimiter },
);
