import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useMemo, useState, type MouseEvent, type ReactNode } from 'react';
import type { MemberRole } from '#client';
import { lostAccount, mayUse, type Capability } from './accounts';
import { sessionClient } from './api';
import type { Session } from './auth/session';
import type { ConsoleConfig } from './config';
import { Console, type ConsoleContext, type Mode } from './context';
import { href, Link, navigate, useLocation } from './router';

const AuthPages = lazy(() => import('./pages/AuthPages'));
const Overview = lazy(() => import('./pages/Overview'));
const Keys = lazy(() => import('./pages/Keys'));
const Generations = lazy(() => import('./pages/Generations'));
const Playground = lazy(() => import('./pages/Playground'));
const Webhooks = lazy(() => import('./pages/Webhooks'));
const Usage = lazy(() => import('./pages/Usage'));
const Billing = lazy(() => import('./pages/Billing'));
const Settings = lazy(() => import('./pages/Settings'));
const AuditLog = lazy(() => import('./pages/AuditLog'));
const Members = lazy(() => import('./pages/Members'));
const Invitations = lazy(() => import('./pages/Invitations'));

/**
 * The signed-in pages, in the navigation's order, each with what a role needs to use it (CONTRACT.md,
 * "Teams"): the navigation offers only those the holder's role may use; the API decides the rest.
 */
const PAGES: ReadonlyArray<{ path: string; label: string; needs: Capability; render: () => ReactNode }> = [
  { path: '/', label: 'Overview', needs: 'read', render: () => <Overview /> },
  { path: '/keys', label: 'API keys', needs: 'keys', render: () => <Keys /> },
  { path: '/generations', label: 'Generations', needs: 'read', render: () => <Generations /> },
  { path: '/playground', label: 'Playground', needs: 'generate', render: () => <Playground /> },
  { path: '/webhooks', label: 'Webhooks', needs: 'webhooks', render: () => <Webhooks /> },
  { path: '/usage', label: 'Usage', needs: 'read', render: () => <Usage /> },
  { path: '/billing', label: 'Billing', needs: 'billing', render: () => <Billing /> },
  { path: '/settings', label: 'Settings', needs: 'members', render: () => <Settings /> },
  { path: '/members', label: 'Members', needs: 'members', render: () => <Members /> },
  { path: '/audit-log', label: 'Audit log', needs: 'members', render: () => <AuditLog /> },
  { path: '/invitations', label: 'Invitations', needs: 'holder', render: () => <Invitations /> },
];

/** The signed-out pages and their titles (each page's heading). */
const AUTH_TITLES: Readonly<Record<string, string>> = {
  '/sign-in': 'Sign in',
  '/sign-up': 'Create an account',
  '/verify': 'Verify your email',
  '/forgot-password': 'Reset your password',
};
/** The account chosen in the switcher, kept in the tab (none: the holder's default). */
const ACCOUNT_KEY = 'vidgen.console.account';
/** Each account's own live/test switch. */
const modeKey = (account: string | undefined) => `vidgen.console.mode.${account ?? 'default'}`;
const storedMode = (account: string | undefined): Mode => (sessionStorage.getItem(modeKey(account)) === 'test' ? 'test' : 'live');
/** Query parameters that name the current mode's data, dropped when the mode or the account switches. */
const MODE_BOUND_PARAMS = ['id', 'page'];

/** Drops the ids and page numbers in the address: they belong to the data of the mode or account left. */
function dropBoundParams(): void {
  const query = new URLSearchParams(window.location.search);
  if (!MODE_BOUND_PARAMS.some((name) => query.has(name))) return;
  for (const name of MODE_BOUND_PARAMS) query.delete(name);
  const search = query.toString();
  navigate(`${window.location.pathname.slice(href('').length) || '/'}${search ? `?${search}` : ''}`, { replace: true });
}

