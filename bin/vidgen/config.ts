import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_BASE_URL } from '#client';
import { UsageError } from './args';
import { addressFile, runningLocalStack } from '../local-stack/discovery';
import { localSettings } from '../local-stack/settings';

export interface CliConfig {
  /** Unset: the CLI acts through the stored session of `vidgen login`. */
  apiKey?: string;
  baseUrl: string;
  /** Where baseUrl came from, for the hint when nothing answers there. */
  baseUrlFrom: string;
}

/** ~/.config/vidgen/config.json ($XDG_CONFIG_HOME when set), or VIDGEN_CONFIG. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.VIDGEN_CONFIG) return env.VIDGEN_CONFIG;
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'vidgen', 'config.json');
}

/**
 * The key and base URL: the environment first (VIDGEN_API_KEY, VIDGEN_BASE_URL), then the
 * config file; for the base URL then the local stack `npm start` runs in this repository (on
 * whatever port it was given), then the default. A missing file is fine; an unreadable one is a
 * usage error. No key: the caller uses the session of `vidgen login`, if there is one.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const file = configPath(env);
  const saved = readConfigFile(file);
  const apiKey = env.VIDGEN_API_KEY?.trim() || saved.apiKey;
  const dataDir = localSettings(env).dataDir;
  const local = runningLocalStack(dataDir)?.baseUrl;
  const [baseUrl, baseUrlFrom] = env.VIDGEN_BASE_URL?.trim()
    ? [env.VIDGEN_BASE_URL.trim(), 'VIDGEN_BASE_URL']
    : saved.baseUrl
      ? [saved.baseUrl, file]
      : local
        ? [local, `the running local stack (${addressFile(dataDir)})`]
        : [DEFAULT_BASE_URL, 'the default'];
  if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
    throw new UsageError(`The base URL must be an http(s) URL ending in /api/v1, got "${baseUrl}".`);
  }
  return { ...(apiKey && { apiKey }), baseUrl, baseUrlFrom };
}

function readConfigFile(file: string): { apiKey?: string; baseUrl?: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`${file} must hold a JSON object like {"apiKey": "vg_live_...", "baseUrl": "https://..."}.`);
  }
  const { apiKey, baseUrl, identityEndpoint, clientId } = parsed as Record<string, unknown>;
  for (const [name, value] of Object.entries({ apiKey, baseUrl, identityEndpoint, clientId })) {
    if (value !== undefined && typeof value !== 'string') throw new UsageError(`${file}: "${name}" must be a string.`);
  }
  return { apiKey: (apiKey as string | undefined)?.trim(), baseUrl: (baseUrl as string | undefined)?.trim() };
}
