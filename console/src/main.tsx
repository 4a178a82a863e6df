import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { Session, SESSION_CHANNEL } from './auth/session';
import { loadConfig } from './config';
import { FRESH_MS } from './queries';
import './styles.css';

const root = createRoot(document.getElementById('root')!);

loadConfig().then(
  async (config) => {
    const session = new Session(
      { endpoint: config.identityEndpoint, clientId: config.userPoolClientId },
      window.sessionStorage,
      typeof BroadcastChannel === 'function' ? new BroadcastChannel(SESSION_CHANNEL) : undefined,
    );
    // A tab opened from another one takes the session over from it before the first page shows.
    await session.restore();
    const queries = new QueryClient({
      defaultOptions: {
        // The API's own errors are final; only the person retries them. What was read stays fresh
        // for FRESH_MS (shared between pages), and coming back to the tab reads nothing: every
        // read counts against the holder's rate limit.
        queries: { retry: false, refetchOnWindowFocus: false, staleTime: FRESH_MS },
      },
    });
    root.render(
      <StrictMode>
        <QueryClientProvider client={queries}>
          <App config={config} session={session} />
        </QueryClientProvider>
      </StrictMode>,
    );
  },
  (error: unknown) => {
    root.render(
      <main className="page narrow">
        <h1>The console could not start</h1>
        <p role="alert">Its settings (config.json) could not be read: {error instanceof Error ? error.message : String(error)}</p>
      </main>,
    );
  },
);
