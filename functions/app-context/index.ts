import type { Db } from '#adapters/dynamodb/dynamo-client';
import type { ObjectStorage } from '#adapters/s3/object-storage';
import { loadConfig, type Config } from '#config';
import type { CopyQueue } from '#domain/tasks/ports';
import type { GenerationProvider } from '#domain/providers/provider';
import { copyRequested } from '#domain/tasks/lifecycle/outputs';
import { powertoolsTelemetry } from '#observability/telemetry';
import { composeLifecycle, type TaskDeps } from './compose';
import { buildCopyWorker } from './copy-worker';
import { copyQueueFor, copyWorker, lifecycle, lifecycleParts } from './lifecycle';
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
  lifecycle: TaskDeps;
  /** The lifecycle's copy queue (in-process on the local stack: drained on shutdown). */
  copyQueue: CopyQueue;
  /** What the copy queue's worker copies with: the lifecycle's ports and ffmpeg's thumbnails. */
  copyWorker: TaskDeps;
}

/**
 * A fresh context for `config` (tests, tools); `provider` replaces the configured one. Results
 * are copied in this process by a copy worker composed from the same ports (with thumbnails).
 */
export function buildAppContext(config: Config, overrides: { provider?: GenerationProvider } = {}): AppContext {
  const db = buildDb(config);
  const parts = buildStores(db, powertoolsTelemetry);
  const storage = buildMediaStorage(config);
  const ports = lifecycleParts(config, { stores: parts, storage, webhooks: buildWebhookDeps(config, db), ...overrides });
  const worker = buildCopyWorker(ports, storage, config.ffmpegPath);
  const copyQueue = copyQueueFor(config, (request) => copyRequested(worker, request));
  const deps = composeLifecycle({ ...ports, copies: copyQueue });
  return { config, db, ...parts, storage, lifecycle: deps, copyQueue, copyWorker: worker };
}

let config: Config | undefined;

/** The context the handlers of this process use (the local stack shares it with them). */
export function appContext(): AppContext {
  config ??= loadConfig();
  const deps = lifecycle();
  return { config, db: appDb(), ...stores(), storage: appMediaStorage(), lifecycle: deps, copyQueue: deps.copyQueue, copyWorker: copyWorker() };
}
