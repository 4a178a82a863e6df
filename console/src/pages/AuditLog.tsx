import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { DataTable, ErrorNotice, formatTime } from '../components';
import { useConsole } from '../context';
import { download } from '../download';
import { actionsIn, actorLabel, auditCsv, detailsLine, matchesFilter, type AuditFilter } from '../audit';

/** Events per request: the API's largest page, so a long log takes few reads of the holder's 60 a minute. */
const PAGE_SIZE = 100;

/** Who changed what on the account (keys, webhooks, billing, settings), newest first. */
export default function AuditLog() {
  const { client } = useConsole();
  const [filter, setFilter] = useState<AuditFilter>({ action: '', actor: '' });
  // Older pages are read only when asked for ("Show older"), each from the last one's cursor.
  const log = useInfiniteQuery({
    queryKey: ['audit-events'],
    queryFn: async ({ pageParam }) => (await client()).listAuditEvents({ limit: PAGE_SIZE, ...(pageParam && { after: pageParam }) }),
    initialPageParam: '',
    getNextPageParam: (page) => (page.has_more && page.next_after ? page.next_after : undefined),
  });
  const events = log.data?.pages.flatMap((page) => page.events) ?? [];
  const shown = events.filter((event) => matchesFilter(event, filter));

  return (
    <>
      <div className="card-head">
        <h1>Audit log</h1>
        <button
          type="button"
          disabled={shown.length === 0}
          onClick={() => download(auditCsv(shown), `vidgen-audit-${new Date().toISOString().slice(0, 10)}.csv`)}
        >
          Export CSV
        </button>
      </div>
      <p className="muted">
        Every change to the account, newest first: who made it, from where, and what changed. Kept for a year. Key material and webhook secrets are never
        recorded. The export holds the events shown.
      </p>
      <div className="row" role="search" aria-label="Filter the audit log">
        <label>
          Action
          <select name="audit-action" value={filter.action} onChange={(event) => setFilter({ ...filter, action: event.target.value })}>
            <option value="">every action</option>
            {actionsIn(events).map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </label>
        <label>
          Who <span className="hint">email or id</span>
          <input type="search" name="audit-actor" value={filter.actor} onChange={(event) => setFilter({ ...filter, actor: event.target.value })} />
        </label>
      </div>
      <ErrorNotice error={log.error} />
      {log.data === undefined ? (
        !log.error && (
          <p className="muted" role="status">
            Loading…
          </p>
        )
      ) : shown.length === 0 ? (
        <p className="muted">{events.length === 0 ? 'No changes yet.' : 'No event matches these filters among those loaded.'}</p>
      ) : (
        <DataTable testId="audit-events" columns={['When', 'Who', 'Action', 'Target', 'From', 'Details']}>
          {shown.map((event) => (
            <tr key={event.id} data-audit-id={event.id}>
              <td>{formatTime(event.at)}</td>
              <td>{actorLabel(event.actor)}</td>
              <td>
                <code>{event.action}</code>
              </td>
              <td>
                {event.target.type} <code>{event.target.id}</code>
              </td>
              <td>{event.ip ?? '—'}</td>
              <td className="small">{detailsLine(event.details) || '—'}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {log.hasNextPage && (
        <button type="button" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
          {log.isFetchingNextPage ? 'Loading…' : 'Show older'}
        </button>
      )}
    </>
  );
}
