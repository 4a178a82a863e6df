import type { AuditEvent } from '#client';
import { csvText } from './csv';

/** Pure helpers of the Audit log page (unit-tested in test/unit/console-audit.test.ts). */

export interface AuditFilter {
  /** One action (`key.created`), or '' for every action. */
  action: string;
  /** Words to find in who made the change: a holder's email or an actor id, any case; '' for anyone. */
  actor: string;
}

export function matchesFilter(event: AuditEvent, filter: AuditFilter): boolean {
  if (filter.action && event.action !== filter.action) return false;
  const wanted = filter.actor.trim().toLowerCase();
  if (!wanted) return true;
  return [event.actor.email ?? '', event.actor.id, event.actor.type].some((text) => text.toLowerCase().includes(wanted));
}

/** The actions among `events`, sorted: what the action filter offers. */
export const actionsIn = (events: readonly AuditEvent[]): string[] => [...new Set(events.map((event) => event.action))].sort();

/** Who made the change, in words: a holder's email, else the kind of actor and its id. */
export function actorLabel(actor: AuditEvent['actor']): string {
  if (actor.email) return actor.email;
  if (actor.type === 'operator') return 'an operator';
  if (actor.type === 'stripe') return `Stripe (${actor.id})`;
  return `${actor.type} ${actor.id}`;
}

/** What changed, in one line: `name: from → to` for changes, `name: value` for the rest. */
export function detailsLine(details: AuditEvent['details']): string {
  const show = (value: unknown) => (Array.isArray(value) ? value.join(', ') : value === null ? 'none' : String(value));
  return Object.entries(details)
    .map(([name, value]) =>
      value !== null && typeof value === 'object' && !Array.isArray(value) && 'from' in value ? `${name}: ${show(value.from)} → ${show(value.to)}` : `${name}: ${show(value)}`,
    )
    .join('; ');
}

/** The columns of the API's own CSV (GET /audit-events with Accept: text/csv), so both exports read alike. */
const CSV_COLUMNS = ['id', 'at', 'actor_type', 'actor_id', 'actor_email', 'action', 'target_type', 'target_id', 'ip', 'user_agent', 'details'] as const;

export function auditCsv(events: readonly AuditEvent[]): string {
  return csvText(
    CSV_COLUMNS,
    events.map((event) => [
      event.id,
      event.at,
      event.actor.type,
      event.actor.id,
      event.actor.email,
      event.action,
      event.target.type,
      event.target.id,
      event.ip,
      event.user_agent,
      JSON.stringify(event.details),
    ]),
  );
}
