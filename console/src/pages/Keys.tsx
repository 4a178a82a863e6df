import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent, type RefObject } from 'react';
import type { ApiKey, CreatedApiKey, KeyScope, Member } from '#client';
import { createdByLabel, mayUse } from '../accounts';
import { CopyButton, DataTable, ErrorNotice, FocusedNotice, formatTime, Loaded, Section } from '../components';
import { useConsole } from '../context';
import { useAction } from '../queries';

const SCOPES: readonly KeyScope[] = ['generate', 'read', 'webhooks'];
/** The API takes an expiry in the future and at most a year ahead: the picker offers those days. */
const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const SCOPE_HELP: Record<KeyScope, string> = {
  generate: 'start and cancel generations, upload images',
  read: 'read tasks, credits and usage; quotes',
  webhooks: 'manage webhook endpoints',
};

/** API keys of the account (both modes: a key's own mode decides what it sees). */
export default function Keys() {
  const { client, role } = useConsole();
  const queries = useQueryClient();
  const list = useQuery({ queryKey: ['keys'], queryFn: async () => (await client()).listKeys() });
  // Who made each key, by email: the members list, which only owners and admins may read (the Members page's query).
  const members = useQuery({ queryKey: ['members'], queryFn: async () => (await client()).listMembers(), enabled: role !== undefined && mayUse(role, 'members') });
  const [created, setCreated] = useState<CreatedApiKey>();
  const [editing, setEditing] = useState<string>();
  const refresh = () => queries.invalidateQueries({ queryKey: ['keys'] });
  // Once the key is stored, focus goes back to the form for the next one (not to the page's start).
  const nameInput = useRef<HTMLInputElement>(null);

  return (
    <>
      <h1>API keys</h1>
      <CreateKey nameInput={nameInput} onCreated={(key) => { setCreated(key); void refresh(); }} />
      {created && (
        <FocusedNotice key={created.key_id} testId="new-key">
          <strong>Your new {created.mode} key “{created.name}”</strong>
          <div className="secret">
            <code data-testid="new-key-value">{created.api_key}</code>
            <CopyButton text={created.api_key} />
          </div>
          <p>Copy it now and keep it somewhere safe: you will not see it again.</p>
          <button type="button" className="secondary" onClick={() => { setCreated(undefined); nameInput.current?.focus(); }}>
            I have stored it
          </button>
        </FocusedNotice>
      )}
      <Loaded query={list}>
        {({ keys }) =>
          keys.length === 0 ? (
            <p className="muted">No keys yet: create one above.</p>
          ) : (
            <KeyTable keys={keys} members={members.data?.members} editing={editing} onEdit={(keyId) => setEditing(editing === keyId ? undefined : keyId)} onChanged={() => { setEditing(undefined); void refresh(); }} />
          )
        }
      </Loaded>
    </>
  );
}

function KeyTable({
  keys,
  members,
  editing,
  onEdit,
  onChanged,
}: {
  keys: ApiKey[];
  members: readonly Member[] | undefined;
  editing: string | undefined;
  onEdit: (keyId: string) => void;
  onChanged: () => void;
}) {
  return (
    <DataTable testId="keys" columns={['Name', 'Key', 'Mode', 'Scopes', { label: 'Limit / spent this month', num: true }, 'Last used', 'Expires', 'Created', 'Created by']} actions>
      {keys.map((key) => (
        <KeyRow key={key.key_id} apiKey={key} createdBy={createdByLabel(key.created_by, members)} editing={editing === key.key_id} onEdit={() => onEdit(key.key_id)} onChanged={onChanged} />
      ))}
    </DataTable>
  );
}

function ScopeBoxes({ value, onChange }: { value: KeyScope[]; onChange: (scopes: KeyScope[]) => void }) {
  return (
    <fieldset>
      <legend>Scopes</legend>
      {SCOPES.map((scope) => (
        <label key={scope} className="inline">
          <input type="checkbox" checked={value.includes(scope)} onChange={(event) => onChange(event.target.checked ? [...value, scope] : value.filter((other) => other !== scope))} />
          {scope} <span className="hint">{SCOPE_HELP[scope]}</span>
        </label>
      ))}
    </fieldset>
  );
}

