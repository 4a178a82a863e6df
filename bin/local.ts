#!/usr/bin/env -S npx tsx
/**
 * `npm start`: the whole API on this machine. DynamoDB Local and s3rver keep their data under
 * .data/, so a restart keeps accounts and tasks. Ctrl-C stops everything this started.
 */
import { startLocalStack } from './local-stack/stack';
import { localSettings } from './local-stack/settings';

async function main(): Promise<void> {
  const settings = localSettings();
  const stack = await startLocalStack(settings);
  const account = await stack.context.accounts.get(stack.demo.accountId);

  console.log(
    [
      '',
      'Video generation API: local stack is up',
      '',
      `  Base URL        ${stack.baseUrl}`,
      `  API key         ${stack.demo.apiKey}`,
      `  Demo account    ${stack.demo.accountId} (${account?.credits ?? 0} credits)${stack.demo.created ? ', created now' : ''}`,
      `  DynamoDB Local  ${stack.dynamodbEndpoint} (table ${settings.tableName})`,
      `  S3 (s3rver)     ${stack.s3Endpoint} (bucket ${settings.mediaBucket})`,
      `  Data folder     ${settings.dataDir}`,
      '',
      `  Try: curl -H "Authorization: Bearer ${stack.demo.apiKey}" ${stack.baseUrl}/credits`,
      '',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the local stack...`);
    stack.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // tsx runs this file in a child process: if tsx is killed outright (kill -9), nobody would stop
  // us, and we would keep the ports. A changed parent pid means we were orphaned.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && shutdown('parent process gone'), 1_000).unref();
}

main().catch((error: unknown) => {
  console.error(`Could not start the local stack: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
