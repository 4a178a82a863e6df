import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { appContext, type AppContext } from '#app-context';
import { loadConfig } from '#config';
import { ensureTable } from '#adapters/dynamodb/ensure-table';
import { apiRequestListener } from './api-server';
import { createLocalHttpServer } from './http-server';
import { lambdaContext } from '../lambda-context.cjs';
import { loadHandler } from './lambda-runtime';
import { mediaRoute, MEDIA_PATH } from './media-route';
import { ensureConsoleBuilt } from '#lib/console-build';
import { consoleRoute, CONSOLE_PATH, type ConsoleRuntimeConfig } from './console-route';
import { ensureDemoAccount, type DemoAccount } from './demo-account';
import { startDynamoDbLocal } from './dynamodb-local';
import { startS3Local } from './s3-local';
import { startLocalBilling } from './billing';
import type { StripeSimulator } from './stripe-simulator';
import { startIdentityServer, type IdentityServer } from './identity/server';
import { CUSTOMER_BUCKET, type LocalSettings } from './settings';
import { InProcessCopyQueue } from '#adapters/copy-queues';
import { LOCAL_WEBHOOK_RETRY_SCHEDULE } from '#config';
import { localQueue } from '#app-context/queues';
import type { InProcessQueue } from '#adapters/queues/in-process-queue';
import { API_PREFIX } from '#http/routes/index';
import { loadSpecs } from '#spec/registry';

/**
 * The whole local stack in one call: DynamoDB Local and s3rver (or ones already running),
 * the table, the demo account and the API server. `npm start` and the end-to-end tests both
 * come through here, so the tests exercise exactly what a developer runs.
 */
export interface LocalStack {
  baseUrl: string;
  apiPort: number;
  dynamodbEndpoint: string;
  s3Endpoint: string;
  /** The local identity server: Cognito's API, the user pool and its app client. */
  identity: Omit<IdentityServer, 'stop' | 'adminCredentials'>;
  /** The data folder (DynamoDB Local's and s3rver's unless given, the identity server's). */
  dataDir: string;
  demo: DemoAccount;
  context: AppContext;
  /** The Stripe simulator billing talks to (unless STRIPE_SECRET_KEY named Stripe's own). */
  stripe?: StripeSimulator;
  stop(): Promise<void>;
}

export interface LocalStackOverrides {
  /** Use this DynamoDB endpoint instead of starting DynamoDB Local. */
  dynamodbEndpoint?: string;
  /** Use this S3 endpoint instead of starting s3rver. */
  s3Endpoint?: string;
  /** Serve no console at /console/ (and build none): the API's own tests. */
  withoutConsole?: boolean;
  /**
   * The API answers 503 "starting" until this settles too (a test of that answer: the handlers'
   * stores are per process, so a second stack in a test process is otherwise ready at once).
   */
  holdReady?: Promise<void>;
}

