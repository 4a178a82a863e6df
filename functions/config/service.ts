import { DEFAULT_CIRCUIT_SETTINGS } from '#domain/providers/circuit-breaker';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '#domain/accounts/rate-limit';
import { SIMULATED_DEFAULTS } from '#providers/simulated/defaults';
import {
  ConfigError,
  flag,
  httpUrl,
  oneOf,
  originList,
  readGroup,
  readSetting,
  secondsList,
  setting,
  text,
  wholeNumber,
  type Env,
  type ValuesOf,
} from './setting';

/**
 * The settings functions read from their environment, grouped by the part of the wiring that
 * reads them (functions/app-context/): each part reads its own group on first use, so a
 * function's environment holds only what the parts it uses read (the stack derives it from the
 * function's spec), and a cold start with a bad value stops with a message naming the variable.
 * The deploy reads the same settings from CDK context (`context`), so a limit or a default is
 * written once. The providers' settings (../providers/*) and billing's (./billing.ts) are read
 * only by the functions that use them.
 */
export const SIMULATED_OUTPUTS = ['rendered', 'samples'] as const;
export type SimulatedOutputs = (typeof SIMULATED_OUTPUTS)[number];

/** Set by the Lambda runtime; every AWS client reads it. */
export const REGION = setting({ variable: 'AWS_REGION', kind: text, required: true, doc: 'The region (set by the Lambda runtime).' });

/** The table (every store). */
export const TABLE = {
  tableName: setting({ variable: 'TABLE_NAME', kind: text, required: true, doc: "The stateful stack's table." }),
  dynamodbEndpoint: setting({ variable: 'DYNAMODB_ENDPOINT', kind: text, doc: "DynamoDB Local's URL on the local stack; unset on AWS." }),
};

/** The media bucket: uploads, results, the simulated provider's jobs. */
export const MEDIA = {
  mediaBucket: setting({ variable: 'MEDIA_BUCKET', kind: text, required: true, doc: 'The media bucket.' }),
  s3Endpoint: setting({ variable: 'S3_ENDPOINT', kind: text, doc: "s3rver's URL on the local stack; unset on AWS." }),
  publicMediaBaseUrl: setting({ variable: 'PUBLIC_MEDIA_BASE_URL', kind: httpUrl, required: true, doc: 'Where media objects are served from (the CDN on AWS).' }),
  outputOrigins: setting({
    variable: 'OUTPUT_ALLOWED_ORIGINS',
    kind: originList,
    default: [] as string[],
    doc: "Origins besides our media's from which provider outputs may be copied although they are not public addresses (a fake or self-hosted provider on this machine); empty on AWS.",
  }),
};

/** The identity provider whose access tokens are sessions, and what a new holder's account opens with: the authorizer's alone. */
export const IDENTITY = {
  issuer: setting({ variable: 'IDENTITY_ISSUER', kind: httpUrl, doc: 'The user pool (issuer URL); unset with IDENTITY_CLIENT_ID: sessions are refused.' }),
  clientId: setting({ variable: 'IDENTITY_CLIENT_ID', kind: text, doc: "The user pool's app client." }),
  signupCredits: setting({
    variable: 'SIGNUP_CREDITS',
    context: 'signupCredits',
    kind: wholeNumber(0, 1_000_000),
    default: 0,
    doc: "The live credits a holder's account opens with on their first sign-in (the test balance has its own 1000).",
  }),
  defaultRateLimit: setting({
    variable: 'DEFAULT_RATE_LIMIT',
    context: 'defaultRateLimit',
    kind: wholeNumber(1),
    default: DEFAULT_RATE_LIMIT_PER_MINUTE,
    doc: 'Requests per minute for keys without their own limit.',
  }),
};

/** How long an authorizer decision is cached: read by API Gateway (the stack) and the local gateway, by no function. */
export const GATEWAY = {
  authCacheTtlSeconds: setting({
    variable: 'AUTH_CACHE_TTL_SECONDS',
    context: 'authCacheTtlSeconds',
    // At most 5 minutes: a member removed from an account keeps their cached access this long (issue 36).
    kind: wholeNumber(0, 300, 'a revoked key, or a member removed from an account, keeps working this long'),
    default: 60,
    doc: 'How long an authorizer decision is cached (a revoked key, or a removed member, works this much longer; at most 300).',
  }),
};

/** The simulated provider's speed: test mode's on every stage, and a simulated stage's tasks (its module reads the same setting). */
export const SIM_DELAY = setting({
  variable: 'SIM_DELAY_SECONDS',
  context: 'simDelaySeconds',
  kind: wholeNumber(0),
  default: SIMULATED_DEFAULTS.delaySeconds,
  doc: 'How long the simulated provider takes (test mode on every stage).',
});

