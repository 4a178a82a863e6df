import type { Account, AccountList, ApiKey, AuditEventPage, Credits, MemberList, ReceivedInvitationList, ImagePage, ImageTask, ModelList, Pagination, Quote, TransactionPage, UsageReport, VideoPage, VideoTask, Webhook, WebhookDeliveryPage } from '#client';

/** Human-readable output for stdout (without --json). */

/** One "name  value" line per field, in the API's order; nested errors and lists readable. */
export function formatFields(record: VideoTask | ImageTask | Credits | ApiKey): string {
  // An empty object (metadata {}) says nothing, like a null.
  const entries = Object.entries(record).filter(([, value]) => value !== undefined && value !== null && !isEmptyObject(value));
  const width = Math.max(...entries.map(([name]) => name.length));
  return entries
    .map(([name, value]) => {
      const label = name.padEnd(width);
      if (Array.isArray(value)) return value.map((item, i) => `${i === 0 ? label : ' '.repeat(width)}  ${String(item)}`).join('\n');
      if (typeof value === 'object') return `${label}  ${formatObject(value as Record<string, unknown>)}`;
      return `${label}  ${String(value)}`;
    })
    .join('\n');
}

const isEmptyObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

/** An error as `[code] message`; any other object (delivery, metadata) as its non-null fields. */
function formatObject(value: Record<string, unknown>): string {
  const { code, message } = value;
  if (typeof code === 'string' && typeof message === 'string') return `[${code}] ${message}`;
  return Object.entries(value)
    .filter(([, field]) => field !== undefined && field !== null)
    .map(([field, fieldValue]) => `${field}: ${typeof fieldValue === 'object' ? JSON.stringify(fieldValue) : String(fieldValue)}`)
    .join(', ');
}

export const formatCredits = (credits: Credits) => formatFields(credits);

/** One line per model: id, kind, price, subscription, what it takes beyond the basics. */
export function formatModelList(list: ModelList): string {
  const rows = list.models.map((model) => {
    const { capabilities } = model;
    const takes = [
      capabilities.image_to_video && 'image_to_video',
      capabilities.end_image && 'end_image',
      capabilities.reference_images && 'reference_images',
      capabilities.seed && 'seed',
      capabilities.negative_prompt && 'negative_prompt',
    ].filter(Boolean);
    const range = model.kind === 'video' ? `${model.parameters.duration.min}-${model.parameters.duration.max}s` : model.parameters.output_format.join('/');
    return [
      model.id,
      model.kind,
      `${model.pricing.credits_per_unit} credits/${model.pricing.unit}`,
      model.subscription_required ? 'subscription' : 'no subscription',
      range,
      takes.join(','),
    ];
  });
  return [...table(rows), 'Prices are rounded up once per task. --json for defaults and allowed values.'].join('\n');
}

export function formatQuote(quote: Quote): string {
  const verdict = quote.can_start ? 'would start' : `would be refused: ${quote.reason}`;
  return `${quote.model}: ${quote.credits} credits (balance ${quote.balance}); ${verdict}`;
}
/** The account with its two balances flattened: live credits, test credits. */
export const formatAccount = ({ live, test, ...rest }: Account) =>
  formatFields({ ...rest, live_credits: live.credits, test_credits: test.credits } as unknown as Credits);

/** One line per key: what it is, what it may do and spend, when it was used, whether it still works. */
export function formatKeyList({ keys }: { keys: ApiKey[] }, now = Date.now()): string {
  const rows = keys.map((key) => [
    key.key_id,
    JSON.stringify(key.name),
    key.mode,
    key.prefix ?? '-',
    key.scopes.join(','),
    `spent ${key.spent_this_month} of ${key.monthly_spend_limit ?? 'no limit'}`,
    key.last_used_at ? `used ${shortTime(key.last_used_at)}` : 'never used',
    key.expires_at ? `expires ${shortTime(key.expires_at)}` : 'no expiry',
    keyState(key, now),
  ]);
  const working = keys.filter((key) => keyState(key, now) === 'active').length;
  const summary = keys.length === 0 ? 'No keys yet.' : `${keys.length} key${keys.length === 1 ? '' : 's'}, ${working} active.`;
  return [...table(rows), summary].join('\n');
}

function keyState(key: ApiKey, now: number): string {
  if (key.revoked_at) return `revoked ${shortTime(key.revoked_at)}`;
  return key.expires_at && Date.parse(key.expires_at) <= now ? 'expired' : 'active';
}

export function formatVideoList(page: VideoPage): string {
  const rows = page.videos.map((video) => [
    video.video_id,
    video.status,
    video.model,
    `${video.duration}s`,
    video.resolution,
    video.aspect_ratio,
    shortTime(video.created_at),
    clip(video.prompt),
  ]);
  return [...table(rows), footer(page.pagination, 'video')].join('\n');
}

export function formatImageList(page: ImagePage): string {
  const rows = page.images.map((image) => [
    image.image_id,
    image.status,
    image.model,
    image.resolution,
    image.aspect_ratio,
    image.output_format,
    shortTime(image.created_at),
    clip(image.prompt),
  ]);
  return [...table(rows), footer(page.pagination, 'image')].join('\n');
}

export function formatTransactionList(page: TransactionPage): string {
  const rows = page.transactions.map((transaction) => [
    shortTime(transaction.created_at),
    transaction.type,
    `${transaction.amount > 0 ? '+' : ''}${transaction.amount}`,
    transaction.task_id ?? '-',
    transaction.reason ?? '',
  ]);
  const sum = page.transactions.reduce((total, transaction) => total + transaction.amount, 0);
  // Every amount of every page adds up to the balance: say so when this page is all of them.
  const whole = page.pagination.page === 1 && !page.pagination.has_more && page.transactions.length > 0;
  const sumLine = whole ? [`Sum: ${sum} (your balance)`] : [];
  return [...table(rows), ...sumLine, footer(page.pagination, 'transaction')].join('\n');
}

