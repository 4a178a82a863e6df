#!/usr/bin/env -S npx tsx
/**
 * `npm start`: the whole API on this machine. DynamoDB Local and s3rver keep their data under
 * .data/, so a restart keeps accounts and tasks. Ctrl-C stops everything this started.
 */
import path from 'node:path';
import { banner } from './local-stack/banner';
import { SIMULATOR_FILE } from './local-stack/billing';
import { startLocalStack } from './local-stack/stack';
import { CUSTOMER_BUCKET, localSettings, type LocalSettings } from './local-stack/settings';
import { RETENTION } from '#config/retention';
import { addressFile, removeAddresses, writeAddresses } from './local-stack/discovery';

async function main(): Promise<void> {
  const settings = localSettings();
  const stack = await startLocalStack(settings);
  const account = await stack.context.accounts.get(stack.demo.accountId);
  // The CLIs (admin, vidgen, npm run invoke) read this to find the stack on whatever ports it got.
  writeAddresses(settings.dataDir, {
    baseUrl: stack.baseUrl,
    dynamodbEndpoint: stack.dynamodbEndpoint,
    s3Endpoint: stack.s3Endpoint,
    publicMediaBaseUrl: process.env.PUBLIC_MEDIA_BASE_URL!,
    tableName: settings.tableName,
    mediaBucket: settings.mediaBucket,
    region: settings.region,
    identityEndpoint: stack.identity.endpoint,
    userPoolId: stack.identity.userPoolId,
    userPoolClientId: stack.identity.clientId,
    pid: process.pid,
  });

  console.log(
    banner({
      baseUrl: stack.baseUrl,
      apiKey: stack.demo.apiKey,
      accountId: stack.demo.accountId,
      credits: account?.credits ?? 0,
      created: stack.demo.created,
      dynamodbEndpoint: stack.dynamodbEndpoint,
      tableName: settings.tableName,
      s3Endpoint: stack.s3Endpoint,
      mediaBucket: settings.mediaBucket,
      customerBucket: CUSTOMER_BUCKET,
      // What the stack gave the handlers (stack.ts sets the local schedule unless given).
      deliveryRetrySchedule: process.env.DELIVERY_RETRY_SCHEDULE!,
      retentionDaySeconds: process.env.RETENTION_DAY_SECONDS ?? String(RETENTION.daySeconds.default),
      identity: stack.identity,
      ...(stack.stripe && { stripeSimulatorUrl: stack.stripe.url }),
      stripeTokenFile: path.join(settings.dataDir, SIMULATOR_FILE),
      dataDir: settings.dataDir,
      otherShells: otherShells(settings, stack.baseUrl),
    }),
  );

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the local stack...`);
    removeAddresses(settings.dataDir);
    stack.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // npm runs this file in a child process (node --import tsx, not tsx's CLI, whose signal relay
  // gives a busy child 30 ms to claim Ctrl-C before killing it): if npm is killed outright
  // (kill -9), nobody would stop us, and we would keep the ports. A changed parent pid means we
  // were orphaned.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && shutdown('parent process gone'), 1_000).unref();
}

/**
 * On other ports or another data folder, what a second shell should export: admin, vidgen and
 * npm run invoke find this stack through its address file, but curl and other tools do not.
 */
function otherShells(settings: LocalSettings, baseUrl: string): string[] {
  const defaults = localSettings({});
  const changed = (['PORT', 'DYNAMODB_PORT', 'S3_PORT', 'IDENTITY_PORT', 'DATA_DIR'] as const).filter((name) => process.env[name]);
  const onDefaults =
    settings.apiPort === defaults.apiPort &&
    settings.dynamodbPort === defaults.dynamodbPort &&
    settings.s3Port === defaults.s3Port &&
    settings.identityPort === defaults.identityPort &&
    settings.dataDir === defaults.dataDir;
  if (onDefaults) return [];
  const exports = changed.map((name) => `${name}=${name === 'DATA_DIR' ? settings.dataDir : process.env[name]}`);
  return [
    `  Not the default ports: the CLIs find this stack through ${addressFile(settings.dataDir)}.`,
    '  In another shell, paste:',
    `    export BASE=${baseUrl} VIDGEN_BASE_URL=${baseUrl}${exports.length ? ` ${exports.join(' ')}` : ''}`,
    '',
  ];
}

main().catch((error: unknown) => {
  console.error(`Could not start the local stack: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