/**
 * How many jobs the simulated provider runs at once (0: no limit); the rest wait in its queue and
 * report their place in it, as fal's do. Per process: exact on the local stack, per instance on Lambda.
 */
export const SIM_CONCURRENCY = setting({
  variable: 'SIM_CONCURRENCY',
  context: 'simConcurrency',
  kind: wholeNumber(0),
  default: 0,
  doc: 'How many jobs the simulated provider runs at once (0: no limit); the others wait their turn and report their queue position.',
});

/** What the task use cases read besides the providers. */
export const LIFECYCLE = {
  taskTimeoutSeconds: setting({
    variable: 'TASK_TIMEOUT_SECONDS',
    context: 'taskTimeoutSeconds',
    kind: wholeNumber(60),
    default: 30 * 60,
    doc: 'A task still processing after this long fails with `timeout` and is refunded.',
  }),
  testModeDelaySeconds: SIM_DELAY,
  testModeConcurrency: SIM_CONCURRENCY,
  simulatedOutputs: setting({
    variable: 'SIM_OUTPUTS',
    kind: oneOf(SIMULATED_OUTPUTS),
    default: 'rendered' as SimulatedOutputs,
    doc: 'What the simulated provider hands out: media it renders (needs sharp and ffmpeg, locally) or ready-made samples (AWS, where the renderers are not bundled).',
  }),
  callbackSilenceSeconds: setting({
    variable: 'CALLBACK_SILENCE_SECONDS',
    kind: wholeNumber(1),
    default: 120,
    doc: 'A job that calls back is polled only after this long without news.',
  }),
  graceSeconds: setting({
    variable: 'SUBMISSION_GRACE_SECONDS',
    kind: wholeNumber(1),
    default: 600,
    doc: "How long a task whose create went unanswered waits for its job's callback before the refund.",
  }),
};

/** Each provider's circuit breaker. */
export const CIRCUIT = {
  failureThreshold: setting({
    variable: 'CIRCUIT_FAILURE_THRESHOLD',
    context: 'circuitFailureThreshold',
    kind: wholeNumber(1, 1000),
    default: DEFAULT_CIRCUIT_SETTINGS.failureThreshold,
    doc: "Consecutive failed creates that open a provider's circuit.",
  }),
  coolDownSeconds: setting({
    variable: 'CIRCUIT_COOL_DOWN_SECONDS',
    context: 'circuitCoolDownSeconds',
    kind: wholeNumber(1, 3600),
    default: DEFAULT_CIRCUIT_SETTINGS.coolDownMs / 1000,
    doc: 'How long an open circuit skips its provider before one probe.',
  }),
};

/** How creates reach the provider (docs/tasks.md, "Submission" and "Provider callbacks"). */
export const SUBMISSIONS = {
  queueUrl: setting({ variable: 'SUBMISSION_QUEUE_URL', kind: text, doc: 'The SQS queue of creates waiting for a turn; unset: an in-process queue (local stack, tests).' }),
  callbackBaseUrl: setting({
    variable: 'CALLBACK_BASE_URL',
    kind: httpUrl,
    doc: "The API's public base URL (ending in /api/v1) where the provider reaches our callback route; unset: jobs are not asked to call back.",
  }),
};

/** The copy worker: a Lambda invoked asynchronously; unset, results are copied in this process. */
export const COPIES = {
  copyWorkerFunction: setting({ variable: 'COPY_WORKER_FUNCTION', kind: text, doc: 'The Lambda that copies results; unset: copy in this process.' }),
};

/** The ffmpeg that makes video thumbnails (the copy worker's layer on AWS); unset: @ffmpeg-installer's. */
export const THUMBNAILS = {
  ffmpegPath: setting({ variable: 'FFMPEG_PATH', kind: text, doc: 'The ffmpeg binary (the layer on AWS).' }),
};

/** Publishing a task's ending: the delivery queue. */
export const EVENTS = {
  queueUrl: setting({ variable: 'WEBHOOK_QUEUE_URL', kind: text, doc: 'The SQS queue of deliveries; unset: an in-process queue (the local stack and tests only).' }),
};

/** Delivering webhooks. */
export const WEBHOOK_DELIVERY = {
  retrySchedule: setting({
    variable: 'WEBHOOK_RETRY_SCHEDULE',
    kind: secondsList,
    // Growing delays over more than 24 h (27.6 h in all): the deployed schedule.
    default: [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000],
    doc: 'Seconds before each retry of a failed delivery, in order; after the last, it is failed.',
  }),
  allowLoopback: setting({
    variable: 'WEBHOOK_ALLOW_LOOPBACK',
    kind: flag,
    default: false,
    doc: "Accept http:// endpoints on loopback and deliver to loopback (a developer's receiver; the local stack only).",
  }),
};

