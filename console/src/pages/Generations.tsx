import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { ImageTask, Pagination, VideoTask } from '#client';
import { ErrorNotice, formatTime, Loaded, Pager, Section, StatusBadge, TaskFailure } from '../components';
import { useConsole } from '../context';
import { ledgerKey } from '../ledger';
import { pollWhile, useAction } from '../queries';
import { Link, navigate, useLocation } from '../router';
import { deliveryLine, plural } from '../words';

type Kind = 'video' | 'image';
type Task = VideoTask | ImageTask;
const PAGE_SIZE = 48;
/** How often running tasks are read again while they show. */
const LIVE_MS = 2_000;

const idOf = (task: Task) => ('video_id' in task ? task.video_id : task.image_id);
const kindOfId = (id: string): Kind => (id.startsWith('img_') ? 'image' : 'video');
/** The task whose card was opened last: back in the gallery, its card gets the focus again. */
let lastOpened: string | undefined;
/** The first frame of a video, or the image itself. */
function previewOf(task: Task): string | undefined {
  if ('image_id' in task) return task.image_urls?.[0];
  return task.thumbnail_url ?? undefined;
}

export default function Generations() {
  const { query } = useLocation();
  const selected = query.get('id');
  return selected ? <TaskDetail id={selected} /> : <Gallery />;
}

function Gallery() {
  const { client, mode } = useConsole();
  const { query } = useLocation();
  const kind: Kind = query.get('kind') === 'image' ? 'image' : 'video';
  const status = query.get('status') ?? 'all';
  // One end user's history only (GET /videos?end_user=): the API pages it, so every page is theirs.
  const endUser = query.get('end_user') ?? undefined;
  const [endUserDraft, setEndUserDraft] = useState(endUser ?? '');
  useEffect(() => setEndUserDraft(endUser ?? ''), [endUser]);
  const page = Math.max(1, Number(query.get('page')) || 1);
  const setQuery = (changes: Record<string, string | number | undefined>) => {
    const next = new URLSearchParams(query);
    for (const [name, value] of Object.entries(changes)) {
      if (value === undefined || value === '' || value === 'all') next.delete(name);
      else next.set(name, String(value));
    }
    const search = next.toString();
    navigate(`/generations${search ? `?${search}` : ''}`);
  };

  const list = useQuery({
    queryKey: ['tasks', mode, kind, page, endUser ?? null],
    queryFn: async (): Promise<{ tasks: Task[]; pagination: Pagination }> => {
      const api = await client();
      if (kind === 'image') {
        const answer = await api.listImages({ page, limit: PAGE_SIZE, endUser });
        return { tasks: answer.images, pagination: answer.pagination };
      }
      const answer = await api.listVideos({ page, limit: PAGE_SIZE, endUser });
      return { tasks: answer.videos, pagination: answer.pagination };
    },
    refetchInterval: pollWhile((data: { tasks: Task[] } | undefined) => data?.tasks.some((task) => task.status === 'processing') ?? false, LIVE_MS),
    // Tasks started elsewhere (an API key, another tab) show as soon as the gallery is opened.
    refetchOnMount: 'always',
    placeholderData: (previous) => previous,
  });
  const shown = (list.data?.tasks ?? []).filter((task) => status === 'all' || task.status === status);

  return (
    <>
      <h1>Generations</h1>
      <div className="row" role="group" aria-label="Filters">
        <label>
          Kind
          <select value={kind} onChange={(event) => setQuery({ kind: event.target.value === 'video' ? undefined : event.target.value, page: undefined })}>
            <option value="video">Videos</option>
            <option value="image">Images</option>
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={(event) => setQuery({ status: event.target.value })}>
            <option value="all">All</option>
            <option value="processing">Processing</option>
            <option value="completed">Completed</option>
            <option value="failed">Failed</option>
          </select>
        </label>
        <form
          className="row"
          role="search"
          aria-label="End user filter"
          onSubmit={(event) => {
            event.preventDefault();
            setQuery({ end_user: endUserDraft.trim() || undefined, page: undefined });
          }}
        >
          <label>
            End user
            <input type="search" value={endUserDraft} placeholder="any" maxLength={128} onChange={(event) => setEndUserDraft(event.target.value)} />
          </label>
          <button type="submit" className="secondary">
            Filter
          </button>
          {endUser !== undefined && (
            <button type="button" className="secondary" onClick={() => setQuery({ end_user: undefined, page: undefined })}>
              All end users
            </button>
          )}
        </form>
        {list.data && (
          <p className="muted small" data-testid="gallery-count">
            {plural(list.data.pagination.total, kind)}
            {endUser !== undefined ? ` of end user ${endUser}` : ''} in {mode} mode
          </p>
        )}
      </div>
      <Loaded query={list}>
        {() =>
          shown.length === 0 ? (
            <p className="muted" data-testid="gallery-empty">
              Nothing here yet{status !== 'all' ? ` with status ${status} on this page` : ''}. Start one in the Playground.
            </p>
          ) : (
            <ul className="gallery" data-testid="gallery">
              {shown.map((task) => (
                <Tile key={idOf(task)} task={task} onOpen={() => { lastOpened = idOf(task); setQuery({ id: idOf(task) }); }} />
              ))}
            </ul>
          )
        }
      </Loaded>
      <Pager pagination={list.data?.pagination} onPage={(next) => setQuery({ page: next === 1 ? undefined : next })} />
    </>
  );
}

