#!/usr/bin/env -S npx tsx
/**
 * `npm run client:types`: generates the client's types (client/src/generated/openapi.ts) from
 * docs/openapi.json with openapi-typescript, so the client cannot drift from the published
 * document. `--check` writes nothing and exits 1 if the file is stale; `--print` writes the
 * generated text to stdout instead of the file (the freshness test runs it that way, since jest
 * cannot load openapi-typescript's ES-module dependencies).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { OPENAPI_FILE } from './openapi';

export const CLIENT_TYPES_FILE = path.resolve(__dirname, '..', 'client', 'src', 'generated', 'openapi.ts');

export async function renderClientTypes(): Promise<string> {
  const ast = await openapiTS(readFileSync(OPENAPI_FILE, 'utf8'), {
    // Request bodies: a field with a default is still optional to send (the API fills it in).
    defaultNonNullable: false,
    silent: true,
  });
  return `${COMMENT_HEADER}${astToString(ast)}`;
}

async function main(argv: string[]): Promise<number> {
  const text = await renderClientTypes();
  const relative = path.relative(process.cwd(), CLIENT_TYPES_FILE);
  if (argv.includes('--print')) {
    // process.exit does not wait for a pipe to drain: 330 KB were cut short on a busy machine.
    await new Promise<void>((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())));
    return 0;
  }
  if (argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(CLIENT_TYPES_FILE, 'utf8');
    } catch {
      // missing: stale
    }
    if (current === text) {
      console.log(`${relative} is up to date.`);
      return 0;
    }
    console.error(`${relative} is out of date: run npm run client:types.`);
    return 1;
  }
  writeFileSync(CLIENT_TYPES_FILE, text);
  console.log(`Wrote ${relative} (${Buffer.byteLength(text)} bytes).`);
  return 0;
}

if (require.main === module) main(process.argv.slice(2)).then((code) => process.exit(code));
