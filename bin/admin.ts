#!/usr/bin/env -S npx tsx
/**
 * `npm run admin -- <command>`: operators' tool for accounts, credits and API keys, working on
 * the same tables as the API. Prints one JSON object; exits 2 on a usage mistake, 1 on failure.
 */
import { DomainError } from '../functions/domain/errors';
import { parseCommand, runCommand, UsageError, USAGE } from './admin/commands';
import { connect } from './admin/target';

async function main(argv: string[]): Promise<number> {
  const command = parseCommand(argv);
  if (command.name === 'help') {
    console.log(USAGE);
    return 0;
  }
  const ctx = connect(command.target);
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
    const hint = /ECONNREFUSED/.test(String((error as { cause?: unknown })?.cause ?? message))
      ? ' Is the local stack running (npm start)? Use --aws for the deployed tables.'
      : '';
    console.error(`admin: ${message || (error as Error)?.name}${hint}`);
    process.exit(1);
  },
);