function Tile({ task, onOpen }: { task: Task; onOpen: () => void }) {
  const preview = previewOf(task);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (lastOpened !== idOf(task)) return;
    lastOpened = undefined;
    button.current?.focus();
  }, [task]);
  return (
    <li className="tile" data-task-id={idOf(task)} data-status={task.status}>
      <button ref={button} type="button" className="tile-open" onClick={onOpen} aria-label={`Open ${idOf(task)}: ${task.prompt}`}>
        <div className="thumb">
          {preview ? <img src={preview} alt="" loading="lazy" decoding="async" /> : <span>{'video_id' in task ? '▶ video' : 'image'}</span>}
        </div>
        <div className="tile-body">
          <span className="tile-prompt">{task.prompt}</span>
          <span className="row">
            <StatusBadge status={task.status} />
            <span className="muted small">{plural(task.credits_used, 'credit')}</span>
            {task.end_user !== null && <span className="muted small">for {task.end_user}</span>}
          </span>
          {task.status === 'processing' && <progress max={100} value={task.progress} aria-label="Progress" />}
        </div>
      </button>
    </li>
  );
}

function TaskDetail({ id }: { id: string }) {
  const { client, mode } = useConsole();
  const queries = useQueryClient();
  const kind = kindOfId(id);
  const task = useQuery({
    queryKey: ['task', mode, id],
    queryFn: async (): Promise<Task> => {
      const api = await client();
      return kind === 'image' ? api.getImage(id) : api.getVideo(id);
    },
    // Read again while it runs, and while its delivery to the customer's storage is still being tried.
    refetchInterval: pollWhile((data: Task | undefined) => data?.status === 'processing' || data?.delivery?.status === 'pending', LIVE_MS),
  });
  // Canceling is final: the button asks first.
  const [confirming, setConfirming] = useState(false);
  // Opening a card replaces the gallery: focus goes to what opened, not back to the page's start.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [id]);
  const cancel = useMutation({
    mutationFn: async () => {
      const api = await client();
      return kind === 'image' ? api.cancelImage(id) : api.cancelVideo(id);
    },
    onSuccess: (ended) => {
      setConfirming(false);
      queries.setQueryData(['task', mode, id], ended);
      // The gallery, and the refund: the balance and the ledger.
      for (const queryKey of [['tasks', mode], ['account'], ledgerKey(mode)]) void queries.invalidateQueries({ queryKey });
    },
  });
  // Deleting files is final too: the same kind of confirmation, and one DELETE however often it is clicked.
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const remove = useAction({
    mutationFn: async () => {
      const api = await client();
      return kind === 'image' ? api.deleteImage(id) : api.deleteVideo(id);
    },
    onSuccess: (changed) => {
      setConfirmingDelete(false);
      queries.setQueryData(['task', mode, id], changed);
      void queries.invalidateQueries({ queryKey: ['tasks', mode] });
    },
  });
  const data = task.data;
  const outputs = data ? ('video_id' in data ? (data.video_url ? [data.video_url] : []) : (data.image_urls ?? [])) : [];

  return (
    <>
      <p>
        <button type="button" className="secondary" onClick={() => window.history.back()}>
          ← Back to the gallery
        </button>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        {kind === 'image' ? 'Image' : 'Video'} {id}
      </h1>
      <ErrorNotice error={task.error} />
      {data && (
        <div className="detail">
          <div className="stack">
            {data.status === 'completed' && kind === 'video' && outputs[0] && (
              <video src={outputs[0]} controls playsInline preload="metadata" data-testid="result-video" />
            )}
            {data.status === 'completed' && kind === 'image' && outputs.map((url) => <img key={url} src={url} alt={data.prompt} data-testid="result-image" />)}
            {data.status === 'processing' && (
              <div className="card">
                <p>Generating… {data.progress}%</p>
                <progress max={100} value={data.progress} aria-label="Progress" />
                <TimingLine queuePosition={data.queue_position ?? null} estimatedAt={data.estimated_completion_at ?? null} />
              </div>
            )}
            {data.status === 'failed' && data.error && <TaskFailure error={data.error} />}
            <div className="row">
              {outputs.map((url, index) => (
                <a key={url} className="button-link" href={url} download>
                  Download{outputs.length > 1 ? ` ${index + 1}` : ''}
                </a>
              ))}
              {data.status === 'processing' && !confirming && (
                <button type="button" className="danger" disabled={cancel.isPending} onClick={() => setConfirming(true)}>
                  Cancel (refunds {plural(data.credits_used, 'credit')})
                </button>
              )}
            </div>
            {data.status === 'processing' && confirming && (
              <div className="notice warn" role="group" aria-label="Confirm cancel">
                <p>
                  <strong>Cancel this {kind}?</strong> It stops for good, and you get back the {plural(data.credits_used, 'credit')} it cost.
                </p>
                <div className="row">
                  <button type="button" className="danger" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
                    Yes, cancel it
                  </button>
                  <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                    Keep it running
                  </button>
                </div>
              </div>
            )}
            <ErrorNotice error={cancel.error} />
            {data.status === 'completed' && !data.output_deleted_at && outputs.length > 0 && !confirmingDelete && (
              <p>
                <button type="button" className="secondary" onClick={() => setConfirmingDelete(true)}>
                  Delete files
                </button>
              </p>
            )}
            {data.status === 'completed' && !data.output_deleted_at && confirmingDelete && (
              <div className="notice warn" role="group" aria-label="Confirm delete">
                <p>
                  <strong>Delete this {kind}'s files?</strong> {kind === 'video' ? 'The video and its thumbnail are' : 'The images are'} removed for good and their
                  links stop working. The generation stays in your history; nothing is refunded.
                </p>
                <div className="row">
                  <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.run()}>
                    Yes, delete the files
                  </button>
                  <button type="button" className="secondary" onClick={() => setConfirmingDelete(false)}>
                    Keep them
                  </button>
                </div>
              </div>
            )}
            {data.output_deleted_at && (
              <p className="muted" data-testid="files-deleted">
                Files deleted {formatTime(data.output_deleted_at)}.
              </p>
            )}
            <ErrorNotice error={remove.error} />
          </div>
          <Section title="Details">
            <dl className="facts">
              <dt>Status</dt>
              <dd>
                <StatusBadge status={data.status} />
              </dd>
              <dt>Prompt</dt>
              <dd>{data.prompt}</dd>
              <dt>End user</dt>
              <dd data-testid="task-end-user">
                {data.end_user === null ? (
                  <span className="muted">none</span>
                ) : (
                  <Link to={`/generations?${new URLSearchParams({ ...(kind === 'image' && { kind }), end_user: data.end_user }).toString()}`}>{data.end_user}</Link>
                )}
              </dd>
              <dt>Metadata</dt>
              <dd>
                {Object.keys(data.metadata).length === 0 ? (
                  <span className="muted">none</span>
                ) : (
                  <table className="metadata" data-testid="task-metadata">
                    <tbody>
                      {/* By key: the stored map keeps no order. */}
                      {Object.entries(data.metadata)
                        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
                        .map(([name, value]) => (
                          <tr key={name}>
                            <th scope="row">{name}</th>
                            <td>{value}</td>
                          </tr>
                        ))}
                    </tbody>
                  </table>
                )}
              </dd>
              {Object.entries(data)
                .filter(([name, value]) => !SHOWN_ELSEWHERE.has(name) && value !== null && value !== undefined && typeof value !== 'object')
                .map(([name, value]) => (
                  <Fact key={name} name={name} value={String(value)} />
                ))}
              <dt>Credits</dt>
              <dd>{data.credits_refunded > 0 ? `${data.credits_used}, refunded` : data.credits_used}</dd>
              <dt>Started</dt>
              <dd>{formatTime(data.created_at)}</dd>
              <dt>Ended</dt>
              <dd>{formatTime(data.completed_at)}</dd>
              <dt>Mode</dt>
              <dd>{data.livemode ? 'live' : 'test'}</dd>
              {data.expires_at && (
                <>
                  <dt>Files kept until</dt>
                  <dd>{formatTime(data.expires_at)}</dd>
                </>
              )}
              {data.delivery && (
                <>
                  <dt>Delivery</dt>
                  <dd data-testid="task-delivery">{deliveryLine(data.delivery, formatTime)}</dd>
                </>
              )}
            </dl>
          </Section>
        </div>
      )}
    </>
  );
}