/** The API reference's server address where the request cannot tell it trustworthily (the local stack sets it). */
export const REFERENCE = {
  apiBaseUrl: setting({ variable: 'API_BASE_URL', kind: httpUrl, doc: "The API's public base URL (ending in /api/v1); the local stack only." }),
};

export interface ServiceConfig {
  tableName: string;
  region: string;
  /** DynamoDB Local's URL on the local stack; unset on AWS. */
  dynamodbEndpoint?: string;
  /** How long an authorizer decision is cached (API Gateway and the local stack alike). */
  authCacheTtlSeconds: number;
  /** Requests per minute for keys without their own limit. */
  defaultRateLimit: number;
  mediaBucket: string;
  /** s3rver's URL on the local stack; unset on AWS. */
  s3Endpoint?: string;
  /** Where media objects are served from, without a trailing slash (the CDN on AWS). */
  publicMediaBaseUrl: string;
  /**
   * Origins besides our media's from which provider outputs may be copied although they are not
   * public addresses (a fake or self-hosted provider on this machine); empty on AWS.
   */
  outputOrigins: string[];
  /** Each provider's circuit breaker (CIRCUIT_FAILURE_THRESHOLD, CIRCUIT_COOL_DOWN_SECONDS). */
  circuit: CircuitConfig;
  /** How long the simulated provider takes for test-mode tasks, which use it whatever `provider` is. */
  testModeDelaySeconds: number;
  /** How many test-mode jobs the simulated provider runs at once (SIM_CONCURRENCY; 0 or unset: no limit). */
  testModeConcurrency?: number;
  /**
   * What the simulated provider hands out: media it renders showing the prompt (needs sharp and
   * ffmpeg, installed locally) or ready-made samples (AWS, where the renderers are not bundled).
   */
  simulatedOutputs: SimulatedOutputs;
  /** A task still processing after this long fails with `timeout`. */
  taskTimeoutSeconds: number;
  /** The Lambda that copies results (invoked asynchronously); unset: copy in this process. */
  copyWorkerFunction?: string;
  /** The ffmpeg that makes video thumbnails (the copy worker's layer on AWS); unset: @ffmpeg-installer's. */
  ffmpegPath?: string;
  webhooks: WebhookConfig;
  submissions: SubmissionConfig;
  /** The identity provider whose access tokens are sessions (IDENTITY_ISSUER, IDENTITY_CLIENT_ID); unset: sessions are refused. */
  identity?: IdentityConfig;
  /** The live credits a holder's account opens with on their first sign-in (SIGNUP_CREDITS). */
  signupCredits: number;
}

/** The Cognito user pool (or the local identity server) and its app client. */
export interface IdentityConfig {
  /** `https://cognito-idp.<region>.amazonaws.com/<pool id>`; its origin is the pool's API endpoint. */
  issuer: string;
  clientId: string;
}

export type CircuitConfig = ValuesOf<typeof CIRCUIT>;

/** How creates reach the provider (docs/tasks.md, "Submission" and "Provider callbacks"). */
export interface SubmissionConfig {
  queueUrl?: string;
  callbackBaseUrl?: string;
  callbackSilenceSeconds: number;
  graceSeconds: number;
}
export interface WebhookConfig {
  /** The SQS queue of deliveries; unset: an in-process queue (the local stack and tests only). */
  queueUrl?: string;
  /** Seconds before each retry of a failed delivery, in order; after the last, it is failed. */
  retrySchedule: number[];
  /** Accept http:// endpoints on loopback and deliver to loopback (a developer's receiver). */
  allowLoopback: boolean;
}

/** The settings' defaults, for the code that shows or compares them (tests, the local stack). */
export const CONFIG_DEFAULTS = {
  authCacheTtlSeconds: GATEWAY.authCacheTtlSeconds.default,
  defaultRateLimit: IDENTITY.defaultRateLimit.default,
  simDelaySeconds: SIM_DELAY.default,
  taskTimeoutSeconds: LIFECYCLE.taskTimeoutSeconds.default,
  callbackSilenceSeconds: LIFECYCLE.callbackSilenceSeconds.default,
  submissionGraceSeconds: LIFECYCLE.graceSeconds.default,
  circuitFailureThreshold: CIRCUIT.failureThreshold.default,
  circuitCoolDownSeconds: CIRCUIT.coolDownSeconds.default,
  signupCredits: IDENTITY.signupCredits.default,
  webhookRetrySchedule: WEBHOOK_DELIVERY.retrySchedule.default,
} as const;

