import { loadServiceConfig, type ServiceConfig } from '#config/service';

let current: ServiceConfig | undefined;

/** The configuration, read from the environment once per cold start. */
export function appConfig(): ServiceConfig {
  current ??= loadServiceConfig();
  return current;
}
