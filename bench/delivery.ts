/**
 * Delivery of a 100 MB output to the customer's storage (issue 35, design-35 §8), figures only:
 * two s3rver processes (ours as the source, the customer's store as the destination); the worker
 * (bench/delivery-child.ts, its own process) streams our object into a presigned PUT through the
 * OutputSender and safe-fetch, as deliveryDeps() builds them. Against `curl -T` of the same file to
 * the same kind of presigned URL: 3 runs each, alternating order, medians; then 3 runs of the worker
 * sending the same local file as curl (the PUT side alone).
 * Prints the worker's peak RSS above its idle RSS (goal < 64 MB: streamed), MB/s of both and the
 * ratio (goal ≥ 0.8), whether the delivered bytes' sha256 equals the source's, and the load average.
 * Writes out/bench-delivery.json.
 * Run: npm run bench:delivery   (BENCH_DELIVERY_MB=200 for another size)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createS3Client } from '#adapters/s3/s3-client';
import { runBench } from './load';

/** `BENCH_DELIVERY_MB=200 npm run bench:delivery`: another size (a buffered send would grow with it). */
const SIZE = Number(process.env.BENCH_DELIVERY_MB ?? 100) * 1024 * 1024;
const WARM_SIZE = 1024 * 1024;
const RUNS = 3;
const SOURCE_BUCKET = 'bench-media';
const CUSTOMER_BUCKET = 'customer';
const TSX = ['--import', 'tsx'];

interface Store {
  endpoint: string;
  client: S3Client;
  process: ChildProcess;
}

async function startStore(directory: string, bucket: string): Promise<Store> {
  const child = spawn(process.execPath, [...TSX, path.join(__dirname, 'delivery-s3.ts'), directory, bucket], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await Promise.race([
    createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next().then((next) => [next.value as string | undefined]),
    new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`s3rver exited (${code})`)))),
  ]);
  const { endpoint } = JSON.parse(line!) as { endpoint: string };
  return { endpoint, client: createS3Client({ region: 'local', endpoint }), process: child };
}

const presignedPut = (store: Store, key: string) =>
  getSignedUrl(store.client, new PutObjectCommand({ Bucket: CUSTOMER_BUCKET, Key: key }), { expiresIn: 7200 });

