import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useMemo, useState, type MouseEvent, type ReactNode } from 'react';
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

/** The signed-in pages, in the navigation's order. */
const PAGES: ReadonlyArray<{ path: string; label: string; render: () => ReactNode }> = [
  { path: '/', label: 'Overview', render: () => <Overview /> },
  { path: '/keys', label: 'API keys', render: () => <Keys /> },
  { path: '/generations', label: 'Generations', render: () => <Generations /> },
  { path: '/playground', label: 'Playground', render: () => <Playground /> },
  { path: '/webhooks', label: 'Webhooks', render: () => <Webhooks /> },
  { path: '/usage', label: 'Usage', render: () => <Usage /> },
  { path: '/billing', label: 'Billing', render: () => <Billing /> },
  { path: '/settings', label: 'Settings', render: () => <Settings /> },
  { path: '/audit-log', label: 'Audit log', render: () => <AuditLog /> },
];

/** The signed-out pages and their titles (each page's heading). */
const AUTH_TITLES: Readonly<Record<string, string>> = {
  '/sign-in': 'Sign in',
  '/sign-up': 'Create an account',
  '/verify': 'Verify your email',
  '/forgot-password': 'Reset your password',
};
const MODE_KEY = 'vidgen.console.mode';
/** Query parameters that name the current mode's data, dropped when the mode switches. */
const MODE_BOUND_PARAMS = ['id', 'page'];

export function App({ config, session }: { config: ConsoleConfig; session: Session }) {
  const location = useLocation();
  const queries = useQueryClient();
  const [signedIn, setSignedIn] = useState(session.signedIn);
  const [mode, setModeState] = useState<Mode>(() => (sessionStorage.getItem(MODE_KEY) === 'test' ? 'test' : 'live'));

  useEffect(
    () =>
      session.onChange((now) => {
        setSignedIn(now);
        if (!now) queries.clear();
      }),
    [session, queries],
  );

  const setMode = useCallback((next: Mode) => {
    sessionStorage.setItem(MODE_KEY, next);
    setModeState(next);
    // Ids and page numbers in the address belong to the other mode's data; filters (kind, status) hold in both.
    const query = new URLSearchParams(window.location.search);
    if (MODE_BOUND_PARAMS.some((name) => query.has(name))) {
      for (const name of MODE_BOUND_PARAMS) query.delete(name);
      const search = query.toString();
      navigate(`${window.location.pathname.slice(href('').length) || '/'}${search ? `?${search}` : ''}`, { replace: true });
    }
  }, []);

  const context = useMemo<ConsoleContext>(
    () => ({
      config,
      session,
      mode,
      setMode,
      client: async () => sessionClient(session, config.apiBaseUrl, mode),
      clientIn: async (other: Mode) => sessionClient(session, config.apiBaseUrl, other),
    }),
    [config, session, mode, setMode],
  );

  const isAuthPage = Object.hasOwn(AUTH_TITLES, location.path);
  useEffect(() => {
    if (!signedIn && !isAuthPage) navigate(`/sign-in${location.path === '/' ? '' : `?next=${encodeURIComponent(location.path)}`}`, { replace: true });
    if (signedIn && isAuthPage) navigate(location.query.get('next') ?? '/', { replace: true });
  }, [signedIn, isAuthPage, location.path, location.query]);

  const page = PAGES.find((candidate) => candidate.path === location.path);
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
              {PAGES.map((item) => (
                <li key={item.path}>
                  <Link to={item.path} aria-current={item.path === location.path ? 'page' : undefined}>
                    {item.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <div className="topbar-actions">
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
          <Suspense fallback={loading}>
            {page ? (
              // A new mode is a new page: nothing of the other mode's data stays on screen.
              <div key={mode}>{page.render()}</div>
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
