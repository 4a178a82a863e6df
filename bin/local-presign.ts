#!/usr/bin/env -S npx tsx
/**
 * `npm run -s local:presign -- KEY`: a presigned PUT URL into the running local stack's second
 * bucket (customer-deliveries), made as a customer's S3 SDK makes one, for trying
 * `output_destination` by hand (docs/storage.md, bin/demo/storage.sh). `--get` prints a
 * presigned GET URL of the same object instead, to read back what was delivered.
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { parseArgs } from 'node:util';
import { createS3Client } from '#adapters/s3/s3-client';
import { describeParseArgsError } from './cli/parse-args-error';
import { localTarget } from './local-stack/discovery';
import { CUSTOMER_BUCKET } from './local-stack/settings';

const USAGE = `Usage: npm run -s local:presign -- [--get] [--expires SECONDS] KEY
Prints a presigned PUT URL (GET with --get) of KEY in the local stack's ${CUSTOMER_BUCKET} bucket,
valid for SECONDS (default 7200: a delivery's retries need more than an hour).`;

async function main(): Promise<number> {
  const options = { get: { type: 'boolean' }, expires: { type: 'string', default: '7200' }, help: { type: 'boolean' } } as const;
  let parsed;
  try {
    parsed = parseArgs({ options, allowPositionals: true });
  } catch (error) {
    console.error(`${describeParseArgsError(error, Object.keys(options))}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) return (console.log(USAGE), 0);
  const expiresIn = Number(values.expires);
  if (positionals.length !== 1 || positionals[0] === '' || !Number.isInteger(expiresIn) || expiresIn < 1) {
    console.error(USAGE);
    return 2;
  }
  const target = localTarget();
  const s3 = createS3Client({ region: target.region, endpoint: target.s3Endpoint });
  try {
    const input = { Bucket: CUSTOMER_BUCKET, Key: positionals[0] };
    console.log(await getSignedUrl(s3, values.get ? new GetObjectCommand(input) : new PutObjectCommand(input), { expiresIn }));
    return 0;
  } finally {
    s3.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`local:presign: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
