import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { UsageReport as Report, UsageRow } from '#client';
import { ErrorNotice, Section } from '../components';
import { useConsole } from '../context';
import { download } from '../download';
import { useAction } from '../queries';
import { groupLabel, monthSoFar, USAGE_GROUPINGS, type UsageGrouping } from '../usage';
import { SpendChart } from './SpendChart';

/**
 * What tasks cost over a range of UTC days, by day, model, key or end user (GET /usage, read from
 * roll-ups kept with each charge and refund, so a year costs no more than a day): a chart, a
 * table and the API's own CSV.
 */
export function UsageReport() {
  const { client, mode } = useConsole();
  const [range, setRange] = useState(() => monthSoFar(new Date()));
  const [groupBy, setGroupBy] = useState<UsageGrouping>('day');
  const params = { from: range.from, to: range.to, group_by: groupBy };
  const report = useQuery({
    queryKey: ['usage', mode, params],
    queryFn: async () => (await client()).getUsage(params),
    // A bad range is the API's 400, shown as it says it; the previous report stays meanwhile.
    placeholderData: (previous) => previous,
    retry: false,
  });
  const exportCsv = useAction({
    mutationFn: async () => {
      download(await (await client()).getUsageCsv(params), `vidgen-${mode}-usage-${groupBy}-${range.from}-${range.to}.csv`);
    },
  });

  return (
    <Section
      title="Usage report"
      actions={
        <button type="button" onClick={() => exportCsv.run()} disabled={exportCsv.isPending || !report.data}>
          {exportCsv.isPending ? 'Exporting…' : 'Export report CSV'}
        </button>
      }
    >
      <div className="row" role="group" aria-label="Report range and grouping">
        <label>
          From
          <input type="date" name="usage-from" value={range.from} max={range.to} required onChange={(event) => event.target.value && setRange({ ...range, from: event.target.value })} />
        </label>
        <label>
          To
          <input type="date" name="usage-to" value={range.to} min={range.from} required onChange={(event) => event.target.value && setRange({ ...range, to: event.target.value })} />
        </label>
        <label>
          Group by
          <select name="usage-group-by" value={groupBy} onChange={(event) => setGroupBy(event.target.value as UsageGrouping)}>
            {USAGE_GROUPINGS.map((grouping) => (
              <option key={grouping.value} value={grouping.value}>
                {grouping.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNotice error={report.error ?? exportCsv.error} />
      {report.data ? <ReportBody report={report.data} /> : !report.error && <p className="muted" role="status">Loading…</p>}
    </Section>
  );
}

function ReportBody({ report }: { report: Report }) {
  const { totals, rows } = report;
  const span = `${report.from} to ${report.to}`;
  return (
    <>
      <p className="muted small" data-testid="usage-totals">
        {totals.tasks} tasks · {totals.credits_charged} credits charged · {totals.credits_refunded} refunded · {totals.credits_net} net ({span}, UTC)
      </p>
      {report.group_by === 'day' ? (
        <SpendChart days={rows.map((row) => ({ day: row.group ?? '', credits: Math.max(0, row.credits_net) }))} span={span} />
      ) : (
        <GroupBars rows={rows} grouping={report.group_by} />
      )}
      {rows.length === 0 ? (
        <p className="muted">No tasks in this range.</p>
      ) : (
        <div className="table-wrap">
          <table data-testid="usage-rows">
            <thead>
              <tr>
                <th>{USAGE_GROUPINGS.find((grouping) => grouping.value === report.group_by)!.label}</th>
                <th className="num">Tasks</th>
                <th className="num">Charged</th>
                <th className="num">Refunded</th>
                <th className="num">Net</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.group ?? ''}>
                  <td>{groupLabel(report.group_by, row.group)}</td>
                  <td className="num">{row.tasks}</td>
                  <td className="num">{row.credits_charged}</td>
                  <td className="num">{row.credits_refunded}</td>
                  <td className="num">{row.credits_net}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** Net credits per group as horizontal bars, the largest first (the API's order). */
function GroupBars({ rows, grouping }: { rows: readonly UsageRow[]; grouping: UsageGrouping }) {
  const most = Math.max(1, ...rows.map((row) => row.credits_net));
  const shown = rows.slice(0, 10);
  return (
    <figure className="group-bars" aria-label={`Net credits by ${grouping.replace('_', ' ')}`}>
      {shown.map((row) => (
        <div key={row.group ?? ''} className="group-bar">
          <span className="group-name">{groupLabel(grouping, row.group)}</span>
          <span className="group-track">
            <span className="group-fill" style={{ width: `${(100 * Math.max(0, row.credits_net)) / most}%` }} />
          </span>
          <span className="num">{row.credits_net}</span>
        </div>
      ))}
      {rows.length > shown.length && <figcaption className="muted small">The 10 largest of {rows.length}; the table has them all.</figcaption>}
    </figure>
  );
}
