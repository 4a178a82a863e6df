import { useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import type { ImageTask, VideoTask } from '#client';
import { CopyButton, ErrorNotice, Section, StatusBadge, TaskFailure } from '../components';
import { useConsole } from '../context';
import { StartIntent } from '../idempotency';
import { curlCommand, fieldsOf, requestBody, type Field, type FormValues } from '../playground-form';
import { pollWhile, useAction } from '../queries';
import { Link } from '../router';

type Kind = 'video' | 'image';
const PATHS: Record<Kind, string> = { video: '/generate', image: '/generate-image' };

export default function Playground() {
  const { client, mode, config } = useConsole();
  const [kind, setKind] = useState<Kind>('video');
  const fields = useMemo(() => fieldsOf(__REQUEST_SCHEMAS__[kind]), [kind]);
  const [values, setValues] = useState<FormValues>({});
  const body = requestBody(fields, values);
  const set = (name: string, value: string) => setValues((previous) => ({ ...previous, [name]: value }));

  const [intent] = useState(() => new StartIntent());
  const start = useAction({
    mutationFn: async (): Promise<VideoTask | ImageTask> => {
      const api = await client();
      const options = { idempotencyKey: intent.keyFor(JSON.stringify([kind, body])) };
      return kind === 'video' ? api.generateVideo(body as never, options) : api.generateImage(body as never, options);
    },
    onSettled: (_task, error) => intent.settled(error),
  });
  const startedId = start.data ? ('video_id' in start.data ? start.data.video_id : start.data.image_id) : undefined;
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

  const submit = (event: FormEvent) => {
    event.preventDefault();
    start.run();
  };

  return (
    <>
      <h1>Playground</h1>
      <div className="detail">
        <Section title="Parameters">
          <form className="stack" onSubmit={submit}>
            <fieldset>
              <legend>What to make</legend>
              <label className="inline">
                <input type="radio" name="kind" checked={kind === 'video'} onChange={() => { setKind('video'); setValues({}); start.reset(); }} /> Video (POST /generate)
              </label>{' '}
              <label className="inline">
                <input type="radio" name="kind" checked={kind === 'image'} onChange={() => { setKind('image'); setValues({}); start.reset(); }} /> Image (POST /generate-image)
              </label>
            </fieldset>
            {fields.map((field) => (
              <FieldInput key={`${kind}-${field.name}`} field={field} value={values[field.name] ?? ''} onChange={(value) => set(field.name, value)} />
            ))}
            <button type="submit" disabled={start.isPending || !(values.prompt ?? '').trim()}>
              {start.isPending ? 'Starting…' : `Start ${kind} in ${mode} mode`}
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

function TaskResult({ task }: { task: VideoTask | ImageTask }) {
  const id = 'video_id' in task ? task.video_id : task.image_id;
  return (
    <div className="stack" data-testid="playground-result" data-status={task.status}>
      <p>
        <StatusBadge status={task.status} /> <Link to={`/generations?id=${id}`}>{id}</Link> · {task.credits_used} credits
      </p>
      {task.status === 'processing' && <progress max={100} value={task.progress} aria-label="Progress" />}
      {task.status === 'completed' && 'video_url' in task && task.video_url && <video src={task.video_url} controls autoPlay muted playsInline />}
      {task.status === 'completed' && 'image_urls' in task && task.image_urls?.map((url) => <img key={url} src={url} alt={task.prompt} data-testid="playground-image" />)}
      {task.status === 'failed' && task.error && <TaskFailure error={task.error} />}
    </div>
  );
}

function FieldInput({ field, value, onChange }: { field: Field; value: string; onChange: (value: string) => void }) {
  const { schema } = field;
  const label = (
    <>
      {field.name.replace(/_/g, ' ')}
      {field.required && ' (required)'} {schema.description && <span className="hint">{schema.description}</span>}
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
                {String(option)}
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
        Upload a reference image for {field.name.replace(/_/g, ' ')} (JPEG, PNG or WebP, up to 10 MiB)
        <input type="file" accept="image/jpeg,image/png,image/webp" onChange={(event) => event.target.files?.[0] && upload.mutate(event.target.files[0])} />
      </label>
      {upload.isPending && <p className="muted small">Uploading…</p>}
      <ErrorNotice error={upload.error} />
    </div>
  );
}
