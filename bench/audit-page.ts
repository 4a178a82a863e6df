/**
 * GET /audit-events page 1 against the log's size (issue 36, design-36 §5.4): account A with
 * 100,000 entries against account B with 100, read over real HTTP on the local stack by one
 * holder who owns A (their first sign-in opened it) and is an owner of B, choosing each with
 * Vidgen-Account. The entries are seeded straight into the table (BatchWriteItem, 8 at a time)
 * as the adapter's own `auditPart` writes them, so their shape cannot drift from the real one.
 * 10 warm-ups, then 200 requests one at a time in alternating pairs; the authorizer's cache is
 * on (as deployed), so the figure is the endpoint's. Prints p50/p90 of each, the ratio of p50s
 * (goal <= 1.5), the DynamoDB calls and read capacity of one page of each, and the Query alone
 * (the adapter's `page`, no HTTP) as a breakdown.
 * Run: npm run bench:audit   (figures only; no pass/fail; BENCH_AUDIT_ENTRIES=N for another size of A)
 */
import os from 'node:os';
import { InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { auditPart } from '#adapters/dynamodb/audit/audit-put';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount } from '#domain/accounts/account-admin';
import { addMember } from '#domain/accounts/members';
import { auditEntry, OPERATOR_STAMP, type AuditEntry, type AuditStamp } from '#domain/shared/audit';
import { recordDynamoCalls } from '#test-support/dynamo-calls';
import { identityClient, signedInHolder } from '#test-support/identity';
import { load, ms, patiently, percentile, runBench, startBenchStack } from './load';

const BIG = Number(process.env.BENCH_AUDIT_ENTRIES ?? 100_000);
const SMALL = 100;
const WARM_UP = 10;
const PAIRS = 100;
const SEED_CONCURRENCY = 8;
const STEP_ROUNDS = 100;
/** Entries spread over the last 360 days, oldest first, as a busy account's year would leave them. */
const SPAN_MS = 360 * 86_400_000;

/** `count` entries of the changes a team makes (keys, webhooks, roles), stamped by one holder from a browser. */
function entriesOf(accountId: string, count: number, stamp: AuditStamp): AuditEntry[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, index) => {
    const at = new Date(now - SPAN_MS + Math.floor((index * SPAN_MS) / count));
    const n = String(index).padStart(6, '0');
    switch (index % 4) {
      case 0:
        return auditEntry(stamp, accountId, 'key.created', { type: 'key', id: `key_bench${n}` }, { name: `CI ${n}`, mode: 'live', scopes: ['generate', 'read', 'webhooks'], expires_at: null, monthly_spend_limit: null, end_user_monthly_spend_limit: null }, at);
      case 1:
        return auditEntry(stamp, accountId, 'key.updated', { type: 'key', id: `key_bench${n}` }, { name: { from: `CI ${n}`, to: `CI pipeline ${n}` }, monthly_spend_limit: { from: null, to: 100 }, mode: 'live' }, at);
      case 2:
        return auditEntry(stamp, accountId, 'webhook.created', { type: 'webhook', id: `whk_bench${n}` }, { url: `https://hooks.example.com/vidgen/${n}`, events: ['video.completed', 'video.failed'] }, at);
      default:
        return auditEntry(stamp, accountId, 'member.role_changed', { type: 'member', id: `holder-${n}` }, { role: { from: 'viewer', to: 'developer' } }, at);
    }
  });
}

/** The entries' items exactly as `auditPart` puts them, BatchWriteItem 25 at a time, SEED_CONCURRENCY batches in flight. */
async function seed(db: Db, entries: AuditEntry[]): Promise<void> {
  const items = entries.map((entry) => auditPart(db, entry)[1].Put!.Item!);
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, index) => items.slice(index * 25, index * 25 + 25));
  await load(batches.length, SEED_CONCURRENCY, async (index) => {
    let requests = batches[index]!.map((Item) => ({ PutRequest: { Item } }));
    while (requests.length > 0) {
      const batch = requests;
      const { UnprocessedItems } = await patiently(() => db.doc.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: batch } })));
      requests = (UnprocessedItems?.[db.tableName] ?? []) as typeof requests;
    }
    return 200;
  });
}

/** A new access token from the refresh token (REFRESH_TOKEN_AUTH), as the console gets one after joining an account. */
async function refreshedToken(stack: LocalStack, refreshToken: string): Promise<string> {
  const client = identityClient(stack);
  try {
    const answer = await client.send(new InitiateAuthCommand({ ClientId: stack.identity.clientId, AuthFlow: 'REFRESH_TOKEN_AUTH', AuthParameters: { REFRESH_TOKEN: refreshToken } }));
    return answer.AuthenticationResult!.AccessToken!;
  } finally {
    client.destroy();
  }
}

/** The read capacity DynamoDB reports for the calls sent while `during` runs (ReturnConsumedCapacity=TOTAL added to each). */
async function readCapacity(db: Db, during: () => Promise<unknown>): Promise<Record<string, number>> {
  const units: Record<string, number> = {};
  const name = `bench-consumed-capacity-${Math.random()}`;
  db.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const answer = await next(args);
      const consumed = (answer.output as { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] }).ConsumedCapacity;
      for (const each of [consumed ?? []].flat()) units[operation] = (units[operation] ?? 0) + (each.CapacityUnits ?? 0);
      return answer;
    },
    { step: 'initialize', name },
  );
  try {
    await during();
    return units;
  } finally {
    db.doc.middlewareStack.remove(name);
  }
}

