/**
 * The delivery worker for bench/delivery.ts, in its own process so its memory is its own: our
 * bucket (ObjectStorage.openForDelivery) streamed into safe-fetch's PUT through the OutputSender,
 * built as functions/app-context/deliveries.ts builds them. Run with `node --expose-gc --import tsx`.
 * Args: <source endpoint> <source bucket> <warm-up key> <warm-up URL> <key> <URL> [file to send instead of key]
 * Prints one JSON line: idle RSS, peak RSS (sampled every 2 ms and the kernel's VmHWM, reset after
 * the idle measurement), the send's duration and outcome, the RSS after a gc() and the time to read
 * our object alone.
 */
import { createReadStream, readFileSync, statSync, writeFileSync } from 'node:fs';
import { outputSender } from '#adapters/output-sender';
import { ObjectStorage } from '#adapters/s3/object-storage';
import { createS3Client } from '#adapters/s3/s3-client';
import { createSafeFetcher } from '#adapters/safe-fetch';

const [endpoint, bucket, warmKey, warmUrl, key, url, fromFile] = process.argv.slice(2) as [string, string, string, string, string, string, string?];
const exposedGc = (globalThis as { gc?: () => void }).gc;
if (!exposedGc) throw new Error('Run with node --expose-gc.');
const gc: () => void = exposedGc;

const storage = new ObjectStorage(createS3Client({ region: 'local', endpoint }), bucket, 'http://127.0.0.1/media');
// As deliveryDeps(): the answer's body bounded, loopback allowed as on the local stack.
const fetcher = createSafeFetcher({ allowedOrigins: [], maxBytes: 64 * 1024, timeoutMs: 30_000, allowLoopback: true });
// With a 7th argument, the big object is read from that file instead (the PUT side alone, as curl reads).
const open = (objectKey: string) =>
  fromFile && objectKey === key ? Promise.resolve({ stream: createReadStream(fromFile), size: statSync(fromFile).size }) : storage.openForDelivery(objectKey);
const sender = outputSender(open, fetcher);

async function main(): Promise<void> {
  const warm = await sender.send({ url: warmUrl, headers: {} }, warmKey);
  if (warm.type !== 'delivered') throw new Error(`Warm-up not delivered: ${JSON.stringify(warm)}`);

  gc();
  const idleSamples: number[] = [];
  for (let i = 0; i < 20; i += 1) {
    idleSamples.push(process.memoryUsage.rss());
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const idle = idleSamples.sort((a, b) => a - b)[10]!;
  // Writing 5 to clear_refs resets VmHWM (Linux ≥ 4.0): from here it is the delivery's peak.
  writeFileSync('/proc/self/clear_refs', '5');

  let sampledPeak = 0;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
  }, 2);
  const started = performance.now();
  const outcome = await sender.send({ url, headers: {} }, key);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
  // What the send left behind once collected (a leak would show here), and how long reading our
  // object alone takes (the part of the send curl, reading a local file, does not do).
  gc();
  const afterGc = process.memoryUsage.rss();
  const readStarted = performance.now();
  const { stream } = await storage.openForDelivery(key);
  for await (const chunk of stream) void chunk;
  const sourceReadSeconds = (performance.now() - readStarted) / 1000;
  console.log(JSON.stringify({ outcome, seconds, idle, sampledPeak, hwm, afterGc, sourceReadSeconds }));
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
