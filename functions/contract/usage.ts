import * as z from 'zod';
import { MAX_RANGE_DAYS } from '#domain/usage/range';
import { USAGE_GROUPINGS, type UsageFigures, type UsageReport, type UsageRow } from '#domain/usage/report';
import { successEnvelopeSchema } from './envelope';

/** GET /usage (CONTRACT.md, "End users and metadata"): the caller's usage over a range, as JSON or CSV. */

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `YYYY-MM-DD`, and a day the calendar has (2026-02-30 is refused). */
const calendarDate = (field: 'from' | 'to') =>
  z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      if (value === undefined) return;
      if (!DATE.test(value)) ctx.addIssue({ code: 'custom', message: `must be a date as YYYY-MM-DD (UTC), got "${value.slice(0, 40)}"` });
      else if (new Date(`${value}T00:00:00.000Z`).toISOString().slice(0, 10) !== value) ctx.addIssue({ code: 'custom', message: `${value} is not a calendar date` });
    })
    .describe(field);

export const usageQuery = z.object({
  from: calendarDate('from'),
  to: calendarDate('to'),
  group_by: z.enum(USAGE_GROUPINGS, { error: `must be one of ${USAGE_GROUPINGS.join(', ')}` }).optional(),
});

/** The query parameters as the API reference shows them. */
export const USAGE_PARAMETERS = {
  from: {
    description: "The range's first day, `YYYY-MM-DD` (UTC). Default: the 1st of the current UTC month.",
    schema: { type: 'string', format: 'date' },
  },
  to: {
    description: `The range's last day, included, \`YYYY-MM-DD\` (UTC); at most ${MAX_RANGE_DAYS} days from \`from\`, both included. Default: the last day of the current UTC month.`,
    schema: { type: 'string', format: 'date' },
  },
  group_by: {
    description: 'One row per `day` (every day of the range, zeros included), `model`, `key` (the API key id; null: started from a signed-in session) or `end_user` (null: none given). Default: `day`.',
    schema: { type: 'string', enum: [...USAGE_GROUPINGS], default: 'day' },
  },
} as const;

const figures = {
  tasks: z.number().int().nonnegative().meta({ description: 'Tasks charged (started) in the range.' }),
  credits_charged: z.number().int().nonnegative().meta({ description: 'Credits charged for them.' }),
  credits_refunded: z.number().int().nonnegative().meta({ description: 'Credits refunded for those tasks (failed or canceled), whenever the refund came.' }),
  credits_net: z.number().int().meta({ description: '`credits_charged - credits_refunded`: what those tasks finally cost.' }),
};

export const usageRow = z
  .object({
    group: z.string().nullable().meta({ description: 'The day (`YYYY-MM-DD`), model id, API key id or end user; null for "no key" (a session\'s starts) or "no end user".' }),
    ...figures,
  })
  .meta({ id: 'UsageRow' });

export const usageReport = z
  .object({
    from: z.string().meta({ description: "The range's first day (UTC).", examples: ['2026-11-01'] }),
    to: z.string().meta({ description: "The range's last day, included (UTC).", examples: ['2026-11-30'] }),
    group_by: z.enum(USAGE_GROUPINGS),
    rows: z.array(usageRow).meta({ description: '`day`: every day of the range, ascending. Otherwise the groups with any task, by `credits_net` descending, then `group` (null last).' }),
    totals: z.object(figures).meta({ description: 'The sums over the rows: the same for every `group_by`.' }),
  })
  .meta({ id: 'UsageReport' });
export const usageReportResponse = successEnvelopeSchema('UsageReportResponse', usageReport);

const figuresView = (row: UsageFigures) => ({
  tasks: row.tasks,
  credits_charged: row.creditsCharged,
  credits_refunded: row.creditsRefunded,
  credits_net: row.creditsNet,
});

export const usageReportView = (report: UsageReport): z.infer<typeof usageReport> => ({
  from: report.from,
  to: report.to,
  group_by: report.groupBy,
  rows: report.rows.map((row) => ({ group: row.group, ...figuresView(row) })),
  totals: figuresView(report.totals),
});

/** The CSV (`Accept: text/csv`): the rows only (no totals row), the first column named after `group_by`; a null group is an empty field. */
export const usageCsvColumns = (report: UsageReport) => [report.groupBy, 'tasks', 'credits_charged', 'credits_refunded', 'credits_net'] as const;
export const usageCsvRow = (row: UsageRow) => [row.group, row.tasks, row.creditsCharged, row.creditsRefunded, row.creditsNet];

/** The attachment's file name: `vidgen-usage-<mode>-<from>-<to>-<group_by>.csv`. */
export const usageCsvFileName = (report: UsageReport, mode: 'live' | 'test') => `vidgen-usage-${mode}-${report.from}-${report.to}-${report.groupBy}.csv`;