async function sha256Of(store: Store, bucket: string, key: string): Promise<string> {
  const { Body } = await store.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const hash = createHash('sha256');
  for await (const chunk of Body as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

interface WorkerRun {
  outcome: { type: string };
  seconds: number;
  idle: number;
  sampledPeak: number;
  hwm: number;
  afterGc: number;
  sourceReadSeconds: number;
}

function workerRun(source: Store, warmUrl: string, url: string, fromFile?: string): WorkerRun {
  const args = ['--expose-gc', ...TSX, path.join(__dirname, 'delivery-child.ts'), source.endpoint, SOURCE_BUCKET, 'videos/warm.mp4', warmUrl, 'videos/bench.mp4', url];
  if (fromFile) args.push(fromFile);
  const output = execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const run = JSON.parse(output.trim().split('\n').at(-1)!) as WorkerRun;
  if (run.outcome.type !== 'delivered') throw new Error(`Not delivered: ${JSON.stringify(run.outcome)}`);
  return run;
}

function curlRun(file: string, url: string): number {
  const out = execFileSync('curl', ['-sS', '-f', '-T', file, '-o', '/dev/null', '-w', '%{time_total}', url], { encoding: 'utf8' });
  return Number(out);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mb = (bytes: number) => bytes / (1024 * 1024);

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vidgen-bench-delivery-'));
  const stores: Store[] = [];
  try {
    const file = path.join(dir, 'bench.mp4');
    const bytes = randomBytes(SIZE);
    writeFileSync(file, bytes);
    const expected = createHash('sha256').update(bytes).digest('hex');
    mkdirSync(path.join(dir, 'source'));
    mkdirSync(path.join(dir, 'customer'));
    const source = await startStore(path.join(dir, 'source'), SOURCE_BUCKET);
    stores.push(source);
    const customer = await startStore(path.join(dir, 'customer'), CUSTOMER_BUCKET);
    stores.push(customer);
    await source.client.send(new PutObjectCommand({ Bucket: SOURCE_BUCKET, Key: 'videos/warm.mp4', Body: randomBytes(WARM_SIZE), ContentType: 'video/mp4' }));
    await source.client.send(
      new PutObjectCommand({ Bucket: SOURCE_BUCKET, Key: 'videos/bench.mp4', Body: createReadStream(file), ContentLength: SIZE, ContentType: 'video/mp4' }),
    );

    const workers: WorkerRun[] = [];
    const curls: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const order = i % 2 === 0 ? ['worker', 'curl'] : ['curl', 'worker'];
      for (const which of order) {
        if (which === 'worker') workers.push(workerRun(source, await presignedPut(customer, `renders/warm-${i}.mp4`), await presignedPut(customer, 'renders/worker.mp4')));
        else curls.push(curlRun(file, await presignedPut(customer, 'renders/curl.mp4')));
      }
    }
    // The same worker sending the local file curl sends: the PUT side alone.
    const fromFile: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      fromFile.push(workerRun(source, await presignedPut(customer, `renders/warm-file-${i}.mp4`), await presignedPut(customer, 'renders/worker-file.mp4'), file).seconds);
    }
    const sha256Equal = (await sha256Of(customer, CUSTOMER_BUCKET, 'renders/worker.mp4')) === expected;

    const above = workers.map((run) => mb(Math.max(run.sampledPeak, run.hwm) - run.idle));
    const workerSeconds = median(workers.map((run) => run.seconds));
    const curlSeconds = median(curls);
    const figures = {
      sizeMb: mb(SIZE),
      runs: RUNS,
      worker: {
        idleMb: workers.map((run) => mb(run.idle)),
        peakAboveIdleMb: above,
        sampledPeakAboveIdleMb: workers.map((run) => mb(run.sampledPeak - run.idle)),
        afterGcAboveIdleMb: workers.map((run) => mb(run.afterGc - run.idle)),
        seconds: workers.map((run) => run.seconds),
        sourceReadSeconds: workers.map((run) => run.sourceReadSeconds),
        medianMbPerSecond: mb(SIZE) / workerSeconds,
      },
      workerFromFile: { seconds: fromFile, medianMbPerSecond: mb(SIZE) / median(fromFile), ratio: curlSeconds / median(fromFile) },
      curl: { seconds: curls, medianMbPerSecond: mb(SIZE) / curlSeconds },
      ratio: curlSeconds / workerSeconds,
      sha256Equal,
      loadAverage: os.loadavg(),
    };
    const f1 = (value: number) => value.toFixed(1);
    console.log(`== Delivery of ${figures.sizeMb} MB to a presigned PUT (${RUNS} runs each, alternating, medians) ==`);
    console.log(`worker idle RSS            ${figures.worker.idleMb.map(f1).join(' / ')} MB`);
    console.log(`worker peak above idle     ${above.map(f1).join(' / ')} MB (max ${f1(Math.max(...above))}; goal < 64 MB)`);
    console.log(`worker RSS after gc()      ${figures.worker.afterGcAboveIdleMb.map(f1).join(' / ')} MB above idle`);
    console.log(`worker                     ${f1(figures.worker.medianMbPerSecond)} MB/s (${figures.worker.seconds.map((s) => s.toFixed(2)).join(' / ')} s)`);
    console.log(`  of which reading ours    ${figures.worker.sourceReadSeconds.map((s) => s.toFixed(2)).join(' / ')} s (GetObject from the source s3rver alone)`);
    console.log(`curl -T                    ${f1(figures.curl.medianMbPerSecond)} MB/s (${curls.map((s) => s.toFixed(2)).join(' / ')} s)`);
    console.log(`ratio worker / curl        ${figures.ratio.toFixed(2)} (goal ≥ 0.8)`);
    console.log(`worker, from the file      ${f1(figures.workerFromFile.medianMbPerSecond)} MB/s (${fromFile.map((s) => s.toFixed(2)).join(' / ')} s), ratio ${figures.workerFromFile.ratio.toFixed(2)} (the PUT side alone)`);
    console.log(`sha256 equal               ${sha256Equal}`);
    console.log(`load average               ${figures.loadAverage.map((value) => value.toFixed(2)).join(' ')}`);
    mkdirSync('out', { recursive: true });
    writeFileSync('out/bench-delivery.json', `${JSON.stringify(figures, null, 2)}\n`);
  } finally {
    for (const store of stores) {
      store.client.destroy();
      store.process.kill('SIGTERM');
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
