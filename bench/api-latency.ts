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
    await mcpVersusRest(stack.baseUrl, headers);
    const { heapUsed, rss } = process.memoryUsage();
    console.log(`memory: rss ${(rss / 2 ** 20).toFixed(0)} MiB, heap ${(heapUsed / 2 ** 20).toFixed(0)} MiB (API, in-process)`);
  } finally {
    await stack.stop();
  }
}

/**
 * The MCP tool `get_task` (one JSON-RPC POST to /mcp, as an MCP client sends it) against
 * `GET /videos/{id}` for the same task, in turns so both see the same machine. Goal: ratio <= 1.3.
 */
async function mcpVersusRest(baseUrl: string, headers: Record<string, string>): Promise<void> {
  const started = await fetch(`${baseUrl}/generate`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ prompt: 'bench', duration: 3 }),
  });
  const videoId = ((await started.json()) as { data: { video_id: string } }).data.video_id;
  // Each side reads and parses its answer, as a client does.
  const rest = async () => {
    const response = await fetch(`${baseUrl}/videos/${videoId}`, { headers });
    await response.json();
    return response.status;
  };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_task', arguments: { id: videoId } } });
  const mcp = async () => {
    const response = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body,
    });
    const answer = (await response.json()) as { result?: { isError?: boolean } };
    return answer.result && !answer.result.isError ? response.status : 599;
  };
  await load(30, 1, rest);
  await load(30, 1, mcp);
  const restRuns: number[] = [];
  const mcpRuns: number[] = [];
  for (let round = 0; round < 3; round += 1) {
    const restFigures = await load(100, 1, rest);
    const mcpFigures = await load(100, 1, mcp);
    restRuns.push(...restFigures.latencies);
    mcpRuns.push(...mcpFigures.latencies);
    if (round === 2) {
      report('GET /videos/{id} (c=1)', restFigures);
      report('MCP get_task (c=1)', mcpFigures);
    }
  }
  const ratio = percentile(mcpRuns, 50) / percentile(restRuns, 50);
  console.log(`MCP get_task / GET /videos/{id}, p50 over 300 each: ${ratio.toFixed(2)} (goal <= 1.3)`);
}

runBench(main);
