import type { UseQueryResult } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Pagination } from '#client';
import { describeError, ERROR_ADVICE, remedyLink } from './errors';
import { Link } from './router';

/** An error in plain words, with what to do, the code and the request id for support. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const described = describeError(error);
  return (
    <div className="notice error" role="alert">
      <strong>{described.title}.</strong> {described.message}
      {described.action && <p>{described.action}</p>}
      <RemedyLink code={described.code} />
      {(described.code || described.requestId) && (
        <p className="muted small">
          {described.code && <>Code: <code>{described.code}</code></>}
          {described.requestId && <> · Request id: <code>{described.requestId}</code></>}
        </p>
      )}
    </div>
  );
}

/**
 * A query's data; until it has some, "Loading…" or the error. A failed read (a 429 above all)
 * never shows as an empty list; a failed re-read shows its error above the data it last had.
 */
export function Loaded<T>({ query, children }: { query: Pick<UseQueryResult<T>, 'data' | 'error'>; children: (data: T) => ReactNode }) {
  return (
    <>
      <ErrorNotice error={query.error} />
      {query.data !== undefined ? children(query.data) : !query.error && <p className="muted" role="status">Loading…</p>}
    </>
  );
}

/**
 * A notice of what was just made (a key or a secret shown once): it takes focus when it appears,
 * which also scrolls it into view (at 375 px it is below the form). Give it a `key` per thing shown.
 */
export function FocusedNotice({ testId, children }: { testId: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div ref={ref} tabIndex={-1} className="notice warn" role="status" data-testid={testId}>
      {children}
    </div>
  );
}

/** For errors a console page fixes (no credits, no paid access): a link to that page. */
function RemedyLink({ code }: { code: string | undefined }) {
  const link = remedyLink(code);
  return link ? (
    <p>
      <Link to={link.to} className="button-link">
        {link.label}
      </Link>
    </p>
  ) : null;
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="secondary"
      onClick={() =>
        void navigator.clipboard?.writeText(text).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        })
      }
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

export function Pager({ pagination, onPage }: { pagination: Pagination | undefined; onPage: (page: number) => void }) {
  if (!pagination || pagination.total_pages <= 1) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="secondary" disabled={pagination.page <= 1} onClick={() => onPage(pagination.page - 1)}>
        Previous
      </button>
      <span>
        Page {pagination.page} of {pagination.total_pages} ({pagination.total} in all)
      </span>
      <button type="button" className="secondary" disabled={!pagination.has_more} onClick={() => onPage(pagination.page + 1)}>
        Next
      </button>
    </nav>
  );
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="card">
      <div className="card-head">
        <h2>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** A column of DataTable: its heading, right-aligned when it holds numbers. */
export type Column = string | { label: string; num: true };

/**
 * A table in its sideways-scrolling frame (375 px): the heading row from `columns`, then, with
 * `actions`, a last column whose heading only screen readers hear; `children` are the rows.
 */
export function DataTable({ testId, columns, actions, children }: { testId: string; columns: readonly Column[]; actions?: boolean; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table data-testid={testId}>
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === 'string' ? (
                <th key={column}>{column}</th>
              ) : (
                <th key={column.label} className="num">
                  {column.label}
                </th>
              ),
            )}
            {actions && (
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A status as a coloured badge; `label` says it in words where the API's value is not (`past_due`). */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return <span className={`badge status-${status}`}>{label ?? status}</span>;
}

/** Why a task failed (its `error`), in plain words with what to do. */
export function TaskFailure({ error }: { error: { code: string; message: string } }) {
  const advice = ERROR_ADVICE[error.code];
  return (
    <div className="notice error" role="alert">
      <strong>{advice?.title ?? 'Failed'}.</strong> {error.message}
      {advice && <p>{advice.action}</p>}
      <RemedyLink code={error.code} />
      <p className="small">
        Code: <code>{error.code}</code>
      </p>
    </div>
  );
}
