import { VidgenClient, type FetchLike } from '#client';

/** A fetch that records each request's headers and answers GET /account. */
function recorder() {
  const seen: Array<Record<string, string>> = [];
  const fetch: FetchLike = async (_url, init) => {
    seen.push(init.headers as Record<string, string>);
    const body = { data: { account_id: 'acc_1', email: 'ada@example.com', created_at: 't', live: { credits: 0 }, test: { credits: 1000 }, paid_access: false, subscription_status: 'none' }, error: null };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
  return { seen, fetch };
}

describe('VidgenClient with a session', () => {
  it('sends the access token as the bearer and its mode as Vidgen-Mode (live by default)', async () => {
    const { seen, fetch } = recorder();
    await new VidgenClient({ sessionToken: 'a.b.c', fetch }).getAccount();
    await new VidgenClient({ sessionToken: 'a.b.c', mode: 'test', fetch }).getCredits();
    expect(seen.map((headers) => [headers.Authorization, headers['Vidgen-Mode']])).toEqual([
      ['Bearer a.b.c', 'live'],
      ['Bearer a.b.c', 'test'],
    ]);
  });

  it('asks a token function before every request, so a caller can refresh', async () => {
    const { seen, fetch } = recorder();
    let n = 0;
    const client = new VidgenClient({ sessionToken: async () => `token-${(n += 1)}`, fetch });
    await client.getAccount();
    await client.getAccount();
    expect(seen.map((headers) => headers.Authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('keeps API keys as they were: no Vidgen-Mode, the mode from the prefix', async () => {
    const { seen, fetch } = recorder();
    const client = new VidgenClient({ apiKey: 'vg_test_abc', fetch });
    await client.getAccount();
    expect(client.mode).toBe('test');
    expect(seen[0]).not.toHaveProperty('Vidgen-Mode');
  });

  it('refuses both credentials, neither, a mode a key cannot have, and an unknown mode', () => {
    expect(() => new VidgenClient({ apiKey: 'vg_live_x', sessionToken: 'a.b.c' })).toThrow(/give one, not both/);
    expect(() => new VidgenClient({})).toThrow(/apiKey is required/);
    expect(() => new VidgenClient({ apiKey: 'vg_live_x', mode: 'test' })).toThrow(/a live key always acts in live mode/);
    expect(() => new VidgenClient({ sessionToken: 'a.b.c', mode: 'prod' as never })).toThrow(/mode must be "live" or "test"/);
  });

  it('sends the chosen account as Vidgen-Account, and none without one (the default account)', async () => {
    const { seen, fetch } = recorder();
    const client = new VidgenClient({ sessionToken: 'a.b.c', account: 'acc_team', fetch });
    expect(client.account).toBe('acc_team');
    await client.getAccount();
    await new VidgenClient({ sessionToken: 'a.b.c', fetch }).getAccount();
    expect(seen.map((headers) => headers['Vidgen-Account'])).toEqual(['acc_team', undefined]);
  });

  it('refuses an account with an API key (a key acts on its own account) and an empty account', () => {
    expect(() => new VidgenClient({ apiKey: 'vg_live_x', account: 'acc_team' })).toThrow(/an API key acts on its own account; account needs a session/);
    expect(() => new VidgenClient({ sessionToken: 'a.b.c', account: ' ' })).toThrow(/account must be an account id/);
  });
});
