/**
 * The console's runtime settings, read from /console/config.json next to the app: written by the
 * local stack (bin/local-stack/console-route.ts) or by the CDK deployment (lib/constructs/console-site.ts),
 * so one build serves every stage.
 */
export interface ConsoleConfig {
  /** Where the console calls the API: absolute, or a path on the console's own origin (`/api/v1`). */
  apiBaseUrl: string;
  /** The API's public base URL, for the quick start and curl examples. */
  publicApiUrl: string;
  /** The Cognito user pool's JSON endpoint (`https://cognito-idp.<region>.amazonaws.com/` or the local identity server). */
  identityEndpoint: string;
  userPoolClientId: string;
  region: string;
}

const FIELDS = ['apiBaseUrl', 'publicApiUrl', 'identityEndpoint', 'userPoolClientId', 'region'] as const;

export async function loadConfig(): Promise<ConsoleConfig> {
  const response = await fetch(`${import.meta.env.BASE_URL}config.json`, { cache: 'no-store' });
  if (!response.ok) throw new Error(`config.json answered HTTP ${response.status}.`);
  return parseConfig(await response.json(), window.location.href);
}

/** Checks every field and makes the URLs absolute (relative ones are on the console's origin). */
export function parseConfig(raw: unknown, here: string): ConsoleConfig {
  const value = (raw ?? {}) as Record<string, unknown>;
  const missing = FIELDS.filter((field) => typeof value[field] !== 'string' || value[field] === '');
  if (missing.length > 0) throw new Error(`config.json lacks ${missing.join(', ')}.`);
  const text = (field: (typeof FIELDS)[number]) => value[field] as string;
  const absolute = (field: (typeof FIELDS)[number]) => new URL(text(field), here).href.replace(/\/+$/, '');
  return {
    apiBaseUrl: absolute('apiBaseUrl'),
    publicApiUrl: absolute('publicApiUrl'),
    identityEndpoint: absolute('identityEndpoint'),
    userPoolClientId: text('userPoolClientId'),
    region: text('region'),
  };
}
