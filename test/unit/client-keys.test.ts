import { ApiError, VidgenClient, type FetchLike } from '#client';

/** The client's key methods: the requests they send and how they retry (an injected fetch, no network). */
function setup(...replies: Response[]) {
  const sent: Array<{ url: string; method: string; body: unknown }> = [];
  const fetch: FetchLike = async (url, init) => {
    sent.push({ url, method: init.method!, body: init.body === undefined ? undefined : JSON.parse(String(init.body)) });
    return (replies.length > 1 ? replies.shift()! : replies[0]!).clone();
  };
  const api = new VidgenClient({ apiKey: 'session-token', baseUrl: 'https://api.example.test/api/v1', fetch, sleep: async () => undefined });
  return { api, sent };
}

const KEY = {
  key_id: 'key_0123456789abcdef01234567',
  name: 'CI',
  mode: 'live',
  prefix: 'vg_live_7Hq2',
  scopes: ['read'],
  expires_at: null,
  monthly_spend_limit: 500,
  end_user_monthly_spend_limit: null,
  spent_this_month: 25,
  last_used_at: null,
  created_at: '2026-11-21T17:00:00.000Z',
  created_by: 'holder-1',
  revoked_at: null,
} as const;
const ok = (data: unknown) => Response.json({ data, error: null });
const serverError = () => Response.json({ data: null, error: { message: 'x', code: 'internal_error' } }, { status: 500 });

describe('VidgenClient key methods', () => {
  it('list, create, update and revoke with the documented methods and paths', async () => {
    const { api, sent } = setup(ok({ keys: [KEY] }), ok({ ...KEY, api_key: 'vg_live_x' }), ok(KEY), ok({ ...KEY, revoked_at: KEY.created_at }));
    expect((await api.listKeys()).keys).toEqual([KEY]);
    expect((await api.createKey({ name: 'CI', scopes: ['read'], monthly_spend_limit: 500 })).api_key).toBe('vg_live_x');
    await api.updateKey(KEY.key_id, { monthly_spend_limit: null });
    expect((await api.revokeKey(KEY.key_id)).revoked_at).toBe(KEY.created_at);
    expect(sent).toEqual([
      { url: 'https://api.example.test/api/v1/keys', method: 'GET', body: undefined },
      { url: 'https://api.example.test/api/v1/keys', method: 'POST', body: { name: 'CI', scopes: ['read'], monthly_spend_limit: 500 } },
      { url: `https://api.example.test/api/v1/keys/${KEY.key_id}`, method: 'PATCH', body: { monthly_spend_limit: null } },
      { url: `https://api.example.test/api/v1/keys/${KEY.key_id}`, method: 'DELETE', body: undefined },
    ]);
  });

  it('retries a revoke after a 5xx (revoking twice answers the same) but never a create', async () => {
    const revoke = setup(serverError(), ok(KEY));
    await expect(revoke.api.revokeKey(KEY.key_id)).resolves.toEqual(KEY);
    expect(revoke.sent).toHaveLength(2);
    const create = setup(serverError(), ok(KEY));
    await expect(create.api.createKey({ name: 'CI' })).rejects.toBeInstanceOf(ApiError);
    expect(create.sent).toHaveLength(1);
  });
});

const MEMBER = { holder_id: 'holder-2', email: 'dev@example.com', role: 'developer', joined_at: '2026-11-21T17:00:00.000Z' } as const;

