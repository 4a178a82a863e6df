/**
 * Reading configuration from the environment: each reader names the variable in its error, so a
 * cold start with a bad value stops with a message an operator can act on.
 */
export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export function optional(env: Env, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}

export function required(env: Env, name: string): string {
  const value = optional(env, name);
  if (!value) throw new ConfigError(`Missing required environment variable ${name}.`);
  return value;
}

export function wholeNumber(env: Env, name: string, fallback: number, min: number): number {
  const raw = optional(env, name);
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`${name} must be a whole number >= ${min}; got "${raw}".`);
  }
  return value;
}

export function url(env: Env, name: string, fallback?: string): string {
  const raw = fallback === undefined ? required(env, name) : (optional(env, name) ?? fallback);
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL; got "${raw}".`);
  }
  return raw.replace(/\/+$/, '');
}

export function origins(env: Env, name: string): string[] {
  const raw = optional(env, name);
  if (!raw) return [];
  return raw.split(',').map((part) => {
    try {
      const { origin, protocol } = new URL(part.trim());
      if (protocol !== 'http:' && protocol !== 'https:') throw new Error('not http(s)');
      return origin;
    } catch {
      throw new ConfigError(`${name} must be a comma-separated list of http(s) origins; got "${raw}".`);
    }
  });
}

export function secondsList(env: Env, name: string, fallback: readonly number[]): number[] {
  const raw = optional(env, name);
  if (!raw) return [...fallback];
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (!values.every((value) => Number.isFinite(value) && value >= 0)) {
    throw new ConfigError(`${name} must be a comma-separated list of seconds; got "${raw}".`);
  }
  return values;
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.map((value) => `"${value}"`).join(', ')}; got "${raw}".`);
  }
  return raw as T;
}

export function flag(env: Env, name: string): boolean {
  const raw = optional(env, name);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be "true" or "false"; got "${raw}".`);
}
