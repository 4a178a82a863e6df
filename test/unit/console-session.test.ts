import { cognito } from '#console/auth/cognito';
import { Session, type SessionChannel, type SessionMessage } from '#console/auth/session';

/**
 * The console's session across tabs: a BroadcastChannel between the tabs of one origin, here an
 * in-memory bus with the same rule (a message reaches every other member, never its sender).
 */
function bus() {
  const members = new Set<SessionChannel & { listeners: ((event: { data: SessionMessage }) => void)[] }>();
  return (): SessionChannel => {
    const listeners: ((event: { data: SessionMessage }) => void)[] = [];
    const channel = {
      listeners,
      addEventListener: (_type: 'message', listener: (event: { data: SessionMessage }) => void) => void listeners.push(listener),
      postMessage: (message: SessionMessage) => {
        for (const other of members) if (other !== channel) for (const listener of other.listeners) queueMicrotask(() => listener({ data: message }));
      },
    };
    members.add(channel);
    return channel;
  };
}

const storage = () => {
  const items = new Map<string, string>();
  return { getItem: (key: string) => items.get(key) ?? null, setItem: (key: string, value: string) => void items.set(key, value), removeItem: (key: string) => void items.delete(key) };
};

const SETTINGS = { endpoint: 'http://127.0.0.1:1/', clientId: 'client' };

describe('a console session across tabs', () => {
  it('is handed to a new tab by an open one, and a sign-out in either signs out both', async () => {
    const join = bus();
    const firstStorage = storage();
    firstStorage.setItem('vidgen.console.refresh', 'refresh-token');
    const first = new Session(SETTINGS, firstStorage, join());
    const secondStorage = storage();
    const second = new Session(SETTINGS, secondStorage, join());
    const heard: boolean[] = [];
    second.onChange((signedIn) => heard.push(signedIn));

    expect(second.signedIn).toBe(false);
    await expect(second.restore()).resolves.toBe(true);
    expect([second.signedIn, secondStorage.getItem('vidgen.console.refresh'), heard]).toEqual([true, 'refresh-token', [true]]);

    const firstHeard: boolean[] = [];
    first.onChange((signedIn) => firstHeard.push(signedIn));
    await second.signOut();
    for (let i = 0; i < 100 && first.signedIn; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect([first.signedIn, firstStorage.getItem('vidgen.console.refresh'), firstHeard, heard]).toEqual([false, null, [false], [true, false]]);
  });

  it('stays signed out when no open tab has a session, once the wait is over', async () => {
    jest.useFakeTimers();
    try {
      const join = bus();
      const lonely = new Session(SETTINGS, storage(), join());
      const restored = lonely.restore(300);
      await jest.advanceTimersByTimeAsync(300);
      await expect(restored).resolves.toBe(false);
      expect(lonely.signedIn).toBe(false);
    } finally {
      jest.useRealTimers();
    }
  });

  it('ignores a session shared while it was not asking (a tab signed out on purpose stays so)', async () => {
    const join = bus();
    const signedOut = new Session(SETTINGS, storage(), join());
    const talker = join();
    talker.postMessage({ type: 'share', refreshToken: 'someone-elses' });
    for (let i = 0; i < 10; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(signedOut.signedIn).toBe(false);
  });
});

describe('a console session after joining an account', () => {
  afterEach(() => jest.restoreAllMocks());

  it('renews its access token on demand, long before it is due (the API reads memberships once per token)', async () => {
    const refresh = jest
      .spyOn(cognito, 'refresh')
      .mockResolvedValueOnce({ accessToken: 'before-joining', expiresIn: 3600 })
      .mockResolvedValueOnce({ accessToken: 'after-joining', expiresIn: 3600 });
    const tab = storage();
    tab.setItem('vidgen.console.refresh', 'refresh-token');
    const session = new Session(SETTINGS, tab);
    await expect(session.token()).resolves.toBe('before-joining');
    await expect(session.token()).resolves.toBe('before-joining');
    await expect(session.renew()).resolves.toBe('after-joining');
    await expect(session.token()).resolves.toBe('after-joining');
    expect(refresh.mock.calls).toEqual([
      [SETTINGS, 'refresh-token'],
      [SETTINGS, 'refresh-token'],
    ]);
  });
});
