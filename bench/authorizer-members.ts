/**
 * What a member session adds to the authorizer (issue 36, design-36 §2): the REQUEST authorizer's
 * handler, in this process as the local gateway runs it but with no result cache, against
 * DynamoDB Local and the local identity server. An owner session (1 membership: the account
 * their first sign-in opened) against a member session (member of 5 accounts, owner of none).
 * 30 warm-up calls, then 500 pairs one at a time, alternating which goes first. Prints p50/p95
 * of each and the ratio of p50s (goal <= 1.1), the DynamoDB calls of one authorization of each
 * (recordDynamoCalls), and a breakdown by step (token check, GetUser, the membership Query) with
 * the GetItem of the holder item alone (the path before teams) as a baseline.
 * Run: npm run bench:authorizer   (figures only; no pass/fail)
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { lambdaContext } from '#bin/lambda-context.cjs';
import { loadHandler } from '#bin/local-stack/lambda-runtime';
import { toAuthorizerEvent, type IncomingCall } from '#bin/local-stack/proxy-event';
import type { LocalStack } from '#bin/local-stack/stack';
import { identityProvider } from '#app-context/identity';
import { createAccount } from '#domain/accounts/account-admin';
import { addMember } from '#domain/accounts/members';
import type { Role } from '#domain/accounts/roles';
import { OPERATOR_STAMP } from '#domain/shared/audit';
import { ROUTES } from '#http/routes/index';
import { recordDynamoCalls } from '#test-support/dynamo-calls';
import { signedInHolder, type SignedIn } from '#test-support/identity';
import { ms, percentile, runBench, startBenchStack } from './load';

const WARM_UP = 30;
const PAIRS = 500;
/** Authorizations of each session whose DynamoDB calls are counted (after the timed pairs). */
const COUNTED = 20;
/** Rounds of the step-by-step breakdown. */
const STEP_ROUNDS = 200;
/** The member's roles in their 5 accounts: never owner. */
const MEMBER_ROLES: readonly Role[] = ['developer', 'admin', 'billing', 'viewer', 'developer'];

/** A holder who owns nothing: attached to one account as a developer (an operator's `user create --account`), added to 4 more. */
async function memberOfFive(stack: LocalStack): Promise<SignedIn> {
  const member = await signedInHolder(stack);
  const accounts = await Promise.all(MEMBER_ROLES.map(async () => (await createAccount(stack.context, { credits: 0 })).account.accountId));
  await stack.context.holders.attach({ holderId: member.holderId, accountId: accounts[0]!, email: member.email, createdAt: new Date().toISOString() }, MEMBER_ROLES[0]!);
  for (const [index, accountId] of accounts.entries()) {
    if (index === 0) continue;
    await addMember(stack.context.team, { accountId, holderId: member.holderId, email: member.email, role: MEMBER_ROLES[index]! }, OPERATOR_STAMP, stack.context.clock());
  }
  return member;
}