describe('VidgenClient team methods', () => {
  it('list accounts and members, change a role and remove a member with the documented methods and paths', async () => {
    const accounts = { accounts: [{ account_id: 'acc_1', role: 'owner' }] };
    const { api, sent } = setup(ok(accounts), ok({ members: [MEMBER], invitations: [] }), ok({ ...MEMBER, role: 'admin' }), ok({ holder_id: 'holder-2', removed: true }));
    expect(await api.listAccounts()).toEqual(accounts);
    expect((await api.listMembers()).members).toEqual([MEMBER]);
    expect((await api.updateMember('holder-2', { role: 'admin' })).role).toBe('admin');
    expect(await api.removeMember('holder-2')).toEqual({ holder_id: 'holder-2', removed: true });
    expect(sent).toEqual([
      { url: 'https://api.example.test/api/v1/accounts', method: 'GET', body: undefined },
      { url: 'https://api.example.test/api/v1/account/members', method: 'GET', body: undefined },
      { url: 'https://api.example.test/api/v1/account/members/holder-2', method: 'PATCH', body: { role: 'admin' } },
      { url: 'https://api.example.test/api/v1/account/members/holder-2', method: 'DELETE', body: undefined },
    ]);
  });

  it('retries a role change after a 5xx (the same change twice is harmless) but never a removal (a repeat would answer 404)', async () => {
    const update = setup(serverError(), ok(MEMBER));
    await expect(update.api.updateMember('holder-2', { role: 'developer' })).resolves.toEqual(MEMBER);
    expect(update.sent).toHaveLength(2);
    const remove = setup(serverError(), ok({ holder_id: 'holder-2', removed: true }));
    await expect(remove.api.removeMember('holder-2')).rejects.toBeInstanceOf(ApiError);
    expect(remove.sent).toHaveLength(1);
  });
});

const INVITATION = {
  invitation_id: 'inv_01M8EN2K7Q4R6T8V0X2Z4B6D8F',
  email: 'new@example.com',
  role: 'developer',
  invited_by: 'holder-1',
  created_at: '2026-11-27T14:03:11.482Z',
  expires_at: '2026-12-04T14:03:11.482Z',
} as const;

describe('VidgenClient invitation methods', () => {
  it('invite, revoke, list one\'s own and accept with the documented methods and paths', async () => {
    const received = { invitations: [{ ...INVITATION, account_id: 'acc_2' }] };
    const { api, sent } = setup(ok(INVITATION), ok({ invitation_id: INVITATION.invitation_id, revoked: true }), ok(received), ok({ account_id: 'acc_2', role: 'developer' }));
    expect(await api.inviteMember({ email: 'new@example.com', role: 'developer' })).toEqual(INVITATION);
    expect(await api.revokeInvitation(INVITATION.invitation_id)).toEqual({ invitation_id: INVITATION.invitation_id, revoked: true });
    expect(await api.listInvitations()).toEqual(received);
    expect(await api.acceptInvitation(INVITATION.invitation_id)).toEqual({ account_id: 'acc_2', role: 'developer' });
    expect(sent).toEqual([
      { url: 'https://api.example.test/api/v1/account/members', method: 'POST', body: { email: 'new@example.com', role: 'developer' } },
      { url: `https://api.example.test/api/v1/account/members/invitations/${INVITATION.invitation_id}`, method: 'DELETE', body: undefined },
      { url: 'https://api.example.test/api/v1/invitations', method: 'GET', body: undefined },
      { url: `https://api.example.test/api/v1/invitations/${INVITATION.invitation_id}/accept`, method: 'POST', body: undefined },
    ]);
  });

  it('retries an invite after a 5xx (a new one replaces the open one) but never an accept or a revoke (a repeat would answer 404)', async () => {
    const invite = setup(serverError(), ok(INVITATION));
    await expect(invite.api.inviteMember({ email: 'new@example.com', role: 'developer' })).resolves.toEqual(INVITATION);
    expect(invite.sent).toHaveLength(2);
    for (const call of [(api: VidgenClient) => api.acceptInvitation('inv_1'), (api: VidgenClient) => api.revokeInvitation('inv_1')]) {
      const once = setup(serverError(), ok({}));
      await expect(call(once.api)).rejects.toBeInstanceOf(ApiError);
      expect(once.sent).toHaveLength(1);
    }
  });
});

