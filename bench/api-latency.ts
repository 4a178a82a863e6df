/**
 * Latency and throughput of the API on the local stack, over real HTTP: the authorizer, the
 * rate limiter and the handlers against DynamoDB Local and s3rver, all on this machine.
 * Run: npm run bench:api   (figures only; no pass/fail)
 *
 * DynamoDB Local is far slower than DynamoDB, so read these as relative figures (what a change
 * costs), not as production latency.
 */
import { load, ms, newApiKey, percentile, runBench, startBenchStack, type Figures } from './load';

function report(label: string, figures: Figures): void {
  console.log(
    `${label.padEnd(34)} ${String(figures.requests).padStart(5)} req  ${(figures.requests / figures.seconds).toFixed(0).padStart(5)} req/s` +
      `  p50 ${ms(percentile(figures.latencies, 50))}  p95 ${ms(percentile(figures.latencies, 95))}  p99 ${ms(percentile(figures.latencies, 99))}` +
      `  statuses ${JSON.stringify(figures.statuses)}`,
  );
}

async function main(): Promise<void> {
  const stack = await startBenchStack('vidgen-bench');
  try {
    const { apiKey } = await newApiKey(stack, 1_000_000, 1_000_000);
    const headers = { Authorization: `Bearer ${apiKey}` };
    const get = (pathname: string) => async () => (await fetch(`${stack.baseUrl}${pathname}`, { headers })).status;

    await load(50, 5, get('/credits')); // warm-up: module loading, first connections
    report('GET /credits (c=1)', await load(300, 1, get('/credits')));
    report('GET /credits (c=20)', await load(1000, 20, get('/credits')));
    report(
      'POST /generate (c=10)',
      await load(300, 10, async () => {
        const response = await fetch(`${stack.baseUrl}/generate`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify({ prompt: 'bench', duration: 3 }),
        });
        return response.status;
      }),
    );
    // One key's whole default minute (60 requests) arriving at once: every start serialises on
    // the account's item, so this is the worst burst the default rate limit lets through.
    const { apiKey: burstKey } = await newApiKey(stack, 1_000_000);
    report(
      'POST /generate burst of 60 (c=60)',
      await load(60, 60, async () => {
        const response = await fetch(`${stack.baseUrl}/generate`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${burstKey}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ prompt: 'burst', duration: 3 }),
        });
        return response.status;
      }),
    );
    report('GET /videos?limit=50 (c=10)', await load(300, 10, get('/videos?limit=50')));
    report('GET /videos?page=6&limit=50 (c=10)', await load(300, 10, get('/videos?page=6&limit=50')));
    const { heapUsed, rss } = process.memoryUsage();
    console.log(`memory: rss ${(rss / 2 ** 20).toFixed(0)} MiB, heap ${(heapUsed / 2 ** 20).toFixed(0)} MiB (API, in-process)`);
  } finally {
    await stack.stop();
  }
}

runBench(main);