/** What the local stack uses: the first retries within seconds, so they are seen while watching. */
export const LOCAL_WEBHOOK_RETRY_SCHEDULE = [2, 10, 30, 120, 600, 3_600, 21_600, 64_800] as const;

type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & { [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined> };
/** Drops the fields left unset, as the config objects leave them out. */
const defined = <T extends object>(values: T) => Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Defined<T>;

export type TableConfig = Pick<ServiceConfig, 'region' | 'tableName' | 'dynamodbEndpoint'>;
/** The table's settings and the region: what the stores read (app-context/stores.ts). */
export const tableConfig = (env: Env = process.env): TableConfig => ({ region: readSetting(REGION, env), ...defined(readGroup(TABLE, env)) });

export type MediaConfig = Pick<ServiceConfig, 'region' | 'mediaBucket' | 's3Endpoint' | 'publicMediaBaseUrl' | 'outputOrigins'>;
/** The media bucket's settings and the region (app-context/media.ts). */
export const mediaConfig = (env: Env = process.env): MediaConfig => ({ region: readSetting(REGION, env), ...defined(readGroup(MEDIA, env)) });

/** Both or neither: an issuer without its client (or the reverse) is a broken deploy. */
export function identityConfig(env: Env = process.env): { identity?: IdentityConfig; signupCredits: number; defaultRateLimit: number } {
  if (!env.IDENTITY_ISSUER?.trim() !== !env.IDENTITY_CLIENT_ID?.trim()) {
    throw new ConfigError('IDENTITY_ISSUER and IDENTITY_CLIENT_ID go together: set both or neither.');
  }
  const { issuer, clientId, signupCredits, defaultRateLimit } = readGroup(IDENTITY, env);
  return { ...(issuer && clientId && { identity: { issuer, clientId } }), signupCredits, defaultRateLimit };
}

export interface EventsConfig {
  region: string;
  webhooks: Pick<WebhookConfig, 'queueUrl'>;
}
/** Publishing events: the delivery queue (app-context/webhook-events.ts). */
export const eventsConfig = (env: Env = process.env): EventsConfig => ({ region: readSetting(REGION, env), webhooks: defined(readGroup(EVENTS, env)) });

/** Delivering webhooks: the queue, the retry schedule and loopback (app-context/webhooks.ts). */
export const webhookConfig = (env: Env = process.env): { region: string; webhooks: WebhookConfig } => ({
  region: readSetting(REGION, env),
  webhooks: { ...defined(readGroup(EVENTS, env)), ...readGroup(WEBHOOK_DELIVERY, env) },
});

/**
 * API_BASE_URL: the API's public base URL (ending in /api/v1) where the request cannot tell it
 * trustworthily, as on the local stack (which sets it). Read on its own: the public document
 * endpoints need nothing else.
 */
export function configuredApiBaseUrl(env: Env = process.env): string | undefined {
  return readGroup(REFERENCE, env).apiBaseUrl;
}

export type LifecycleConfig = Pick<
  ServiceConfig,
  'region' | 'taskTimeoutSeconds' | 'testModeDelaySeconds' | 'testModeConcurrency' | 'simulatedOutputs' | 'circuit' | 'submissions' | 'copyWorkerFunction'
>;
/**
 * What the task lifecycle reads besides the providers (app-context/lifecycle.ts): its own
 * settings, the circuits, the submission queue and the copy worker. No table or bucket: the
 * stores and the media part read their own groups.
 */
export function lifecycleConfig(env: Env = process.env): LifecycleConfig {
  const { callbackSilenceSeconds, graceSeconds, ...task } = readGroup(LIFECYCLE, env);
  return {
    region: readSetting(REGION, env),
    ...task,
    ...defined(readGroup(COPIES, env)),
    submissions: { ...defined(readGroup(SUBMISSIONS, env)), callbackSilenceSeconds, graceSeconds },
    circuit: readGroup(CIRCUIT, env),
  };
}

/** The copy worker's ffmpeg (app-context/copy-worker.ts): no other function makes thumbnails. */
export const thumbnailsConfig = (env: Env = process.env): Pick<ServiceConfig, 'ffmpegPath'> => defined(readGroup(THUMBNAILS, env));

/** Everything above at once: the local stack, the tools and the tests (a Lambda's parts read their own groups). */
export function loadServiceConfig(env: Env = process.env): ServiceConfig {
  const { identity, signupCredits, defaultRateLimit } = identityConfig(env);
  return {
    ...tableConfig(env),
    ...readGroup(GATEWAY, env),
    defaultRateLimit,
    ...mediaConfig(env),
    ...lifecycleConfig(env),
    ...thumbnailsConfig(env),
    webhooks: webhookConfig(env).webhooks,
    ...(identity && { identity }),
    signupCredits,
  };
}
