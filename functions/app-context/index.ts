import type { Db } from '#adapters/dynamodb/dynamo-client';
import type { ObjectStorage } from '#adapters/s3/object-storage';
import type { Config } from '#config';
import type { CopyQueue } from '#domain/tasks/ports';
import type { GenerationProvider } from '#domain/providers/provider';
import type { StartDeps } from '#domain/tasks/start-task';
import { powertoolsTelemetry } from '#observability/telemetry';
import { buildLifecycle, lifecycle } from './lifecycle';
import { appConfigWithProviders } from './provider';
import { appMediaStorage, buildMediaStorage } from './media';
import { buildWebhookDeps } from './webhooks';
import { appDb, buildDb, buildStores, stores, type Stores } from './stores';

/**
 * Wiring: configuration to adapters to ports. It holds no rules. A handler imports only the
 * part it needs (`stores()`, `uploadStorage()`, `lifecycle()`), so a function's bundle loads
 * only the SDK clients that part uses: the authorizer and GET /credits load DynamoDB alone.
 * Each part is built on its first use in a cold start and reused by warm invocations.
 *
 * The whole context below is for the local stack, the admin tools and the tests, which also
 * reach the adapters themselves (the table client, the bucket).
 */
export interface AppContext extends Stores {
  config: Config;
  db: Db;
  storage: ObjectStorage;
  /** Everything the task use cases need. */
  lifecycle: StartDeps;
  /** The lifecycle's copy queue (in-process on the local stack: drained on shutdown). */
  copyQueue: CopyQueue;
}

/** A fresh context for `config` (tests, tools); `provider` replaces the configured one. */
export function buildAppContext(config: Config, overrides: { provider?: GenerationProvider } = {}): AppContext {
  const db = buildDb(config);
  const parts = buildStores(db, powertoolsTelemetry);
  const storage = buildMediaStorage(config);
  const deps = buildLifecycle(config, { stores: parts, storage, webhooks: buildWebhookDeps(config, db), ...overrides });
  return { config, db, ...parts, storage, lifecycle: deps, copyQueue: deps.copyQueue };
}

/** The context the handlers of this process use (the local stack shares it with them). */
export function appContext(): AppContext {
  const deps = lifecycle();
  return { config: appConfigWithProviders(), db: appDb(), ...stores(), storage: appMediaStorage(), lifecycle: deps, copyQueue: deps.copyQueue };
}