async function main(): Promise<void> {
  const loadBefore = os.loadavg();
  // The authorizer's answer cached as deployed; the session's rate limit out of the way.
  const stack: LocalStack = await startBenchStack('vidgen-bench-audit', { AUTH_CACHE_TTL_SECONDS: '300', DEFAULT_RATE_LIMIT: '1000000' });
  const { db } = stack.context;
  try {
    const holder = await signedInHolder(stack);
    let token = holder.accessToken;
    const headers = (accountId?: string) => ({ Authorization: `Bearer ${token}`, 'User-Agent': 'vidgen-bench', ...(accountId && { 'Vidgen-Account': accountId }) });
    // The first request is the first sign-in: it opens account A, which the holder owns.
    const first = (await (await fetch(`${stack.baseUrl}/account`, { headers: headers() })).json()) as { data: { account_id: string } };
    const a = first.data.account_id;
    const { account } = await createAccount(stack.context, { credits: 0 });
    const b = account.accountId;
    await addMember(stack.context.team, { accountId: b, holderId: holder.holderId, email: holder.email, role: 'owner' }, OPERATOR_STAMP, stack.context.clock());
    // A fresh token, as the console refreshes after joining: the cached answer of the first lists A only.
    token = await refreshedToken(stack, holder.refreshToken);

    const stamp: AuditStamp = { actor: { type: 'holder', id: holder.holderId, email: holder.email }, origin: { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36' } };
    const seeding = performance.now();
    await seed(db, entriesOf(a, BIG, stamp));
    const seededBig = (performance.now() - seeding) / 1000;
    await seed(db, entriesOf(b, SMALL, stamp));
    console.log(`seeded A: ${BIG} entries in ${seededBig.toFixed(1)} s (${(BIG / seededBig).toFixed(0)} items/s); B: ${SMALL}; load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}`);

    /** One page 1 (the default limit, 50): its time, read whole as a client does. */
    const page = async (accountId: string) => {
      const began = performance.now();
      const response = await fetch(`${stack.baseUrl}/audit-events`, { headers: headers(accountId) });
      const text = await response.text();
      const took = performance.now() - began;
      const body = JSON.parse(text) as { data?: { events: unknown[]; has_more: boolean } };
      if (response.status !== 200 || body.data?.events.length !== 50 || !body.data.has_more) throw new Error(`${accountId}: ${response.status} ${text.slice(0, 300)}`);
      return { ms: took, bytes: text.length };
    };
    for (let i = 0; i < WARM_UP; i += 1) await Promise.all([page(a), page(b)]);
    const times = { a: [] as number[], b: [] as number[] };
    const bytes = { a: 0, b: 0 };
    for (let i = 0; i < PAIRS; i += 1) {
      // One at a time, alternating which goes first: neither always reads a warmer cache.
      const order = i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
      for (const side of order) {
        const answer = await page(side === 'a' ? a : b);
        times[side].push(answer.ms);
        bytes[side] = answer.bytes;
      }
    }

    /** What one page costs in DynamoDB: the calls (recordDynamoCalls) and the read capacity DynamoDB reports. */
    const cost = async (accountId: string) => {
      let capacity: Record<string, number> = {};
      const calls = await recordDynamoCalls(db, async () => {
        capacity = await readCapacity(db, () => page(accountId));
      });
      return `${calls.length} calls (${calls.map((call) => `${call.operation}${call.keyPrefix ? ` ${call.keyPrefix}` : ''}`).join(', ')}); capacity ${Object.entries(capacity).map(([operation, units]) => `${operation} ${units}`).join(', ') || 'not reported'}`;
    };
    const costs = { a: await cost(a), b: await cost(b) };

    // The Query alone (the adapter's page of 50 + 1), interleaved the same way.
    const queryTimes = { a: [] as number[], b: [] as number[] };
    for (let round = 0; round < STEP_ROUNDS; round += 1) {
      for (const side of round % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
        const began = performance.now();
        await stack.context.auditLog.page(side === 'a' ? a : b, undefined, 50);
        queryTimes[side].push(performance.now() - began);
      }
    }

    const loadAfter = os.loadavg();
    const ratio = percentile(times.a, 50) / percentile(times.b, 50);
    console.log(`\n== GET /audit-events page 1 (limit 50), ${WARM_UP} warm-ups, ${PAIRS * 2} requests in alternating pairs ==`);
    console.log(`A (${BIG} entries)  p50 ${ms(percentile(times.a, 50))}  p90 ${ms(percentile(times.a, 90))}  ${bytes.a} bytes`);
    console.log(`B (${SMALL} entries)  p50 ${ms(percentile(times.b, 50))}  p90 ${ms(percentile(times.b, 90))}  ${bytes.b} bytes`);
    console.log(`ratio of p50s A/B ${ratio.toFixed(3)}  goal <= 1.5: ${ratio <= 1.5 ? 'met' : 'NOT met'}`);
    console.log(`DynamoDB per page, A: ${costs.a}`);
    console.log(`DynamoDB per page, B: ${costs.b}`);
    console.log(`the Query alone (${STEP_ROUNDS} rounds), p50 A / B: ${ms(percentile(queryTimes.a, 50))} / ${ms(percentile(queryTimes.b, 50))}`);
    console.log(`load average before ${loadBefore.map((value) => value.toFixed(2)).join(' ')}, after ${loadAfter.map((value) => value.toFixed(2)).join(' ')}`);
  } finally {
    await stack.stop();
  }
}

runBench(main);