describe('VidgenClient for platforms', () => {
  it('sends end_user and metadata with a start, and a limit per end user with a key', async () => {
    const { api, sent } = setup(ok({ video_id: 'vid_1' }), ok({ image_id: 'img_1' }), ok({ ...KEY, api_key: 'vg_live_x' }), ok(KEY));
    await api.generateVideo({ prompt: 'a fox', end_user: 'alice', metadata: { order_id: '1001' } });
    await api.generateImage({ prompt: 'a lighthouse', end_user: 'bob' });
    await api.createKey({ name: 'platform', end_user_monthly_spend_limit: 50 });
    await api.updateKey(KEY.key_id, { end_user_monthly_spend_limit: null });
    expect(sent.map((request) => request.body)).toEqual([
      { prompt: 'a fox', end_user: 'alice', metadata: { order_id: '1001' } },
      { prompt: 'a lighthouse', end_user: 'bob' },
      { name: 'platform', end_user_monthly_spend_limit: 50 },
      { end_user_monthly_spend_limit: null },
    ]);
  });
});

describe('VidgenClient audit log', () => {
  it('lists audit events with after and limit as query parameters', async () => {
    const page = { events: [], has_more: false, next_after: null };
    const { api, sent } = setup(ok(page), ok(page));
    expect(await api.listAuditEvents()).toEqual(page);
    await api.listAuditEvents({ after: 'aud_01M8EM6DZQNVPPS7K0AB4EEFEQ', limit: 10 });
    expect(sent).toEqual([
      { url: 'https://api.example.test/api/v1/audit-events', method: 'GET', body: undefined },
      { url: 'https://api.example.test/api/v1/audit-events?after=aud_01M8EM6DZQNVPPS7K0AB4EEFEQ&limit=10', method: 'GET', body: undefined },
    ]);
  });
});

describe('VidgenClient usage', () => {
  const REPORT = {
    from: '2026-11-01',
    to: '2026-11-30',
    group_by: 'end_user',
    rows: [{ group: 'alice', tasks: 1, credits_charged: 25, credits_refunded: 0, credits_net: 25 }],
    totals: { tasks: 1, credits_charged: 25, credits_refunded: 0, credits_net: 25 },
  } as const;
  const CSV = 'end_user,tasks,credits_charged,credits_refunded,credits_net\r\nalice,1,25,0,25\r\n';

  function recording(...replies: Response[]) {
    const sent: Array<{ url: string; accept: string | undefined }> = [];
    const fetch: FetchLike = async (url, init) => {
      sent.push({ url, accept: (init.headers as Record<string, string>).Accept });
      return replies.shift()!;
    };
    return { api: new VidgenClient({ apiKey: 'vg_live_x', baseUrl: 'https://api.example.test/api/v1', fetch, sleep: async () => undefined }), sent };
  }

  it('reads the report as JSON, and its rows as the CSV text itself, with the query as given', async () => {
    const { api, sent } = recording(ok(REPORT), new Response(CSV, { headers: { 'Content-Type': 'text/csv; charset=utf-8' } }));
    expect(await api.getUsage({ from: '2026-11-01', to: '2026-11-30', group_by: 'end_user' })).toEqual(REPORT);
    expect(await api.getUsageCsv({ group_by: 'end_user' })).toBe(CSV);
    expect(sent).toEqual([
      { url: 'https://api.example.test/api/v1/usage?from=2026-11-01&to=2026-11-30&group_by=end_user', accept: 'application/json' },
      { url: 'https://api.example.test/api/v1/usage?group_by=end_user', accept: 'text/csv' },
    ]);
  });

  it("answers a refused CSV request (a JSON envelope) with the API's error", async () => {
    const refusal = Response.json({ data: null, error: { message: 'group_by: must be one of day, model, key, end_user', code: 'validation_error' } }, { status: 400 });
    const { api } = recording(refusal);
    await expect(api.getUsageCsv({ group_by: 'week' as 'day' })).rejects.toMatchObject({ status: 400, code: 'validation_error', message: expect.stringContaining('group_by') });
  });
});
