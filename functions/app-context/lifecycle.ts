import { InProcessCopyQueue } from '#adapters/in-process-copy-queue';
import { ReferenceImages } from '#adapters/reference-images';
import { webhookDestinations } from '#adapters/webhook-destinations';
import { destinationLoopback, OUTPUT_DELIVERY } from '#config/output-delivery';
import { readSetting } from '#config/setting';
import type { DeliveryRef } from '#domain/tasks/delivery';
import type { ObjectStorage } from '#adapters/s3/object-storage';
import { CircuitBreaker } from '#domain/providers/circuit-breaker';
import type { ProviderBudget } from '#domain/providers/ports';
import type { GenerationProvider } from '#domain/providers/provider';
import type { RateCounter } from '#domain/shared/counter';
import type { CopyQueue, CopyRequest, SubmissionRequest } from '#domain/tasks/ports';
import { copyRequested } from '#domain/tasks/lifecycle/outputs';
import { taskEndingsOf } from '#domain/webhooks/deliveries';
import { traced } from '#observability/client-tracing';
import { powertoolsTelemetry } from '#observability/telemetry';
import { instrumentedProvider } from '#providers/instrumented-provider';
import { composeLifecycle, type LifecycleParts, type TaskDeps } from './compose';
import { appThumbnailsConfig } from './config';
import { buildCopyWorker } from './copy-worker';
import { appMediaStorage } from './media';
import { appTaskConfig, buildOtherProviders, buildProvider, buildTestProvider, checkRoutes, providerBudgets, type TaskConfig } from './provider';
import { lazyMessageQueue } from './queues';
import { stores, type Stores } from './stores';
import { webhookEvents, type EventPublishing } from './webhook-events';

/** What a lifecycle's ports are built on; `provider` replaces the configured one (tests). */
export interface LifecycleSources {
  stores: Stores;
  storage: ObjectStorage;
  webhooks: EventPublishing;
  provider?: GenerationProvider;
}

/**
 * A task lifecycle's ports, built from `config` without contacting anything. The ports a
 * function may never touch are shells that import their adapter on first use: the submission
 * queue (SQS) and the budget counter here, the copy queue's Lambda client (`copyQueueFor`) and
 * ffmpeg (./copy-worker.ts). A cold start of GET /videos/{id} loads none of them
 * (test/process/bundle-graph.test.ts).
 */
export function lifecycleParts(config: TaskConfig, sources: LifecycleSources): Omit<LifecycleParts, 'copies'> {
  const references = new ReferenceImages(sources.storage);
  const provider = instrumentedProvider(sources.provider ?? buildProvider(config, sources.storage, references), powertoolsTelemetry);
  // Not measured when it is not the configured one: the provider metrics watch the real upstream.
  const testProvider = config.provider.name === 'simulated' ? provider : buildTestProvider(config, sources.storage, references);
  const { submissions } = config;
  return {
    stores: sources.stores,
    providers: {
      provider,
      testProvider,
      otherProviders: buildOtherProviders(config, sources.storage, references, (other) =>
        // The simulated one is test mode's: not measured, as the provider metrics watch real upstreams.
        other.name === testProvider.name ? testProvider : instrumentedProvider(other, powertoolsTelemetry),
      ),
      ...(config.routes && { routes: checkRoutes(config) }),
      circuits: new CircuitBreaker(sources.stores.circuits, {
        failureThreshold: config.circuit.failureThreshold,
        coolDownMs: config.circuit.coolDownSeconds * 1000,
        // A probe is one create: bounded by the function's own timeout.
        probeTimeoutMs: 30_000,
      }),
    },
    media: sources.storage,
    references,
    destinations: webhookDestinations({ allowLoopback: destinationLoopback() }),
    submissions: lazyMessageQueue<SubmissionRequest>('submissions', submissions.queueUrl, config.region),
    deliveries: lazyMessageQueue<DeliveryRef>('output-deliveries', readSetting(OUTPUT_DELIVERY.queueUrl), config.region),
    budget: lazyBudget(sources.stores.rateCounter),
    events: taskEndingsOf(sources.webhooks),
    telemetry: powertoolsTelemetry,
    clock: () => new Date(),
    realTime: Date.now,
    settings: {
      taskTimeoutMs: config.taskTimeoutSeconds * 1000,
      providerBudgets: providerBudgets(config),
      callbackSilenceMs: submissions.callbackSilenceSeconds * 1000,
      submissionGraceMs: submissions.graceSeconds * 1000,
    },
    ...(submissions.callbackBaseUrl && { callbackBaseUrl: submissions.callbackBaseUrl }),
  };
}

/**
 * Where results are copied: on AWS the copy worker Lambda (COPY_WORKER_FUNCTION), its client
 * loaded on the first copy; unset (the local stack, tests, `npm run invoke`), in this process
 * by `copy`: the copy worker's own deps, composed apart as copy-output is a function of its own.
 */
export function copyQueueFor(config: Pick<TaskConfig, 'region' | 'copyWorkerFunction'>, copy: (request: CopyRequest) => Promise<void>): CopyQueue {
  const { region, copyWorkerFunction } = config;
  if (!copyWorkerFunction) return new InProcessCopyQueue(copy);
  let queue: Promise<CopyQueue> | undefined;
  return {
    async enqueue(request) {
      queue ??= import('#adapters/copy-queues').then(({ createLambdaClient, LambdaCopyQueue }) => new LambdaCopyQueue(traced(createLambdaClient(region)), copyWorkerFunction));
      await (await queue).enqueue(request);
    },
  };
}

/** The providers' budget on the rate counters, its module loaded on the first paced create. */
function lazyBudget(counter: RateCounter): ProviderBudget {
  let budget: Promise<ProviderBudget> | undefined;
  return {
    async reserve(provider, perSecond, now, maxWaitMs) {
      budget ??= import('#domain/providers/budget').then(({ CounterBudget }) => new CounterBudget(counter));
      return (await budget).reserve(provider, perSecond, now, maxWaitMs);
    },
  };
}

let parts: LifecycleParts | undefined;
let current: TaskDeps | undefined;
let worker: TaskDeps | undefined;

/** This process's lifecycle ports (the copy worker shares them, but for its copy queue). */
function appLifecycleParts(): LifecycleParts {
  parts ??= {
    ...lifecycleParts(appTaskConfig(), { stores: stores(), storage: appMediaStorage(), webhooks: webhookEvents() }),
    // Locally, the copy worker's own wiring (on AWS a function of its own), built on the first copy.
    copies: copyQueueFor(appTaskConfig(), (request) => copyRequested(copyWorker(), request)),
  };
  return parts;
}

export function lifecycle(): TaskDeps {
  current ??= composeLifecycle(appLifecycleParts());
  return current;
}

/** This process's copy worker (copy-output's handler; locally the in-process copy queue's). */
export function copyWorker(): TaskDeps {
  worker ??= buildCopyWorker(appLifecycleParts(), appMediaStorage(), appThumbnailsConfig().ffmpegPath);
  return worker;
}
