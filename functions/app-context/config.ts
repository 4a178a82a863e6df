import { loadConfig, type Config } from '#config';

let current: Config | undefined;

/** The configuration, read from the environment once per cold start. */
export function appConfig(): Config {
  current ??= loadConfig();
  return current;
}
