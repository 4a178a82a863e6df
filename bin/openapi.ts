#!/usr/bin/env -S npx tsx
/**
 * `npm run openapi`: writes the OpenAPI document to docs/openapi.json (servers: the local stack
 * and the deployed-URL template). `--check` writes nothing and exits 1 if the file is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '#openapi/document';

export const OPENAPI_FILE = path.resolve(__dirname, '..', 'docs', 'openapi.json');

export const renderOpenApiFile = (): string => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;

function main(argv: string[]): number {
  const text = renderOpenApiFile();
  const relative = path.relative(process.cwd(), OPENAPI_FILE);
  if (argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(OPENAPI_FILE, 'utf8');
    } catch {
      // missing: stale
    }
    if (current === text) {
      console.log(`${relative} is up to date.`);
      return 0;
    }
    console.error(`${relative} is out of date: run npm run openapi.`);
    return 1;
  }
  writeFileSync(OPENAPI_FILE, text);
  console.log(`Wrote ${relative} (${Buffer.byteLength(text)} bytes).`);
  return 0;
}

if (require.main === module) process.exit(main(process.argv.slice(2)));
