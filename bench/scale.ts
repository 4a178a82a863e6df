/**
 * Scale figures on the local stack (DynamoDB Local, s3rver, the API over real HTTP), in one run:
 *   1. POST /generate on ONE account vs spread over TEN accounts, at c=10 and c=50 (per-key
 *      rate limit raised so it plays no part): starts/s, p95, statuses and the ratio;
 *   2. a history page near the top vs a deep page (same size);
 *   3. GET /credits against the raw DynamoDB calls it makes (rate counter UpdateItem, account GetItem);
 *   4. the sweeper: one run over every task in flight, tasks examined, time, tasks/minute;
 *   5. the events feed: page 1 vs a page 5,000 events deep (bench/events-feed.ts).
 * Run: npm run bench:scale   (figures only; no pass/fail; `npm run bench:scale -- events`: only 5).
 * `-- --limited-key`: every key has a monthly spend limit (too high to be reached), so each start
 * also passes the limit's condition. `-- --aws-conflicts`: DynamoDB's transaction conflicts,
 * which DynamoDB Local never reports, emulated on the stack's shared client
 * (test/support/aws-conflicts.ts; design 32, 5.4), and the conflicts it raised printed after each
 * one/ten pair and at the end. DynamoDB Local is far slower than
 * DynamoDB: read these as relative figures.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sweep } from '#domain/tasks/sweep';
import { emulateTransactionConflicts, type ConflictEmulator } from '#test-support/aws-conflicts';
import { eventsFeedFigures } from './events-feed';
import { load, ms, newApiKey, percentile, runBench, startBenchStack, type Figures } from './load';

const rate = (figures: Figures) => figures.requests / figures.seconds;
/** Successful answers per second (a 429 is not a start). */
const okRate = (figures: Figures) => (figures.statuses[200] ?? 0) / figures.seconds;

function line(label: string, figures: Figures): string {
  return (
    `${label.padEnd(36)} ${String(figures.requests).padStart(4)} req ${rate(figures).toFixed(1).padStart(6)} req/s ${okRate(figures).toFixed(1).padStart(6)} ok/s` +
    `  p50 ${ms(percentile(figures.latencies, 50))}  p95 ${ms(percentile(figures.latencies, 95))}  statuses ${JSON.stringify(figures.statuses)}`
  );
}

