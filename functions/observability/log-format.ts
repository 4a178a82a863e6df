/**
 * The local stack's readable log: one line per entry with the same fields as the JSON lines
 * on Lambda, minus what only matters there (function ARN, memory size, sampling, X-Ray id).
 *
 *   14:03:07.412 WARN  get-video   provider failure  task_id=vid_01J… detail="…"  request_id=6f1c…
 *
 * An error's stack (unexpected errors only) follows on indented lines.
 */
export const LOG_FORMAT_ENV = 'LOG_FORMAT';

/** `LOG_FORMAT=pretty` (set by the local stack) or the default, JSON lines as on Lambda. */
export function prettyLogs(env: Record<string, string | undefined> = process.env): boolean {
  return env[LOG_FORMAT_ENV] === 'pretty';
}

/** Keys that are noise on one machine, or shown in their own place on the line. */
const LEFT_OUT = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'sampling_rate',
  'xray_trace_id',
  'tenant_id',
]);
/** Shown last, so the fields that differ between lines line up first. */
const LAST = ['request_id', 'account_id'];

export function formatPretty(attributes: Record<string, unknown>): string {
  const time = typeof attributes.timestamp === 'string' ? attributes.timestamp.slice(11, 23) : '';
  const level = String(attributes.level ?? '').padEnd(5);
  const origin = typeof attributes.function_name === 'string' ? attributes.function_name.padEnd(15) : '';
  const fields: string[] = [];
  let stack: string | undefined;
  const entries = Object.entries(attributes).filter(([key]) => !LEFT_OUT.has(key));
  entries.sort(([a], [b]) => LAST.indexOf(a) - LAST.indexOf(b));
  for (const [key, value] of entries) {
    if (value === undefined) continue;
    if (isFormattedError(value)) {
      fields.push(`${key}=${quote(`${value.name}: ${value.message}`)}`);
      if (typeof value.stack === 'string') stack = value.stack;
      continue;
    }
    fields.push(`${key}=${quote(value)}`);
  }
  const line = [time, level, origin, String(attributes.message ?? ''), ...fields].filter(Boolean).join(' ');
  if (!stack) return line;
  // The stack's first line repeats the message already on the line.
  const frames = stack.split('\n').slice(1).map((frame) => `    ${frame.trim()}`);
  return [line, ...frames].join('\n');
}

function quote(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** Powertools' shape for an Error passed as a log field. */
function isFormattedError(value: unknown): value is { name: string; message: string; stack?: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { name?: unknown }).name === 'string' &&
    typeof (value as { message?: unknown }).message === 'string' &&
    'location' in value
  );
}
