import { ApiError, VidgenClient } from '#client';
import type { Session } from './auth/session';
import type { Mode } from './context';

/**
 * The console's only way to the API: the project's TypeScript client, signed in with the
 * holder's session (asked for a current access token before each request, refreshed as needed),
 * acting on the chosen account (`Vidgen-Account`; undefined: the holder's default) in the chosen
 * mode (`Vidgen-Mode`).
 */
export function sessionClient(session: Session, baseUrl: string, mode: Mode, account?: string): VidgenClient {
  return new VidgenClient({
    sessionToken: async () => {
      const token = await session.token();
      if (!token) throw new ApiError('Your session has ended. Sign in again.', { code: 'unauthorized', status: 401 });
      return token;
    },
    mode,
    ...(account !== undefined && { account }),
    baseUrl,
    // The console shows a failure at once and the person decides to try again: no retry waits out
    // a 429's Retry-After behind a blank page, or spends the holder's rate limit on its own.
    retry: { maxRetries: 0 },
  });
}
