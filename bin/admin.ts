#!/usr/bin/env -S npx tsx
/**
 * `npm run admin -- <command>`: operators' tool for accounts, credits and API keys, working on
 * the same tables as the API. Prints one JSON object; exits 2 on a usage mistake, 1 on failure.
 */
import { DomainError } from '#domain/shared/errors';
import { parseCommand, runCommand, UsageError, USAGE } from './admin/commands';
import { connect, type AdminConnection } from './admin/target';
import { notRunningHint } from './local-stack/discovery';

let connection: AdminConnection | undefined;

async function main(argv: string[]): Promise<number> {
  const command = parseCommand(argv);
  if (command.name === 'help') {
    console.log(USAGE);
    return 0;
  }
  const ctx = (connection = connect(command.target));
  try {
    const result = await runCommand(command, ctx);
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } finally {
    ctx.db.doc.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`admin: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (error instanceof DomainError) {
      console.error(`admin: ${error.message}`);
      process.exit(1);
    }
    const message = error instanceof Error ? error.message : String(error);
    const refused = /ECONNREFUSED/.test(String((error as { cause?: unknown })?.cause ?? message));
    const hint = !refused
      ? ''
      : connection?.local
        ? ` ${notRunningHint(connection.local, 'DynamoDB Local', connection.local.dynamodbEndpoint, 'DYNAMODB_PORT (or DYNAMODB_ENDPOINT)')} For the deployed table: --aws.`
        : ' Use --aws with TABLE_NAME and AWS_REGION for the deployed tables.';
    console.error(`admin: ${refused && connection?.local ? hint.trim() : `${message || (error as Error)?.name}${hint}`}`);
    process.exit(1);
  },
);