export function App({ config, session }: { config: ConsoleConfig; session: Session }) {
  const location = useLocation();
  const queries = useQueryClient();
  const [signedIn, setSignedIn] = useState(session.signedIn);
  const [chosen, setChosen] = useState<string | undefined>(() => sessionStorage.getItem(ACCOUNT_KEY) ?? undefined);
  const [notice, setNotice] = useState<string>();

  // The switcher's list, read afresh (not from the authorizer's cache): a new or lost membership shows at once.
  const accountList = useQuery({
    queryKey: ['accounts'],
    queryFn: async () => (await sessionClient(session, config.apiBaseUrl, 'live').listAccounts()).accounts,
    enabled: signedIn,
  });
  const accounts = accountList.data;
  const account = chosen ?? accounts?.[0]?.account_id;
  const role: MemberRole | null | undefined = accounts && (account ? (accounts.find((each) => each.account_id === account)?.role ?? null) : null);
  const [modes, setModes] = useState<Record<string, Mode>>({});
  const mode = modes[modeKey(account)] ?? storedMode(account);

  useEffect(
    () =>
      session.onChange((now) => {
        setSignedIn(now);
        if (now) return;
        queries.clear();
        // The account chosen was this holder's: the next one to sign in here starts on their own default.
        sessionStorage.removeItem(ACCOUNT_KEY);
        setChosen(undefined);
        setNotice(undefined);
      }),
    [session, queries],
  );

  const setMode = useCallback(
    (next: Mode) => {
      sessionStorage.setItem(modeKey(account), next);
      setModes((all) => ({ ...all, [modeKey(account)]: next }));
      // Ids and page numbers in the address belong to the other mode's data; filters (kind, status) hold in both.
      dropBoundParams();
    },
    [account],
  );

  /** A new account is a new page: nothing read for the other one stays, in the cache or on screen. */
  const switchTo = useCallback(
    (next: string | undefined) => {
      if (next === undefined) sessionStorage.removeItem(ACCOUNT_KEY);
      else sessionStorage.setItem(ACCOUNT_KEY, next);
      queries.removeQueries({ predicate: (query) => query.queryKey[0] !== 'accounts' });
      setChosen(next);
      dropBoundParams();
    },
    [queries],
  );
  const setAccount = useCallback(
    (next: string) => {
      setNotice(undefined);
      switchTo(next);
    },
    [switchTo],
  );

  // A removed member: the API refuses the account ("not a member"), or the fresh list no longer has
  // it. Back to the default account, saying why; the list is read again for the default.
  const fallBack = useCallback(
    (lost: string) => {
      setNotice(`You are no longer a member of ${lost}.`);
      switchTo(undefined);
      // Forgotten, not just stale: the lost account may be the list's first, the default until it is read again.
      void queries.resetQueries({ queryKey: ['accounts'] });
    },
    [switchTo, queries],
  );
  useEffect(() => {
    if (chosen && accounts && !accounts.some((each) => each.account_id === chosen)) fallBack(chosen);
  }, [chosen, accounts, fallBack]);
  useEffect(() => {
    const check = (error: unknown) => {
      const lost = lostAccount(error);
      if (lost && lost === account) fallBack(lost);
    };
    const unsubscribe = [
      queries.getQueryCache().subscribe((event) => {
        if (event.type === 'updated' && event.action.type === 'error') check(event.action.error);
      }),
      queries.getMutationCache().subscribe((event) => {
        if (event.type === 'updated' && event.action.type === 'error') check(event.action.error);
      }),
    ];
    return () => unsubscribe.forEach((stop) => stop());
  }, [queries, account, fallBack]);

  const context = useMemo<ConsoleContext>(
    () => ({
      config,
      session,
      mode,
      setMode,
      account,
      accounts,
      role,
      setAccount,
      client: async () => sessionClient(session, config.apiBaseUrl, mode, account),
      clientIn: async (other: Mode) => sessionClient(session, config.apiBaseUrl, other, account),
    }),
    [config, session, mode, setMode, account, accounts, role, setAccount],
  );

  const isAuthPage = Object.hasOwn(AUTH_TITLES, location.path);
  useEffect(() => {
    if (!signedIn && !isAuthPage) navigate(`/sign-in${location.path === '/' ? '' : `?next=${encodeURIComponent(location.path)}`}`, { replace: true });
    if (signedIn && isAuthPage) navigate(location.query.get('next') ?? '/', { replace: true });
  }, [signedIn, isAuthPage, location.path, location.query]);

  const page = PAGES.find((candidate) => candidate.path === location.path);
  const offered = PAGES.filter((candidate) => mayUse(role, candidate.needs));
  // Pages wait for the account they act on; if the list cannot be read, they act on the default (no header).
  const accountKnown = account !== undefined || accountList.isError || (accounts !== undefined && accounts.length === 0);
  const loading = <p className="muted" aria-live="polite">Loading…</p>;

  // Each page names itself in the tab and the history (a generation by its id).
  const selected = location.query.get('id');
  const title = !signedIn || isAuthPage ? (AUTH_TITLES[location.path] ?? 'Sign in') : !page ? 'Page not found' : selected && page.path === '/generations' ? `${selected} · ${page.label}` : page.label;
  useEffect(() => {
    document.title = `${title} · vidgen console`;
  }, [title]);

  if (!signedIn || isAuthPage) {
    return (
      <Console.Provider value={context}>
        <main className="page narrow">
          <p className="brand">vidgen console</p>
          <Suspense fallback={loading}>{isAuthPage ? <AuthPages path={location.path} /> : null}</Suspense>
        </main>
      </Console.Provider>
    );
  }

  return (
    <Console.Provider value={context}>
      <a className="skip-link" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      {mode === 'test' && (
        <div className="test-banner" role="status" data-testid="test-banner">
          TEST MODE: you are looking at test data. Nothing here is charged to your live balance or sent to a real provider.
        </div>
      )}
      <div className={`shell ${mode === 'test' ? 'is-test' : ''}`}>
        <header className="topbar">
          <Link to="/" className="brand">
            vidgen console
          </Link>
          <nav aria-label="Main">
            <ul>
              {offered.map((item) => (
                <li key={item.path}>
                  <Link to={item.path} aria-current={item.path === location.path ? 'page' : undefined}>
                    {item.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <div className="topbar-actions">
            {accounts && accounts.length > 1 && account && (
              // Labelled by id, not by wrapping: a wrapping label would add the chosen option to the name.
              <div className="account-switch">
                <label htmlFor="account-switch">Account</label>
                <select id="account-switch" name="account" value={account} onChange={(event) => setAccount(event.target.value)}>
                  {accounts.map((each) => (
                    <option key={each.account_id} value={each.account_id}>
                      {each.account_id} ({each.role})
                    </option>
                  ))}
                </select>
              </div>
            )}
            <label className="switch">
              <input type="checkbox" role="switch" checked={mode === 'test'} onChange={(event) => setMode(event.target.checked ? 'test' : 'live')} />
              <span>Test mode</span>
            </label>
            <button type="button" className="secondary" onClick={() => void session.signOut()}>
              Sign out
            </button>
          </div>
        </header>
        <main className="page" id="main" tabIndex={-1}>
          {notice && (
            <div className="notice warn" role="status" data-testid="account-notice">
              {notice} The console is showing your default account.{' '}
              <button type="button" className="secondary" onClick={() => setNotice(undefined)}>
                Dismiss
              </button>
            </div>
          )}
          <Suspense fallback={loading}>
            {!accountKnown ? (
              loading
            ) : page && accounts?.length === 0 && page.needs !== 'holder' ? (
              // A holder who left their last account (or handed it over): only their invitations are theirs.
              <>
                <h1>{page.label}</h1>
                <p className="notice warn" role="status" data-testid="no-account">
                  You are not a member of any account. Accept an invitation to join one: <Link to="/invitations">your invitations</Link>.
                </p>
              </>
            ) : page ? (
              // A new mode or account is a new page: nothing of the other one's data stays on screen.
              <div key={`${account ?? ''}:${mode}`}>{page.render()}</div>
            ) : (
              <>
                <h1>Page not found</h1>
                <p>
                  <Link to="/">Go to the overview</Link>
                </p>
              </>
            )}
          </Suspense>
        </main>
      </div>
    </Console.Provider>
  );
}

/** The skip link moves focus into the page itself, past the navigation, without a `#main` in the address. */
function skipToMain(event: MouseEvent<HTMLAnchorElement>) {
  event.preventDefault();
  document.getElementById('main')?.focus();
}
