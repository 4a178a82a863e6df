import { DEFAULT_CIRCUIT_SETTINGS } from '#domain/providers/circuit-breaker';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '#domain/accounts/rate-limit';
import { SIMULATED_DEFAULTS } from '#providers/simulated/defaults';
import { ConfigError, flag, oneOf, optional, origins, required, secondsList, url, wholeNumber, type Env } from './env';

/**
 * What every function reads from its environment, once per cold start. A required variable
 * that is missing or a value that does not parse stops the function at once with a message
 * naming the variable, instead of limping on with a silent default. The providers' settings
 * (./providers.ts) and billing's (./billing.ts) are read only by the functions that use them.
 */
export const SIMULATED_OUTPUTS = ['rendered', 'samples'] as const;
export type SimulatedOutputs = (typeof SIMULATED_OUTPUTS)[number];

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

export interface CircuitConfig {
  /** Consecutive failed creates that open a provider's circuit. */
  failureThreshold: number;
  /** How long an open circuit skips its provider before one probe. */
  coolDownSeconds: number;
}

/** How creates reach the provider (docs/tasks.md, "Submission" and "Provider callbacks"). */
export interface SubmissionConfig {
  /** The SQS queue of creates waiting for a turn; unset: an in-process queue (local stack, tests). */
  queueUrl?: string;
  /**
   * The API's public base URL (ending in /api/v1) where the provider reaches our callback route;
   * unset: jobs are not asked to call back, and polls follow them as before.
   */
  callbackBaseUrl?: string;
  /** A job that calls back is polled only after this long without news. */
  callbackSilenceSeconds: number;
  /** How long a task whose create went unanswered waits for its job's callback before the refund. */
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

/** Defaults shared with the CDK stack, which sets the same variables on every function. */
export const CONFIG_DEFAULTS = {
  authCacheTtlSeconds: 60,
  defaultRateLimit: DEFAULT_RATE_LIMIT_PER_MINUTE,
  simDelaySeconds: SIMULATED_DEFAULTS.delaySeconds,
  taskTimeoutSeconds: 30 * 60,
  callbackSilenceSeconds: 120,
  submissionGraceSeconds: 600,
  circuitFailureThreshold: DEFAULT_CIRCUIT_SETTINGS.failureThreshold,
  circuitCoolDownSeconds: DEFAULT_CIRCUIT_SETTINGS.coolDownMs / 1000,
  /** A new holder's live balance: nothing until they buy credits (the test balance has its own 1000). */
  signupCredits: 0,
  /** Growing delays over more than 24 h (27.6 h in all): the deployed schedule. */
  webhookRetrySchedule: [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000],
} as const;

/** What the local stack uses: the first retries within seconds, so they are seen while watching. */
export const LOCAL_WEBHOOK_RETRY_SCHEDULE = [2, 10, 30, 120, 600, 3_600, 21_600, 64_800] as const;

/**
 * API_BASE_URL: the API's public base URL (ending in /api/v1) where the request cannot tell it
 * trustworthily, as on the local stack (which sets it). Read on its own, not in loadServiceConfig: the
 * public document endpoints need nothing else.
 */
export function configuredApiBaseUrl(env: Env = process.env): string | undefined {
  return optional(env, 'API_BASE_URL') && url(env, 'API_BASE_URL');
}

export function loadServiceConfig(env: Env = process.env): ServiceConfig {
  const dynamodbEndpoint = optional(env, 'DYNAMODB_ENDPOINT');
  const s3Endpoint = optional(env, 'S3_ENDPOINT');
  const copyWorkerFunction = optional(env, 'COPY_WORKER_FUNCTION');
  const ffmpegPath = optional(env, 'FFMPEG_PATH');
  const webhookQueueUrl = optional(env, 'WEBHOOK_QUEUE_URL');
  return {
    tableName: required(env, 'TABLE_NAME'),
    region: required(env, 'AWS_REGION'),
    ...(dynamodbEndpoint && { dynamodbEndpoint }),
    authCacheTtlSeconds: wholeNumber(env, 'AUTH_CACHE_TTL_SECONDS', CONFIG_DEFAULTS.authCacheTtlSeconds, 0),
    defaultRateLimit: wholeNumber(env, 'DEFAULT_RATE_LIMIT', CONFIG_DEFAULTS.defaultRateLimit, 1),
    mediaBucket: required(env, 'MEDIA_BUCKET'),
    ...(s3Endpoint && { s3Endpoint }),
    publicMediaBaseUrl: url(env, 'PUBLIC_MEDIA_BASE_URL'),
    outputOrigins: origins(env, 'OUTPUT_ALLOWED_ORIGINS'),
    testModeDelaySeconds: wholeNumber(env, 'SIM_DELAY_SECONDS', CONFIG_DEFAULTS.simDelaySeconds, 0),
    simulatedOutputs: oneOf(env, 'SIM_OUTPUTS', SIMULATED_OUTPUTS, 'rendered'),
    taskTimeoutSeconds: wholeNumber(env, 'TASK_TIMEOUT_SECONDS', CONFIG_DEFAULTS.taskTimeoutSeconds, 60),
    ...(copyWorkerFunction && { copyWorkerFunction }),
    ...(ffmpegPath && { ffmpegPath }),
    webhooks: {
      ...(webhookQueueUrl && { queueUrl: webhookQueueUrl }),
      retrySchedule: secondsList(env, 'WEBHOOK_RETRY_SCHEDULE', CONFIG_DEFAULTS.webhookRetrySchedule),
      allowLoopback: flag(env, 'WEBHOOK_ALLOW_LOOPBACK'),
    },
    submissions: submissions(env),
    circuit: {
      failureThreshold: wholeNumber(env, 'CIRCUIT_FAILURE_THRESHOLD', CONFIG_DEFAULTS.circuitFailureThreshold, 1),
      coolDownSeconds: wholeNumber(env, 'CIRCUIT_COOL_DOWN_SECONDS', CONFIG_DEFAULTS.circuitCoolDownSeconds, 1),
    },
    ...identity(env),
    signupCredits: wholeNumber(env, 'SIGNUP_CREDITS', CONFIG_DEFAULTS.signupCredits, 0),
  };
}

/** Both or neither: an issuer without its client (or the reverse) is a broken deploy. */
function identity(env: Env): Pick<ServiceConfig, 'identity'> {
  const issuer = optional(env, 'IDENTITY_ISSUER');
  const clientId = optional(env, 'IDENTITY_CLIENT_ID');
  if (!issuer && !clientId) return {};
  if (!issuer || !clientId) throw new ConfigError('IDENTITY_ISSUER and IDENTITY_CLIENT_ID go together: set both or neither.');
  return { identity: { issuer: url(env, 'IDENTITY_ISSUER'), clientId } };
}

function submissions(env: Env): SubmissionConfig {
  const queueUrl = optional(env, 'SUBMISSION_QUEUE_URL');
  const callbackBaseUrl = optional(env, 'CALLBACK_BASE_URL') && url(env, 'CALLBACK_BASE_URL');
  return {
    ...(queueUrl && { queueUrl }),
    ...(callbackBaseUrl && { callbackBaseUrl }),
    callbackSilenceSeconds: wholeNumber(env, 'CALLBACK_SILENCE_SECONDS', CONFIG_DEFAULTS.callbackSilenceSeconds, 1),
    graceSeconds: wholeNumber(env, 'SUBMISSION_GRACE_SECONDS', CONFIG_DEFAULTS.submissionGraceSeconds, 1),
  };
}

