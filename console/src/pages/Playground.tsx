import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import type { ImageTask, Quote, QuoteParams, VideoTask } from '#client';
import { CopyButton, ErrorNotice, Section, StatusBadge, TaskFailure } from '../components';
import { useConsole } from '../context';
import { BILLING_LINK } from '../errors';
import { StartIntent } from '../idempotency';
import { ledgerKey } from '../ledger';
import {
  curlCommand,
  fieldsOf,
  helpOf,
  labelOf,
  missingFields,
  optionLabel,
  requestBody,
  shownFields,
  type CatalogueModel,
  type Field,
  type FormValues,
} from '../playground-form';
import { pollWhile, useAction } from '../queries';
import { Link } from '../router';
import { useStoredState } from '../stored-state';
import { plural } from '../words';

type Kind = 'video' | 'image';
const PATHS: Record<Kind, string> = { video: '/generate', image: '/generate-image' };

/** Kept across kinds: the text typed for one is as good for the other. */
const SHARED_FIELDS = ['prompt', 'negative_prompt', 'seed'];
/** A price is asked for once typing pauses this long (POST /quote counts against the rate limit). */
const QUOTE_PAUSE_MS = 400;

interface Draft {
  kind: Kind;
  values: FormValues;
}

/** A stored draft of another version may not have this shape: start clean then. */
function draftOf(stored: Draft): Draft {
  const kind = stored?.kind === 'image' ? 'image' : 'video';
  const values = typeof stored?.values === 'object' && stored.values !== null ? stored.values : {};
  return { kind, values: Object.fromEntries(Object.entries(values).filter(([, value]) => typeof value === 'string')) };
}

