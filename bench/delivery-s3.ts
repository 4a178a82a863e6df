/**
 * One s3rver in its own process for bench/delivery.ts (so the source and the customer's store do
 * not share an event loop with each other or with the delivery worker). Prints its endpoint as a
 * JSON line, then serves until killed.
 * Args: <directory> <bucket>
 */
import { startS3Local } from '#bin/local-stack/s3-local';

import { runBench } from './load';

runBench(async () => {
  const [directory, bucket] = process.argv.slice(2);
  const s3 = await startS3Local({ host: '127.0.0.1', port: 0, directory: directory!, buckets: [bucket!] });
  console.log(JSON.stringify({ endpoint: s3.endpoint }));
  process.on('SIGTERM', () => void s3.stop().then(() => process.exit(0)));
});
