import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent, type RefObject } from 'react';
import type { CreatedWebhook, Webhook, WebhookDeliveryPage } from '#client';
import { CopyButton, ErrorNotice, FocusedNotice, formatTime, Loaded, Pager, Section, StatusBadge } from '../components';
import { useConsole } from '../context';
import { pollWhile, useAction } from '../queries';

const EVENTS = ['video.completed', 'video.failed', 'image.completed', 'image.failed'] as const;

export default function Webhooks() {
  const { client, mode } = useConsole();
  const queries = useQueryClient();
  const list = useQuery({ queryKey: ['webhooks', mode], queryFn: async () => (await client()).listWebhooks() });
  const [created, setCreated] = useState<CreatedWebhook>();
  const [open, setOpen] = useState<string>();
  const refresh = () => queries.invalidateQueries({ queryKey: ['webhooks', mode] });
  // Once the secret is stored, focus goes back to the form (not to the page's start).
  const urlInput = useRef<HTMLInputElement>(null);

  return (
    <>
      <h1>Webhooks</h1>
      <p className="muted">
        We POST an event to each endpoint when a {mode} task ends, signed as Standard Webhooks describes. Verify it with the endpoint's secret.
      </p>
      <CreateWebhook urlInput={urlInput} onCreated={(webhook) => { setCreated(webhook); void refresh(); }} />
      {created && (
        <FocusedNotice key={created.webhook_id} testId="webhook-secret">
          <strong>Signing secret of {created.url}</strong>
          <div className="secret">
            <code>{created.secret}</code>
            <CopyButton text={created.secret} />
          </div>
          <p>Copy it now: you will not see it again.</p>
          <button type="button" className="secondary" onClick={() => { setCreated(undefined); urlInput.current?.focus(); }}>
            I have stored it
          </button>
        </FocusedNotice>
      )}
      <Loaded query={list}>
        {({ webhooks }) =>
          webhooks.length === 0 ? (
            <p className="muted">No endpoints yet.</p>
          ) : (
            webhooks.map((webhook) => (
              <Endpoint key={webhook.webhook_id} webhook={webhook} open={open === webhook.webhook_id} onToggle={() => setOpen(open === webhook.webhook_id ? undefined : webhook.webhook_id)} onDeleted={refresh} />
            ))
          )
        }
      </Loaded>
    </>
  );
}

function CreateWebhook({ urlInput, onCreated }: { urlInput: RefObject<HTMLInputElement | null>; onCreated: (webhook: CreatedWebhook) => void }) {
  const { client } = useConsole();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([...EVENTS]);
  const create = useAction({
    mutationFn: async () =>
      (await client()).createWebhook({ url: url.trim(), events: events as (typeof EVENTS)[number][], ...(description.trim() && { description: description.trim() }) }),
    onSuccess: (webhook) => {
      setUrl('');
      setDescription('');
      onCreated(webhook);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.run();
  };
  return (
    <Section title="Add an endpoint">
      <form className="stack" onSubmit={submit}>
        <label>
          URL <span className="hint">https (the local stack also takes http to this machine)</span>
          <input ref={urlInput} type="url" name="url" required value={url} onChange={(event) => setUrl(event.target.value)} />
        </label>
        <label>
          Description <span className="hint">optional</span>
          <input name="description" maxLength={200} value={description} onChange={(event) => setDescription(event.target.value)} />
        </label>
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map((name) => (
            <label key={name} className="inline">
              <input
                type="checkbox"
                checked={events.includes(name)}
                onChange={(event) => setEvents(event.target.checked ? [...events, name] : events.filter((other) => other !== name))}
              />
              {name}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={create.isPending || events.length === 0}>
          Add endpoint
        </button>
        <ErrorNotice error={create.error} />
      </form>
    </Section>
  );
}

function Endpoint({ webhook, open, onToggle, onDeleted }: { webhook: Webhook; open: boolean; onToggle: () => void; onDeleted: () => void }) {
  const { client, mode } = useConsole();
  const queries = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [page, setPage] = useState(1);
  const deliveriesKey = ['deliveries', mode, webhook.webhook_id, page];
  const deliveries = useQuery({
    queryKey: deliveriesKey,
    enabled: open,
    queryFn: async () => (await client()).listWebhookDeliveries(webhook.webhook_id, { page, limit: 20 }),
    refetchInterval: pollWhile((data: WebhookDeliveryPage | undefined) => data?.deliveries.some((delivery) => delivery.status === 'pending') ?? false, 2_000),
  });
  const test = useAction({
    mutationFn: async () => (await client()).testWebhook(webhook.webhook_id),
    onSuccess: () => void queries.invalidateQueries({ queryKey: ['deliveries', mode, webhook.webhook_id] }),
  });
  const remove = useMutation({ mutationFn: async () => (await client()).deleteWebhook(webhook.webhook_id), onSuccess: onDeleted });

  return (
    <section className="card" data-webhook-id={webhook.webhook_id}>
      <div className="card-head">
        <h2>
          <code>{webhook.url}</code>
        </h2>
        <div className="row">
          <button type="button" className="secondary" onClick={() => { if (!open) onToggle(); test.run(); }} disabled={test.isPending}>
            Send test event
          </button>
          <button type="button" className="secondary" aria-expanded={open} onClick={onToggle}>
            {open ? 'Hide deliveries' : 'Deliveries'}
          </button>
          {confirming ? (
            <>
              <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
                Yes, delete it
              </button>
              <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                Keep it
              </button>
            </>
          ) : (
            <button type="button" className="secondary" onClick={() => setConfirming(true)}>
              Delete
            </button>
          )}
        </div>
      </div>
      <p className="muted small">
        {webhook.description ? `${webhook.description} · ` : ''}
        {webhook.events.join(', ')} · added {formatTime(webhook.created_at)}
      </p>
      <ErrorNotice error={test.error ?? remove.error} />
      {open && (
        <div className="table-wrap">
          <ErrorNotice error={deliveries.error} />
          {deliveries.data && deliveries.data.deliveries.length === 0 && <p className="muted">No deliveries yet.</p>}
          {deliveries.data && deliveries.data.deliveries.length > 0 && (
            <table data-testid="deliveries">
              <thead>
                <tr>
                  <th>Event</th>
                  <th>Type</th>
                  <th>Status</th>
                  <th className="num">Attempts</th>
                  <th className="num">Last HTTP status</th>
                  <th>Last error</th>
                  <th>Last attempt</th>
                  <th>Next attempt</th>
                </tr>
              </thead>
              <tbody>
                {deliveries.data.deliveries.map((delivery) => (
                  <tr key={delivery.event_id}>
                    <td><code>{delivery.event_id}</code></td>
                    <td>{delivery.type}</td>
                    <td><StatusBadge status={delivery.status} /></td>
                    <td className="num">{delivery.attempts}</td>
                    <td className="num">{delivery.last_status_code ?? '—'}</td>
                    <td>{delivery.last_error ?? '—'}</td>
                    <td>{formatTime(delivery.last_attempt_at)}</td>
                    <td>{formatTime(delivery.next_attempt_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <Pager pagination={deliveries.data?.pagination} onPage={setPage} />
        </div>
      )}
    </section>
  );
}
