import { createLambdaClient, InProcessCopyQueue, LambdaCopyQueue } from '#adapters/copy-queues';
import { lazyMessageQueue } from './queues';
import { providerCallbackUrl } from '#contract/params';
import { CircuitBreaker } from '#domain/providers/circuit-breaker';
import { CounterBudget } from '#domain/providers/budget';
import { ReferenceImages } from '#adapters/reference-images';
import { ffmpegBinary, FfmpegThumbnails } from '#adapters/ffmpeg-thumbnails';
import type { ObjectStorage } from '#adapters/s3/object-storage';
import type { Config } from '#config';
import type { CopyQueue, SubmissionRequest } from '#domain/tasks/ports';
import type { GenerationProvider } from '#domain/providers/provider';
import type { StartDeps } from '#domain/tasks/start-task';
import { copyRequested } from '#domain/tasks/lifecycle/outputs';
import { DEFAULT_LIFECYCLE_SETTINGS } from '#domain/tasks/lifecycle/deps';
import { traced } from '#observability/client-tracing';
import { powertoolsTelemetry } from '#observability/telemetry';
import { instrumentedProvider } from '#providers/instrumented-provider';
import { publishTaskEnded } from '#domain/webhooks/deliveries';
import { webhookEvents, type EventPublishing } from './webhook-events';
import { appMediaStorage } from './media';
import { appConfigWithProviders, buildOtherProviders, buildProvider, buildTestProvider, checkRoutes, providerBudgets } from './provider';
import { stores, type Stores } from './stores';

/** Everything the task use cases need, with the copy queue that fits where we run. */
export function buildLifecycle(
  config: Config,
  parts: { stores: Stores; storage: ObjectStorage; webhooks: EventPublishing; provider?: GenerationProvider },
): StartDeps {
  const { accounts, tasks, idempotency } = parts.stores;
  const references = new ReferenceImages(parts.storage);
  let deps: StartDeps | undefined;
  const configured = parts.provider ?? buildProvider(config, parts.storage, references);
  const provider = instrumentedProvider(configured, powertoolsTelemetry);
  // Not measured when it is not the configured one: the provider metrics watch the real upstream.
  const testProvider = config.provider.name === 'simulated' ? provider : buildTestProvider(config, parts.storage, references);
  const { submissions } = config;
  const callbackBase = submissions.callbackBaseUrl;
  const copyQueue: CopyQueue = config.copyWorkerFunction
    ? new LambdaCopyQueue(traced(createLambdaClient(config.region)), config.copyWorkerFunction)
    : new InProcessCopyQueue((request) => copyRequested(deps!, request));
  deps = {
    accounts,
    tasks,
    idempotency,
    references,
    provider,
    testProvider,
    otherProviders: buildOtherProviders(config, parts.storage, references, (other) =>
      // The simulated one is test mode's: not measured, as the provider metrics watch real upstreams.
      other.name === testProvider.name ? testProvider : instrumentedProvider(other, powertoolsTelemetry),
    ),
    ...(config.routes && { routes: checkRoutes(config) }),
    circuits: new CircuitBreaker(parts.stores.circuits, {
      failureThreshold: config.circuit.failureThreshold,
      coolDownMs: config.circuit.coolDownSeconds * 1000,
      // A probe is one create: bounded by the function's own timeout.
      probeTimeoutMs: 30_000,
    }),
    media: parts.storage,
    realTime: Date.now,
    thumbnails: new FfmpegThumbnails(parts.storage, ffmpegBinary(config.ffmpegPath)),
    copyQueue,
    clock: () => new Date(),
    settings: {
      ...DEFAULT_LIFECYCLE_SETTINGS,
      taskTimeoutMs: config.taskTimeoutSeconds * 1000,
      providerBudgets: providerBudgets(config),
      callbackSilenceMs: submissions.callbackSilenceSeconds * 1000,
      submissionGraceMs: submissions.graceSeconds * 1000,
    },
    budget: new CounterBudget(parts.stores.rateCounter),
    submissions: lazyMessageQueue<SubmissionRequest>('submissions', submissions.queueUrl, config.region),
    ...(callbackBase && {
      callbackUrl: (task, providerName, token) => providerCallbackUrl(callbackBase, providerName, task.partitionId, task.taskId, token),
    }),
    telemetry: powertoolsTelemetry,
    events: { taskEnded: (task) => publishTaskEnded(parts.webhooks, task) },
  };
  return deps;
}

let current: StartDeps | undefined;

export function lifecycle(): StartDeps {
  current ??= buildLifecycle(appConfigWithProviders(), { stores: stores(), storage: appMediaStorage(), webhooks: webhookEvents() });
  return current;
}
