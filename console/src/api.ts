import { ApiError, VidgenClient } from '#client';
import type { Session } from './auth/session';
import type { Mode } from './context';

/**
 * The console's only way to the API: the project's TypeScript client, with the holder's access
 * token and the chosen mode. A new client per call is cheap, and always carries the current token.
 */
export async function sessionClient(session: Session, baseUrl: string, mode: Mode): Promise<VidgenClient> {
  const token = await session.token();
  if (!token) throw new ApiError('Your session has ended. Sign in again.', { code: 'unauthorized', status: 401 });
  return new VidgenClient({
    apiKey: token,
    baseUrl,
    // The console shows a failure at once; the person decides to try again.
    retry: { maxRetries: 1 },
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), 'Vidgen-Mode': mode } }),
  });
}