export default function Playground() {
  const { client, mode, config } = useConsole();
  // The draft survives the page's re-mount when the mode switches (and a reload): it is this tab's.
  const [stored, setDraft] = useStoredState<Draft>('vidgen.console.playground', { kind: 'video', values: {} });
  const { kind, values } = draftOf(stored);
  const models = useQuery({ queryKey: ['models'], queryFn: async () => (await (await client()).listModels()).models, staleTime: Infinity });
  const fields = useMemo(() => fieldsOf(__REQUEST_SCHEMAS__[kind]), [kind]);
  const shown = shownFields(fields, values, models.data);
  const body = requestBody(shown, values);
  const set = (name: string, value: string) => setDraft((previous) => ({ kind, values: { ...draftOf(previous).values, [name]: value } }));
  const setKind = (next: Kind) => {
    setDraft({ kind: next, values: Object.fromEntries(SHARED_FIELDS.flatMap((name) => (values[name] ? [[name, values[name]]] : []))) });
    start.reset();
  };

  // The price of what the form says now, from POST /quote (the prompt does not change it).
  const missing = missingFields(shown, values);
  const priced = useDebounced(JSON.stringify({ kind, ...body, prompt: 'price' }), QUOTE_PAUSE_MS);
  const quote = useQuery({
    queryKey: ['quote', mode, priced],
    enabled: missing.length === 0,
    queryFn: async () => (await client()).quote(JSON.parse(priced) as QuoteParams),
    placeholderData: (previous) => previous,
  });

  const queries = useQueryClient();
  // What a start or a failure (refunded) changes besides the task: the balance, the ledger, the price's balance.
  const charged = () => Promise.all([['account'], ledgerKey(mode), ['quote', mode]].map((queryKey) => queries.invalidateQueries({ queryKey })));
  const [intent] = useState(() => new StartIntent());
  const start = useAction({
    mutationFn: async (idempotencyKey: string): Promise<VideoTask | ImageTask> => {
      const api = await client();
      return kind === 'video' ? api.generateVideo(body as never, { idempotencyKey }) : api.generateImage(body as never, { idempotencyKey });
    },
    onSuccess: (started) => {
      // The start's answer is the task's first read: the poll begins from it, not with a GET of the same.
      queries.setQueryData(['task', mode, idOf(started)], started);
      void charged();
    },
    onSettled: (_task, error, idempotencyKey) => intent.settled(idempotencyKey, error),
  });
  const startedId = start.data ? idOf(start.data) : undefined;
  const progress = useQuery({
    queryKey: ['task', mode, startedId],
    enabled: startedId !== undefined,
    queryFn: async (): Promise<VideoTask | ImageTask> => {
      const api = await client();
      return startedId!.startsWith('img_') ? api.getImage(startedId!) : api.getVideo(startedId!);
    },
    refetchInterval: pollWhile((task: VideoTask | ImageTask | undefined) => task?.status !== 'completed' && task?.status !== 'failed', 1_500),
  });
  const task = progress.data ?? start.data;
  const failed = task?.status === 'failed';
  useEffect(() => {
    if (failed) void charged();
    // Once per failure: a failed task is refunded.
  }, [failed]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    start.run(intent.keyFor(JSON.stringify([kind, body])));
  };

  return (
    <>
      <h1>Playground</h1>
      <div className="detail">
        <Section title="Parameters">
          <form className="stack" onSubmit={submit} aria-label="Parameters">
            <fieldset>
              <legend>What to make</legend>
              <label className="inline">
                <input type="radio" name="kind" checked={kind === 'video'} onChange={() => setKind('video')} /> Video
              </label>{' '}
              <label className="inline">
                <input type="radio" name="kind" checked={kind === 'image'} onChange={() => setKind('image')} /> Image
              </label>
            </fieldset>
            {shown.map((field) => (
              <FieldInput key={`${kind}-${field.name}`} field={field} models={models.data} value={values[field.name] ?? ''} onChange={(value) => set(field.name, value)} />
            ))}
            <Price quote={missing.length === 0 ? quote.data : undefined} error={quote.error} missing={missing} mode={mode} />
            <button type="submit" disabled={start.isPending || !(values.prompt ?? '').trim()}>
              {start.isPending ? 'Starting…' : `Start ${kind} in ${mode} mode${quote.data && missing.length === 0 ? ` · ${plural(quote.data.credits, 'credit')}` : ''}`}
            </button>
            <ErrorNotice error={start.error} />
          </form>
        </Section>
        <div className="stack">
          <Section title="Result">
            {!task && <p className="muted">Start a generation to see its progress and result here.</p>}
            {task && <TaskResult task={task} />}
            <ErrorNotice error={progress.error} />
          </Section>
          <Section title="The same request with curl" actions={<CopyButton text={curlCommand(config.publicApiUrl, PATHS[kind], body)} />}>
            <pre data-testid="curl">{curlCommand(config.publicApiUrl, PATHS[kind], body)}</pre>
            <p className="muted small">Use a {mode === 'test' ? 'vg_test_' : 'vg_live_'} key from the API keys page: a key's own mode decides live or test.</p>
          </Section>
        </div>
      </div>
    </>
  );
}

const idOf = (task: VideoTask | ImageTask) => ('video_id' in task ? task.video_id : task.image_id);

function TaskResult({ task }: { task: VideoTask | ImageTask }) {
  const id = idOf(task);
  return (
    <div className="stack" data-testid="playground-result" data-status={task.status}>
      <p>
        <StatusBadge status={task.status} /> <Link to={`/generations?id=${id}`}>{id}</Link> · {plural(task.credits_used, 'credit')}
      </p>
      {task.status === 'processing' && <progress max={100} value={task.progress} aria-label="Progress" />}
      {task.status === 'completed' && 'video_url' in task && task.video_url && <video src={task.video_url} controls autoPlay muted playsInline />}
      {task.status === 'completed' && 'image_urls' in task && task.image_urls?.map((url) => <img key={url} src={url} alt={task.prompt} data-testid="playground-image" />)}
      {task.status === 'failed' && task.error && <TaskFailure error={task.error} />}
    </div>
  );
}