async function main(): Promise<void> {
  const loadBefore = os.loadavg();
  const stack = await startBenchStack('vidgen-bench-authorizer');
  try {
    // The handler as the local gateway loads it, and the event it builds for GET /account.
    const authorizer = loadHandler('authorizer');
    const route = ROUTES.find((each) => each.handler === 'get-account')!;
    const authorize = async (token: string): Promise<APIGatewayAuthorizerResult> => {
      const call: IncomingCall = {
        method: route.method,
        path: route.path,
        headers: { Authorization: `Bearer ${token}`, 'User-Agent': 'bench' },
        multiValueHeaders: { Authorization: [`Bearer ${token}`], 'User-Agent': ['bench'] },
        query: null,
        multiValueQuery: null,
        body: Buffer.alloc(0),
        sourceIp: '127.0.0.1',
        requestId: randomUUID(),
      };
      return (await authorizer(toAuthorizerEvent(call, route, null), lambdaContext('authorizer', { requestId: call.requestId }))) as APIGatewayAuthorizerResult;
    };

    const owner = await signedInHolder(stack);
    const member = await memberOfFive(stack);
    // The owner's first authorization is their first sign-in: it opens their account.
    const memberships = async (token: string) => String((await authorize(token)).context?.memberships ?? '').split(' ').filter(Boolean);
    const ownerList = await memberships(owner.accessToken);
    const memberList = await memberships(member.accessToken);
    if (ownerList.length !== 1 || !ownerList[0]!.endsWith('=owner')) throw new Error(`owner session: ${ownerList.join(' ')}`);
    if (memberList.length !== 5 || memberList.some((entry) => entry.endsWith('=owner'))) throw new Error(`member session: ${memberList.join(' ')}`);

    const timed = async (token: string): Promise<number> => {
      const began = performance.now();
      await authorize(token);
      return performance.now() - began;
    };
    for (let i = 0; i < WARM_UP; i += 1) await timed(i % 2 === 0 ? owner.accessToken : member.accessToken);
    const times = { owner: [] as number[], member: [] as number[] };
    for (let i = 0; i < PAIRS; i += 1) {
      // One at a time, alternating which goes first: neither always follows the other.
      if (i % 2 === 0) {
        times.owner.push(await timed(owner.accessToken));
        times.member.push(await timed(member.accessToken));
      } else {
        times.member.push(await timed(member.accessToken));
        times.owner.push(await timed(owner.accessToken));
      }
    }

    /** DynamoDB calls of COUNTED authorizations of `token`, per authorization, by operation and item. */
    const callsPer = async (token: string) => {
      const calls = await recordDynamoCalls(stack.context.db, async () => {
        for (let i = 0; i < COUNTED; i += 1) await authorize(token);
      });
      const byKind = new Map<string, number>();
      for (const call of calls) {
        const kind = `${call.operation}${call.keyPrefix ? ` ${call.keyPrefix}` : ''}`;
        byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
      }
      return { total: calls.length / COUNTED, detail: [...byKind].map(([kind, count]) => `${kind} ${(count / COUNTED).toFixed(2)}`).join(', ') };
    };
    const calls = { owner: await callsPer(owner.accessToken), member: await callsPer(member.accessToken) };

    // The steps of authenticateSession, each timed alone, interleaved the same way, and the
    // holder item's GetItem alone: what the authorizer read before teams in place of the Query.
    const identity = identityProvider()!;
    const { holders } = stack.context;
    const steps = {
      'verify token (JWKS cached)': (who: SignedIn) => identity.verifyAccessToken(who.accessToken),
      'GetUser (identity server)': (who: SignedIn) => identity.currentHolder(who.accessToken),
      'Query HOLDER# (memberships)': (who: SignedIn) => holders.withMemberships(who.holderId),
      'GetItem HOLDER (before teams)': (who: SignedIn) => holders.get(who.holderId),
    };
    const stepTimes = new Map(Object.keys(steps).map((name) => [name, { owner: [] as number[], member: [] as number[] }]));
    for (let round = 0; round < STEP_ROUNDS; round += 1) {
      const order = round % 2 === 0 ? (['owner', 'member'] as const) : (['member', 'owner'] as const);
      for (const [name, step] of Object.entries(steps)) {
        for (const side of order) {
          const began = performance.now();
          await step(side === 'owner' ? owner : member);
          stepTimes.get(name)![side].push(performance.now() - began);
        }
      }
    }

    const loadAfter = os.loadavg();
    const row = (label: string, values: number[]) => `${label.padEnd(44)} p50 ${ms(percentile(values, 50)).padStart(9)}  p95 ${ms(percentile(values, 95)).padStart(9)}`;
    console.log(`== Authorizer: owner session vs member session (handler in process, no cache; ${WARM_UP} warm-ups, ${PAIRS} alternating pairs) ==`);
    console.log(row('owner session (1 membership)', times.owner));
    console.log(row('member session (5 memberships, owns none)', times.member));
    const ratio = percentile(times.member, 50) / percentile(times.owner, 50);
    console.log(`ratio of p50s member/owner                   ${ratio.toFixed(3)}  goal <= 1.1: ${ratio <= 1.1 ? 'met' : 'NOT met'}`);
    console.log(`DynamoDB calls / authorization, owner        ${calls.owner.total.toFixed(2)} (${calls.owner.detail})`);
    console.log(`DynamoDB calls / authorization, member       ${calls.member.total.toFixed(2)} (${calls.member.detail})`);
    console.log(`\nsteps alone (${STEP_ROUNDS} interleaved rounds), p50 owner / member:`);
    for (const [name, { owner: ofOwner, member: ofMember }] of stepTimes) {
      console.log(`  ${name.padEnd(34)} ${ms(percentile(ofOwner, 50)).padStart(9)} / ${ms(percentile(ofMember, 50)).padStart(9)}   (p95 ${ms(percentile(ofOwner, 95))} / ${ms(percentile(ofMember, 95))})`);
    }
    console.log(`\nload average before ${loadBefore.map((value) => value.toFixed(2)).join(' ')}, after ${loadAfter.map((value) => value.toFixed(2)).join(' ')}`);
  } finally {
    await stack.stop();
  }
}

runBench(main);
