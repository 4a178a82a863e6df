import * as z from 'zod';
import { ok } from '#contract/examples';
import { usageQuery, usageReportResponse } from '#contract/usage';
import { MAX_RANGE_DAYS } from '#domain/usage/range';
import type { RouteDoc } from '../route';
import { AUTH, json } from './operation-doc';

const EXAMPLE_REPORT = {
  from: '2026-11-01',
  to: '2026-11-30',
  group_by: 'end_user' as const,
  rows: [
    { group: 'alice', tasks: 2, credits_charged: 50, credits_refunded: 0, credits_net: 50 },
    { group: 'bob', tasks: 2, credits_charged: 50, credits_refunded: 25, credits_net: 25 },
    { group: null, tasks: 1, credits_charged: 10, credits_refunded: 0, credits_net: 10 },
  ],
  totals: { tasks: 5, credits_charged: 110, credits_refunded: 25, credits_net: 85 },
};

/** Usage reports (CONTRACT.md, "End users and metadata"). */
export const USAGE_DOCS: RouteDoc[] = [
  {
    handler: 'get-usage',
    doc: {
      operationId: 'getUsage',
      summary: 'Get your usage',
      description: `What your tasks cost over a range of days (UTC), one row per \`day\`, \`model\`, \`key\` or \`end_user\` (\`group_by\`), with totals. The range is \`from\` to \`to\`, both included, at most ${MAX_RANGE_DAYS} days; by default the current UTC month, by day. It agrees with the ledger (\`GET /credits/transactions\`): \`credits_charged\` is the sum of the charges dated in the range, \`credits_refunded\` the refunds of those tasks (counted on the day of the charge, whenever the refund came), \`tasks\` the number of those charges; grants are not usage. A test key (or \`Vidgen-Mode: test\`) reports test mode. Read from per-day roll-ups written with each charge and refund, so its cost grows with days × groups, never with the number of tasks. With \`Accept: text/csv\` the rows come as CSV (RFC 4180, CRLF line ends; the header \`<group_by>,tasks,credits_charged,credits_refunded,credits_net\`; a null group is an empty field; no totals row; cells that would start a spreadsheet formula get a leading \`'\`) as an attachment named \`vidgen-usage-<mode>-<from>-<to>-<group_by>.csv\`. Errors are JSON envelopes either way.`,
      tag: 'Account',
      request: { query: usageQuery },
      success: {
        description: 'The usage report.',
        content: {
          ...json(usageReportResponse, ok(EXAMPLE_REPORT)).content,
          'text/csv': { schema: z.string().meta({ description: 'The rows as CSV (RFC 4180), a header row first.' }) },
        },
      },
      errors: [400, 401, 403, 429, 500],
      errorNotes: {
        400: {
          description: '`from` or `to` is not a calendar date as `YYYY-MM-DD`, `to` is before `from` or more than 366 days after it, or `group_by` is not one of the four.',
          example: 'to: at most 366 days after from (2025-01-01), both included; got 400',
        },
      },
      curl: `curl -s "{BASE}/usage?from=2026-11-01&to=2026-11-30&group_by=end_user" ${AUTH}`,
    },
  },
];