async function main(): Promise<void> {
  // Simulated tasks stay processing (startBenchStack): the sweeper has them all to examine.
  const stack = await startBenchStack('vidgen-bench-scale');
  let started = 0;
  const emulator: ConflictEmulator | undefined = process.argv.includes('--aws-conflicts') ? emulateTransactionConflicts(stack.context.db) : undefined;
  const conflicts = () => (emulator ? `${emulator.raised.transactions} transactions cancelled, ${emulator.raised.writes} single writes refused` : '');
  if (emulator) console.log("(DynamoDB's transaction conflicts emulated: --aws-conflicts)");
  try {
    if (process.argv[2] === 'events') return await eventsFeedFigures(stack, line);
    const spendLimit = process.argv.includes('--limited-key') ? 1_000_000_000 : undefined;
    if (spendLimit) console.log('(every key with a monthly spend limit)');
    const newKey = () => newApiKey(stack, 10_000_000, 1_000_000, spendLimit);
    const generate = (apiKey: string) => async () => {
      const response = await fetch(`${stack.baseUrl}/generate`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ prompt: 'bench', duration: 3 }),
      });
      await response.arrayBuffer();
      if (response.status === 200) started += 1;
      return response.status;
    };
    const get = (apiKey: string, pathname: string) => async () => {
      const response = await fetch(`${stack.baseUrl}${pathname}`, { headers: { Authorization: `Bearer ${apiKey}` } });
      await response.arrayBuffer();
      return response.status;
    };

    const warm = await newKey();
    await load(30, 5, generate(warm.apiKey)); // module loading, first connections

    console.log('== POST /generate: one account vs ten accounts ==');
    for (const [concurrency, count] of [
      [10, 300],
      [50, 500],
    ] as const) {
      const ten = await Promise.all(Array.from({ length: 10 }, newKey));
      const spread = await load(count, concurrency, (i) => generate(ten[i % 10]!.apiKey)());
      const single = await newKey();
      const one = await load(count, concurrency, generate(single.apiKey));
      console.log(line(`ten accounts (c=${concurrency})`, spread));
      console.log(line(`one account  (c=${concurrency})`, one));
      console.log(`ratio one/ten at c=${concurrency}: ${(okRate(one) / okRate(spread)).toFixed(2)} (successful starts per second)`);
      if (emulator) console.log(`emulated conflicts so far: ${conflicts()}`);
    }

    console.log('== 50 concurrent starts on one account (enough credits) ==');
    const burst = await newKey();
    console.log(line('burst of 50 (c=50)', await load(50, 50, generate(burst.apiKey))));

    console.log('== history: page 1 vs a deep page (limit 20, 1,000 tasks) ==');
    const history = await newKey();
    await load(1000, 20, generate(history.apiKey));
    console.log(line('GET /videos?page=1&limit=20 (c=1)', await load(200, 1, get(history.apiKey, '/videos?page=1&limit=20'))));
    console.log(line('GET /videos?page=50&limit=20 (c=1)', await load(200, 1, get(history.apiKey, '/videos?page=50&limit=20'))));

    console.log('== GET /credits vs the raw DynamoDB calls it makes ==');
    const credits = await load(300, 1, get(history.apiKey, '/credits'));
    const { db } = stack.context;
    const keyId = 'bench-raw';
    const raw = await load(300, 1, async () => {
      await db.doc.send(
        new UpdateCommand({
          TableName: db.tableName,
          Key: { pk: `RATE#${keyId}#${Math.floor(Date.now() / 60_000)}`, sk: 'RATE' },
          UpdateExpression: 'ADD request_count :one SET expires_at = :exp',
          ConditionExpression: 'attribute_not_exists(request_count) OR request_count < :limit',
          ExpressionAttributeValues: { ':one': 1, ':limit': 1_000_000, ':exp': Math.floor(Date.now() / 1000) + 600 },
        }),
      );
      await db.doc.send(
        new GetCommand({ TableName: db.tableName, Key: { pk: `ACCOUNT#${history.accountId}`, sk: 'ACCOUNT' }, ConsistentRead: true }),
      );
      return 200;
    });
    console.log(line('GET /credits over HTTP (c=1)', credits));
    console.log(line('raw UpdateItem + GetItem (c=1)', raw));
    console.log(
      `GET /credits overhead over raw DynamoDB: p50 ${ms(percentile(credits.latencies, 50) - percentile(raw.latencies, 50))}` +
        ` (${(percentile(credits.latencies, 50) / percentile(raw.latencies, 50)).toFixed(2)}x)`,
    );

    console.log('== sweeper: one run, every task in flight due for a check ==');
    // A clock one minute ahead makes every task "not checked for 30 s": each one is refreshed.
    const lifecycle = { ...stack.context.lifecycle, clock: () => new Date(Date.now() + 60_000) };
    const began = performance.now();
    const report = await sweep(lifecycle);
    const seconds = (performance.now() - began) / 1000;
    const perSecond = report.examined / seconds;
    console.log(`sweep report: ${JSON.stringify(report)} in ${seconds.toFixed(1)} s (${perSecond.toFixed(0)} tasks/s)`);
    const inFlight = started;
    // One run a minute, each stopping after its 45 s budget: a run that examined fewer than the
    // tasks in flight was capped by its batch; otherwise its rate over the budget is the ceiling.
    const budgetBound = seconds >= 44;
    const perMinute = report.examined < inFlight || budgetBound ? report.examined : Math.round(perSecond * 45);
    const why = budgetBound ? 'capped by the 45 s run budget' : report.examined < inFlight ? 'capped by the per-run batch' : 'rate x 45 s budget';
    console.log(`sweeper tasks/minute: ${perMinute} (${inFlight} in flight; ${why})`);

    await eventsFeedFigures(stack, line);
  } finally {
    if (emulator) console.log(`emulated conflicts in all: ${conflicts()}`);
    emulator?.();
    await stack.stop();
  }
}

runBench(main);