/** The price before starting (POST /quote), and why a start would be refused now. */
function Price({ quote, error, missing, mode }: { quote: Quote | undefined; error: unknown; missing: readonly Field[]; mode: string }) {
  let text: ReactNode;
  if (missing.length > 0) text = `Fill in ${missing.map((field) => labelOf(field)).join(', ')} to see the price.`;
  else if (error) text = <>No price yet: {error instanceof Error ? error.message : String(error)}</>;
  else if (!quote) text = 'Working out the price…';
  else {
    const cost = <strong>{plural(quote.credits, 'credit')}</strong>;
    const balance = `your ${mode} balance is ${plural(quote.balance, 'credit')}`;
    if (quote.can_start) text = <>Costs {cost}; {balance}.</>;
    else if (quote.reason === 'insufficient_credits') text = <>Costs {cost}, more than {balance}. <Link to={BILLING_LINK.to}>{mode === 'test' ? 'Add test credits' : 'Buy credits'}</Link></>;
    else if (quote.reason === 'paid_access_required')
      text =
        mode === 'test' ? (
          <>
            Costs {cost}, and needs paid access, in test mode as in live mode. <Link to={BILLING_LINK.to}>Start a test subscription</Link> (play money).
          </>
        ) : (
          <>
            Costs {cost}, and needs paid access (for models marked subscription required, an active subscription). <Link to={BILLING_LINK.to}>Subscribe</Link>
          </>
        );
    else text = <>Costs {cost}, over a monthly spend limit.</>;
  }
  return (
    <p className="small" data-testid="quote" aria-live="polite">
      {text}
    </p>
  );
}

/** `value`, once it has stopped changing for `ms` (so typing does not ask the API at every key). */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

function FieldInput({ field, models, value, onChange }: { field: Field; models: readonly CatalogueModel[] | undefined; value: string; onChange: (value: string) => void }) {
  const { schema } = field;
  const help = helpOf(field);
  const label = (
    <>
      {labelOf(field)}
      {field.required && ' (required)'} {help && <span className="hint">{help}</span>}
    </>
  );
  switch (field.kind) {
    case 'prompt':
      return (
        <label>
          {label}
          <textarea name={field.name} required maxLength={schema.maxLength} value={value} onChange={(event) => onChange(event.target.value)} />
        </label>
      );
    case 'choice':
      return (
        <label>
          {label}
          <select name={field.name} value={value || String(schema.default ?? '')} onChange={(event) => onChange(event.target.value)}>
            {schema.default === undefined && <option value="">(default)</option>}
            {schema.enum!.map((option) => (
              <option key={String(option)} value={String(option)}>
                {optionLabel(field, String(option), models)}
              </option>
            ))}
          </select>
        </label>
      );
    case 'integer':
      return (
        <label>
          {label}
          <input type="number" name={field.name} min={schema.minimum} max={schema.maximum} step={1} placeholder={schema.default === undefined ? '' : String(schema.default)} value={value} onChange={(event) => onChange(event.target.value)} />
        </label>
      );
    case 'url':
    case 'urls':
      return <UrlField field={field} label={label} value={value} onChange={onChange} />;
    case 'pairs':
      return (
        <label>
          {label}
          <textarea name={field.name} placeholder="key=value, one a line" value={value} onChange={(event) => onChange(event.target.value)} />
        </label>
      );
    default:
      return (
        <label>
          {label}
          <input name={field.name} maxLength={schema.maxLength} value={value} onChange={(event) => onChange(event.target.value)} />
        </label>
      );
  }
}

/** A URL (or several), typed in or uploaded through POST /upload. */
function UrlField({ field, label, value, onChange }: { field: Field; label: React.ReactNode; value: string; onChange: (value: string) => void }) {
  const { client } = useConsole();
  const upload = useMutation({
    mutationFn: async (file: File) => (await client()).uploadImage(file, { filename: file.name, contentType: file.type }),
    onSuccess: (uploaded) => onChange(field.kind === 'urls' && value.trim() ? `${value.trim()}\n${uploaded.url}` : uploaded.url),
  });
  return (
    <div className="stack">
      <label>
        {label}
        {field.kind === 'urls' ? (
          <textarea name={field.name} placeholder="One URL per line" value={value} onChange={(event) => onChange(event.target.value)} />
        ) : (
          <input type="url" name={field.name} value={value} onChange={(event) => onChange(event.target.value)} />
        )}
      </label>
      <label className="small">
        Or upload a file for {labelOf(field)} (JPEG, PNG or WebP, up to 10 MiB)
        <input type="file" accept="image/jpeg,image/png,image/webp" onChange={(event) => event.target.files?.[0] && upload.mutate(event.target.files[0])} />
      </label>
      {upload.isPending && <p className="muted small">Uploading…</p>}
      <ErrorNotice error={upload.error} />
    </div>
  );
}