/** An aligned table of the report's rows (a null group shown as "-"), then the totals. */
export function formatUsage(report: UsageReport): string {
  const figures = (row: UsageReport['totals']) => [String(row.tasks), String(row.credits_charged), String(row.credits_refunded), String(row.credits_net)];
  const header = [report.group_by, 'tasks', 'charged', 'refunded', 'net'];
  const rows = report.rows.map((row) => [row.group ?? '-', ...figures(row)]);
  return [`Usage ${report.from} to ${report.to} (UTC), by ${report.group_by}:`, ...table([header, ...rows, ['total', ...figures(report.totals)]])].join('\n');
}

/** One line per account of the holder: id and role; the first is the default. */
export function formatAccountList({ accounts }: AccountList): string {
  if (accounts.length === 0) return 'You belong to no account: accept an invitation, or ask an owner to add you.';
  const rows = accounts.map((account, i) => [account.account_id, account.role, i === 0 ? 'default' : '']);
  return [...table(rows), 'Act in another with --account ACC_ID (or VIDGEN_ACCOUNT).'].join('\n');
}

/** The members (holder id, email, role, joined) and the open invitations. */
export function formatMemberList({ members, invitations }: MemberList): string {
  const lines = table(members.map((member) => [member.holder_id, member.email, member.role, `joined ${shortTime(member.joined_at)}`]));
  lines.push(`${members.length} member${members.length === 1 ? '' : 's'}.`);
  if (invitations.length > 0) {
    lines.push('Open invitations:');
    lines.push(...table(invitations.map((invitation) => [invitation.invitation_id, invitation.email, invitation.role, `until ${shortTime(invitation.expires_at)}`])));
  }
  return lines.join('\n');
}

/** The invitations to the holder: id, account, role, who invited, until when. */
export function formatReceivedInvitations({ invitations }: ReceivedInvitationList): string {
  if (invitations.length === 0) return 'No open invitations to your address.';
  const rows = invitations.map((invitation) => [invitation.invitation_id, invitation.account_id, invitation.role, `until ${shortTime(invitation.expires_at)}`]);
  return [...table(rows), 'Accept one with: invitations accept INVITATION_ID'].join('\n');
}

/** One line per entry, newest first: when, who, what, on what, from where; then the cursor to older entries. */
export function formatAuditEvents(page: AuditEventPage): string {
  if (page.events.length === 0) return 'No audit entries.';
  const rows = page.events.map((event) => [
    shortTime(event.at),
    event.actor.email ?? `${event.actor.type} ${event.actor.id ?? ''}`.trim(),
    event.action,
    `${event.target.type} ${event.target.id}`,
    event.ip ?? '-',
  ]);
  const more = page.has_more && page.next_after ? `Older entries: --after ${page.next_after}` : 'No older entries.';
  return [...table(rows), more].join('\n');
}

/** One line per webhook endpoint: id, URL, the events it gets ("every event" when all), added, description. */
export function formatWebhookList(list: { webhooks: Webhook[] }): string {
  if (list.webhooks.length === 0) return 'No webhook endpoints.';
  const rows = list.webhooks.map((webhook) => [
    webhook.webhook_id,
    webhook.url,
    // The four types before deliveries existed were "every event" then, and still get them all (webhooks.ts `wants`).
    EVENT_TYPES.filter((type) => !type.endsWith('.delivery_failed')).every((type) => webhook.events.includes(type)) ? 'every event' : webhook.events.join(','),
    shortTime(webhook.created_at),
    webhook.description ?? '',
  ]);
  const count = list.webhooks.length;
  return [...table(rows), `${count} endpoint${count === 1 ? '' : 's'}.`].join('\n');
}

/** Every event type an endpoint can get: a Record, so the type check fails if the API gains one this lacks. */
const EVENT_TYPES = Object.keys({
  'video.completed': true,
  'video.failed': true,
  'image.completed': true,
  'image.failed': true,
  'video.delivery_failed': true,
  'image.delivery_failed': true,
} satisfies Record<
  Webhook['events'][number],
  true
>) as Webhook['events'];

/** One line per delivery; the last column says why the last attempt failed, or when the next is due. */
export function formatDeliveryList(page: WebhookDeliveryPage): string {
  const rows = page.deliveries.map((delivery) => [
    delivery.event_id,
    delivery.type,
    delivery.status,
    `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`,
    delivery.last_attempt_at ? shortTime(delivery.last_attempt_at) : '-',
    [delivery.last_error, delivery.next_attempt_at && `next ${shortTime(delivery.next_attempt_at)}`].filter(Boolean).join(', '),
  ]);
  return [...table(rows), footer(page.pagination, 'delivery', 'deliveries')].join('\n');
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

function footer(pagination: Pagination, noun: string, plural = `${noun}s`): string {
  const { page, total_pages, total } = pagination;
  const count = `${total} ${total === 1 ? noun : plural}`;
  if (total === 0) return `No ${plural} yet.`;
  if (page > total_pages) return `Page ${page} is past the end (${total_pages} page${total_pages === 1 ? '' : 's'}, ${count}).`;
  return `Page ${page} of ${total_pages} (${count}).`;
}

/** 2026-11-21T17:00:00.000Z -> 2026-11-21 17:00Z */
function shortTime(iso: string): string {
  return iso.length >= 16 ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z` : iso;
}

function clip(prompt: string, max = 50): string {
  const oneLine = prompt.replace(/\s+/g, ' ').trim();
  return JSON.stringify(oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine);
}