export async function startLocalStack(
  settings: LocalSettings,
  overrides: LocalStackOverrides = {},
): Promise<LocalStack> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn().catch(() => undefined);
  };
  try {
    // Built (when its sources changed) while the databases start; a failed build leaves the API up.
    const consoleBuild = overrides.withoutConsole
      ? Promise.resolve(undefined)
      : ensureConsoleBuilt().then(
          (build) => build.dir,
          (error: unknown) => {
            console.error(`The console could not be built, so /console/ is not served: ${error instanceof Error ? error.message : String(error)}`);
            return undefined;
          },
        );
    let dynamodbEndpoint = overrides.dynamodbEndpoint;
    if (!dynamodbEndpoint) {
      const dynamo = await startDynamoDbLocal({
        host: settings.host,
        port: settings.dynamodbPort,
        dataDir: path.join(settings.dataDir, 'dynamodb'),
      });
      stops.push(dynamo.stop);
      dynamodbEndpoint = dynamo.endpoint;
    }
    let s3Endpoint = overrides.s3Endpoint;
    if (!s3Endpoint) {
      const s3 = await startS3Local({
        host: settings.host,
        port: settings.s3Port,
        directory: path.join(settings.dataDir, 's3'),
        buckets: [settings.mediaBucket, CUSTOMER_BUCKET],
      });
      stops.push(s3.stop);
      s3Endpoint = s3.endpoint;
    }

    // Cognito's stand-in: its issuer and client go to the authorizer's configuration below.
    const identity = await startIdentityServer({
      host: settings.host,
      port: settings.identityPort ?? 0,
      dataDir: path.join(settings.dataDir, 'identity'),
      region: settings.region,
      sendCode: ({ email, code, purpose }) =>
        console.log(`identity: ${purpose === 'signup' ? 'verification' : 'password reset'} code for ${email}: ${code} (the deployed pool would email it)`),
    });
    stops.push(identity.stop);

    // Listen first: the public media URL the handlers are configured with names the port.
    // Until the API is ready below, requests get 503 (bin/local-stack/http-server.ts).
    const { server, ready } = createLocalHttpServer();
    const apiPort = await listen(server, settings.apiPort, settings.host);
    stops.push(() => close(server));
    const baseUrl = `http://${settings.host}:${apiPort}`;

    const billing = await startLocalBilling(`${baseUrl}${API_PREFIX}/billing/stripe-webhook`, settings.dataDir);
    stops.push(billing.stop);

    // The handlers read their configuration from the environment, as on Lambda.
    Object.assign(process.env, {
      ...billing.env,
      TABLE_NAME: settings.tableName,
      AWS_REGION: settings.region,
      DYNAMODB_ENDPOINT: dynamodbEndpoint,
      S3_ENDPOINT: s3Endpoint,
      MEDIA_BUCKET: settings.mediaBucket,
      PUBLIC_MEDIA_BASE_URL: `${baseUrl}${MEDIA_PATH.slice(0, -1)}`,
      API_BASE_URL: settings.apiBaseUrl ?? `${baseUrl}${API_PREFIX}`,
      // Where the provider calls back: this server (a real provider needs a tunnel: set CALLBACK_BASE_URL).
      CALLBACK_BASE_URL: process.env.CALLBACK_BASE_URL ?? `${baseUrl}${API_PREFIX}`,
      // The simulated provider signs its callbacks with this (a fresh one per start, unless given).
      SIM_CALLBACK_SECRET: process.env.SIM_CALLBACK_SECRET ?? `whsec_${randomBytes(24).toString('base64')}`,
      PROVIDER: process.env.PROVIDER ?? 'simulated',
      // Checkout and the portal send the holder back to the console's Billing page.
      BILLING_RETURN_URL: process.env.BILLING_RETURN_URL ?? `${baseUrl}${CONSOLE_PATH}billing`,
      // Invitation mail links to the console's Invitations page (printed in this log: no MAIL_FROM here).
      CONSOLE_URL: process.env.CONSOLE_URL ?? `${baseUrl}${CONSOLE_PATH.slice(0, -1)}`,
      IDENTITY_ISSUER: identity.issuer,
      IDENTITY_CLIENT_ID: identity.clientId,
      // A developer's receiver runs on this machine, and retries should be seen while watching.
      WEBHOOK_ALLOW_LOOPBACK: process.env.WEBHOOK_ALLOW_LOOPBACK ?? 'true',
      WEBHOOK_RETRY_SCHEDULE: process.env.WEBHOOK_RETRY_SCHEDULE ?? LOCAL_WEBHOOK_RETRY_SCHEDULE.join(','),
      // Output deliveries retry within a minute here (79 minutes deployed), so a retry is seen while watching.
      DELIVERY_RETRY_SCHEDULE: process.env.DELIVERY_RETRY_SCHEDULE ?? '1,2,5,10,30',
      // One readable line per log entry instead of Lambda's JSON (LOG_FORMAT=json to compare).
      LOG_FORMAT: process.env.LOG_FORMAT ?? 'pretty',
    });
    const config = loadConfig();
    const context = appContext();
    await ensureTable(context.db);
    const demo = await ensureDemoAccount(context, settings.dataDir);

    const consoleDir = await consoleBuild;
    await overrides.holdReady;
    const media = mediaRoute(() => context.storage);
    const consolePages = consoleRoute({
      dir: () => consoleDir,
      config: () => consoleConfig(`${baseUrl}${API_PREFIX}`, settings, identity),
      // The browser calls the identity server on its own port.
      origins: () => ({ connect: [identity.endpoint], media: [] }),
    });
    ready(
      apiRequestListener({
        authCacheTtlSeconds: config.authCacheTtlSeconds,
        fallthrough: async (req, res) => (await media(req, res)) || (await consolePages(req, res)),
      }),
    );
    // The schedule's and the SQS event source mappings' stand-ins, from the specs' triggers: the
    // same handlers, fed the same event shape. One consumer per queue and process: a second stack
    // in the same process (tests) shares the first's.
    const specs = loadSpecs();
    const sweepers = specs.filter((spec) => spec.trigger.kind === 'schedule').map((spec) => startSchedule(spec.name, settings.sweepIntervalSeconds));
    const consumers = specs.flatMap((spec) => (spec.trigger.kind === 'queue' ? [consumeLocally(localQueue(spec.trigger.queue), spec.name)] : []));
    stops.push(async () => {
      // Callbacks still scheduled by the simulated providers would reach a stopped server.
      context.lifecycle.provider.close?.();
      context.lifecycle.testProvider?.close?.();
      for (const sweeper of sweepers) sweeper.stop();
      await Promise.all(consumers.map((stopConsumer) => stopConsumer()));
      if (context.copyQueue instanceof InProcessCopyQueue) await context.copyQueue.drain();
    });

    return {
      baseUrl: `${baseUrl}${API_PREFIX}`,
      apiPort,
      dynamodbEndpoint,
      s3Endpoint,
      identity: { endpoint: identity.endpoint, issuer: identity.issuer, userPoolId: identity.userPoolId, clientId: identity.clientId },
      dataDir: settings.dataDir,
      demo,
      context,
      ...(billing.simulator && { stripe: billing.simulator }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** /console/config.json: the console calls this stack's API on its own origin. */
function consoleConfig(apiUrl: string, settings: LocalSettings, identity: Pick<IdentityServer, 'endpoint' | 'clientId'>): ConsoleRuntimeConfig {
  return {
    apiBaseUrl: API_PREFIX,
    publicApiUrl: settings.apiBaseUrl ?? apiUrl,
    identityEndpoint: identity.endpoint,
    userPoolClientId: identity.clientId,
    region: settings.region,
  };
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`Port ${port} is in use; set PORT to a free port.`) : error),
    );
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Feeds an in-process queue to its consumer's handler, unless this process already does; returns the stop. */
function consumeLocally(queue: InProcessQueue<unknown>, handler: string): () => Promise<void> {
  if (queue.running) return async () => undefined;
  queue.start((event) => loadHandler(handler)(event, lambdaContext(handler, { requestId: `${handler}-${Date.now()}` })));
  return () => queue.stop();
}

/** The local stand-in for an EventBridge schedule (the every-minute sweep): the same handler, on a timer. */
function startSchedule(handler: string, intervalSeconds: number) {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    loadHandler(handler)({}, lambdaContext(handler, { requestId: `sweep-${Date.now()}` }))
      .catch((error: unknown) => console.error(JSON.stringify({ level: 'error', message: 'sweep failed', error: String(error) })))
      .finally(() => (running = false));
  }, intervalSeconds * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