const SHOWN_ELSEWHERE = new Set([
  'video_id',
  'image_id',
  'status',
  'prompt',
  'credits_used',
  'credits_refunded',
  'created_at',
  'updated_at',
  'completed_at',
  'livemode',
  'progress',
  'video_url',
  'thumbnail_url',
  'end_user',
  'queue_position',
  'estimated_completion_at',
  'output_deleted_at',
  'expires_at',
]);

/** While it processes: its place in the queue and when it should be done ("2 ahead in the queue · ETA 17:02:31 (about 40 s)"). */
function TimingLine({ queuePosition, estimatedAt }: { queuePosition: number | null; estimatedAt: string | null }) {
  const parts: string[] = [];
  if (queuePosition !== null) parts.push(queuePosition === 0 ? 'running' : `${queuePosition} ahead in the queue`);
  if (estimatedAt !== null) {
    const seconds = Math.max(0, Math.round((Date.parse(estimatedAt) - Date.now()) / 1000));
    parts.push(`ETA ${new Date(estimatedAt).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false })} (about ${seconds} s)`);
  }
  if (parts.length === 0) return null;
  return (
    <p className="muted small" data-testid="task-timing">
      {parts.join(' · ')}
    </p>
  );
}

const Fact = ({ name, value }: { name: string; value: string }) => (
  <>
    <dt>{name.replace(/_/g, ' ')}</dt>
    <dd>{value}</dd>
  </>
);
