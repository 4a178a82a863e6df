/**
 * The API server alone, against a DynamoDB Local and an s3rver that are already running: the
 * process `npm run chaos` (bin/chaos.ts) kills with SIGKILL and starts again, while the data
 * services outlive it. Settings come from the environment as for `npm start` (PORT, DATA_DIR,
 * TABLE_NAME, MEDIA_BUCKET, SWEEP_INTERVAL_SECONDS, TASK_TIMEOUT_SECONDS, SIM_DELAY_SECONDS...).
 * Prints one line `{"chaosReady":true,...}` on stdout once it answers requests.
 */
import { localSettings } from '../local-stack/settings';
import { startLocalStack } from '../local-stack/stack';

const READY_MARK = 'chaosReady';

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required (the endpoint bin/chaos.ts started).`);
  return value;
}

async function main(): Promise<void> {
  const stack = await startLocalStack(localSettings(), {
    dynamodbEndpoint: requiredEnv('CHAOS_DYNAMODB_ENDPOINT'),
    s3Endpoint: requiredEnv('CHAOS_S3_ENDPOINT'),
  });
  process.stdout.write(`${JSON.stringify({ [READY_MARK]: true, baseUrl: stack.baseUrl, pid: process.pid })}\n`);
  const stop = () => void stack.stop().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(`chaos API child could not start: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
