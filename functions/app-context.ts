import { loadConfig, type Config } from './config';
import { DynamoAccountStore } from './adapters/dynamodb/account-repository';
import { DynamoApiKeyStore } from './adapters/dynamodb/api-key-repository';
import { createLambdaClient, InProcessCopyQueue, LambdaCopyQueue, type CopyRequest } from './adapters/copy-queues';
import { createDb, type Db } from './adapters/dynamodb/dynamo-client';
import { DynamoIdempotencyStore } from './adapters/dynamodb/idempotency-repository';
import { DynamoLedgerStore } from './adapters/dynamodb/ledger-repository';
import { isPublicMediaKey } from './adapters/s3/media-layout';
import { ObjectStorage } from './adapters/s3/object-storage';
import { createSafeFetcher } from './adapters/safe-fetch';
import { MAX_UPLOAD_BYTES } from './domain/image-type';
import { DynamoRateCounter } from './adapters/dynamodb/rate-counter-repository';
import { createS3Client } from './adapters/s3/s3-client';
import { DynamoTaskStore } from './adapters/dynamodb/task-repository';
import type { GenerationProvider } from './domain/provider';
import type { CopyQueue } from './domain/ports';
import type { StartDeps } from './domain/start-task';
import { copyOutputs, DEFAULT_LIFECYCLE_SETTINGS } from './domain/task-lifecycle';
import defaultReplicateModels from './providers/replicate/default-models.json';
import { parseModelMap } from './providers/replicate/model-map';
import { ReplicateProvider } from './providers/replicate/replicate-provider';
import { SimulatedProvider } from './providers/simulated/simulated-provider';
import { lazyProvider } from './providers/lazy-provider';
import { readSecret } from './adapters/secrets';

/**
 * Wires configuration to repositories and adapters. Handlers call `appContext()`; it is built
 * on the first call of a cold start and reused by every warm invocation (SDK clients keep
 * their sockets). Building it makes no network call.
 */
export interface AppContext {
  config: Config;
  db: Db;
  accounts: DynamoAccountStore;
  apiKeys: DynamoApiKeyStore;
  ledger: DynamoLedgerStore;
  rateCounter: DynamoRateCounter;
  tasks: DynamoTaskStore;
  idempotency: DynamoIdempotencyStore;
  storage: ObjectStorage;
  provider: GenerationProvider;
  copyQueue: CopyQueue;
  /** Everything the task use cases need. */
  lifecycle: StartDeps;
}

export function buildAppContext(config: Config, overrides: { provider?: GenerationProvider } = {}): AppContext {
  const db = createDb({
    tableName: config.tableName,
    region: config.region,
    ...(config.dynamodbEndpoint && { endpoint: config.dynamodbEndpoint }),
  });
  const s3 = createS3Client({ region: config.region, ...(config.s3Endpoint && { endpoint: config.s3Endpoint }) });
  const outputs = createSafeFetcher({
    allowedOrigins: [new URL(config.publicMediaBaseUrl).origin],
    maxBytes: MAX_OUTPUT_BYTES,
    timeoutMs: OUTPUT_DOWNLOAD_TIMEOUT_MS,
  });
  const storage = new ObjectStorage(s3, config.mediaBucket, config.publicMediaBaseUrl, outputs.openStream);
  const accounts = new DynamoAccountStore(db);
  const tasks = new DynamoTaskStore(db);
  const idempotency = new DynamoIdempotencyStore(db);
  const provider = overrides.provider ?? createProvider(config, storage);

  let lifecycle: StartDeps | undefined;
  const copyQueue: CopyQueue = config.copyWorkerFunction
    ? new LambdaCopyQueue(createLambdaClient(config.region), config.copyWorkerFunction)
    : new InProcessCopyQueue((request) => copyRequested(lifecycle!, request));
  lifecycle = {
    accounts,
    tasks,
    idempotency,
    provider,
    media: storage,
    copyQueue,
    clock: () => new Date(),
    settings: { ...DEFAULT_LIFECYCLE_SETTINGS, taskTimeoutMs: config.taskTimeoutSeconds * 1000 },
  };

  return {
    config,
    db,
    accounts,
    apiKeys: new DynamoApiKeyStore(db),
    ledger: new DynamoLedgerStore(db),
    rateCounter: new DynamoRateCounter(db),
    tasks,
    idempotency,
    storage,
    provider,
    copyQueue,
    lifecycle,
  };
}

/** The copy worker's job: copy one task's waiting outputs (also used in-process locally). */
export async function copyRequested(deps: StartDeps, request: CopyRequest): Promise<void> {
  const task = await deps.tasks.get(request.accountId, request.taskId);
  if (task) await copyOutputs(deps, task);
}

function createProvider({ provider: config, region }: Config, storage: ObjectStorage): GenerationProvider {
  if (config.name === 'replicate') {
    const models = parseModelMap(config.modelsJson ? JSON.parse(config.modelsJson) : defaultReplicateModels);
    const replicate = (apiToken: string) =>
      new ReplicateProvider({ baseUrl: config.baseUrl, apiToken, timeoutMs: config.timeoutMs, models });
    const token = config.apiToken;
    if ('value' in token) return replicate(token.value);
    // On AWS the token stays in Secrets Manager, read on the first provider call (only the
    // functions that call the provider are allowed to read it).
    return lazyProvider('replicate', async () => replicate(await readSecret(region, token.secretArn)));
  }
  return new SimulatedProvider({
    storage,
    delayMs: config.delaySeconds * 1000,
    fetchReference: referenceReader(storage),
  });
}

/**
 * Reads a user-supplied reference image: straight from the bucket when it is one of our own
 * uploads, otherwise through the SSRF-safe fetcher (public http(s) targets only, bounded).
 */
function referenceReader(storage: ObjectStorage) {
  const { fetchBytes } = createSafeFetcher({
    allowedOrigins: [new URL(storage.publicBaseUrl).origin],
    maxBytes: MAX_UPLOAD_BYTES,
    timeoutMs: 10_000,
  });
  return async (url: string): Promise<Buffer> => {
    const key = storage.keyOf(url);
    if (key !== undefined) {
      const bytes = isPublicMediaKey(key) ? await storage.getBytes(key) : undefined;
      if (!bytes) throw new Error('no such file in our storage');
      return bytes;
    }
    return (await fetchBytes(url)).bytes;
  };
}

/** Bounds for copying a provider's result (a 12 s 1080p video is tens of MB). */
const MAX_OUTPUT_BYTES = 1024 ** 3;
const OUTPUT_DOWNLOAD_TIMEOUT_MS = 120_000;

let current: AppContext | undefined;

export function appContext(): AppContext {
  current ??= buildAppContext(loadConfig());
  return current;
}