function CreateKey({ nameInput, onCreated }: { nameInput: RefObject<HTMLInputElement | null>; onCreated: (key: CreatedApiKey) => void }) {
  const { client, mode: consoleMode } = useConsole();
  const [name, setName] = useState('');
  const [mode, setMode] = useState(consoleMode);
  const [scopes, setScopes] = useState<KeyScope[]>([...SCOPES]);
  const [expires, setExpires] = useState('');
  const [limit, setLimit] = useState('');
  const create = useAction({
    mutationFn: async () =>
      (await client()).createKey({
        name: name.trim(),
        mode,
        scopes,
        ...(expires && { expires_at: new Date(`${expires}T23:59:59Z`).toISOString() }),
        ...(limit && { monthly_spend_limit: Number(limit) }),
      }),
    onSuccess: (key) => {
      setName('');
      setExpires('');
      setLimit('');
      onCreated(key);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.run();
  };
  return (
    <Section title="Create a key">
      <form className="stack" onSubmit={submit}>
        <div className="row">
          <label>
            Name
            <input ref={nameInput} name="key-name" required maxLength={64} value={name} onChange={(event) => setName(event.target.value)} />
          </label>
          <label>
            Mode
            <select name="key-mode" value={mode} onChange={(event) => setMode(event.target.value === 'test' ? 'test' : 'live')}>
              <option value="live">live</option>
              <option value="test">test</option>
            </select>
          </label>
          <label>
            Expires <span className="hint">optional, within a year</span>
            <input type="date" name="key-expires" min={isoDay(Date.now() + DAY_MS)} max={isoDay(Date.now() + 364 * DAY_MS)} value={expires} onChange={(event) => setExpires(event.target.value)} />
          </label>
          <label>
            Monthly spend limit <span className="hint">credits, optional</span>
            <input type="number" name="key-limit" min={1} step={1} value={limit} onChange={(event) => setLimit(event.target.value)} />
          </label>
        </div>
        <ScopeBoxes value={scopes} onChange={setScopes} />
        <button type="submit" disabled={create.isPending || !name.trim() || scopes.length === 0}>
          Create key
        </button>
        <ErrorNotice error={create.error} />
      </form>
    </Section>
  );
}

function KeyRow({ apiKey, createdBy, editing, onEdit, onChanged }: { apiKey: ApiKey; createdBy: string; editing: boolean; onEdit: () => void; onChanged: () => void }) {
  const { client } = useConsole();
  const [confirming, setConfirming] = useState(false);
  const revoke = useMutation({ mutationFn: async () => (await client()).revokeKey(apiKey.key_id), onSuccess: onChanged });
  const revoked = apiKey.revoked_at !== null;
  const expired = apiKey.expires_at !== null && Date.parse(apiKey.expires_at) <= Date.now();
  return (
    <>
      <tr data-key-id={apiKey.key_id}>
        <td>{apiKey.name}</td>
        <td>
          <code>{apiKey.prefix ?? '—'}…</code>
        </td>
        <td>{apiKey.mode}</td>
        <td>{apiKey.scopes.join(', ')}</td>
        <td className="num">
          {apiKey.monthly_spend_limit ?? 'no limit'} / {apiKey.spent_this_month}
        </td>
        <td>{formatTime(apiKey.last_used_at)}</td>
        <td>
          {apiKey.expires_at ? formatTime(apiKey.expires_at) : 'never'}
          {expired && !revoked && <span className="badge status-revoked">expired</span>}
        </td>
        <td>{formatTime(apiKey.created_at)}</td>
        <td data-testid="created-by">{createdBy}</td>
        <td>
          {revoked ? (
            <span className="badge status-revoked">revoked {formatTime(apiKey.revoked_at)}</span>
          ) : confirming ? (
            <div className="row">
              <button type="button" className="danger" onClick={() => revoke.mutate()} disabled={revoke.isPending}>
                Yes, revoke
              </button>
              <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </div>
          ) : (
            <div className="row">
              <button type="button" className="secondary" onClick={onEdit} aria-expanded={editing}>
                Edit
              </button>
              <button type="button" className="secondary" onClick={() => setConfirming(true)}>
                Revoke
              </button>
            </div>
          )}
          <ErrorNotice error={revoke.error} />
        </td>
      </tr>
      {editing && !revoked && (
        <tr>
          <td colSpan={10}>
            <EditKey apiKey={apiKey} onSaved={onChanged} onCancel={onEdit} />
          </td>
        </tr>
      )}
    </>
  );
}

function EditKey({ apiKey, onSaved, onCancel }: { apiKey: ApiKey; onSaved: () => void; onCancel: () => void }) {
  const { client } = useConsole();
  const [name, setName] = useState(apiKey.name);
  const [scopes, setScopes] = useState<KeyScope[]>(apiKey.scopes);
  const [limit, setLimit] = useState(apiKey.monthly_spend_limit === null ? '' : String(apiKey.monthly_spend_limit));
  const save = useMutation({
    mutationFn: async () => (await client()).updateKey(apiKey.key_id, { name: name.trim(), scopes, monthly_spend_limit: limit ? Number(limit) : null }),
    onSuccess: onSaved,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="stack" onSubmit={submit} aria-label={`Edit ${apiKey.name}`}>
      <div className="row">
        <label>
          Name
          <input required maxLength={64} value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Monthly spend limit <span className="hint">empty: no limit</span>
          <input type="number" min={1} step={1} value={limit} onChange={(event) => setLimit(event.target.value)} />
        </label>
      </div>
      <ScopeBoxes value={scopes} onChange={setScopes} />
      <div className="row">
        <button type="submit" disabled={save.isPending || !name.trim() || scopes.length === 0}>
          Save
        </button>
        {/* Closes the form: nothing typed here is kept. */}
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorNotice error={save.error} />
    </form>
  );
}
