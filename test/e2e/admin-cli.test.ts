import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { buildAppContext } from '#app-context';
import { taskKey } from '#adapters/dynamodb/keys';
import { newTaskId } from '#domain/shared/ids';
import { authenticate } from '#domain/accounts/authenticate';
import { UnauthorizedError } from '#domain/shared/errors';
import { DynamoCircuitStore } from '#adapters/dynamodb/circuit-repository';
import type { Db } from '#adapters/dynamodb/dynamo-client';
import { startTask } from '#domain/tasks/start-task';
import { runScript } from '#test-support/run-script';
import type { LocalStack } from '#bin/local-stack/stack';
import { signedInHolder } from '#test-support/identity';
import { call, startTestApi, type Json } from '#test-support/local-api';
import { createTestDb, dropTestDb, testConfig, testDynamoEndpoint } from '#test-support/test-db';

// Each test spawns the CLI (tsx) several times: on a loaded 2-core machine that takes a while.
jest.setTimeout(120_000);

let db: Db;
let env: Record<string, string>;

beforeAll(async () => {
  db = await createTestDb();
  env = { TABLE_NAME: db.tableName, AWS_REGION: 'local', DYNAMODB_ENDPOINT: testDynamoEndpoint() };
});
afterAll(async () => {
  await dropTestDb(db);
});

const admin = (...args: string[]) => runScript('bin/admin.ts', args, env);

async function adminJson(...args: string[]): Promise<Record<string, any>> {
  const result = await admin(...args);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

describe('admin CLI', () => {
  it('creates an account, grants credits, manages keys and reports a consistent ledger', async () => {
    const created = await adminJson('account', 'create', '--credits', '100', '--paid', '--subscription', 'active');
    expect(created).toMatchObject({ credits: 100, paid_access: true, subscription_status: 'active' });
    expect(created.account_id).toMatch(/^acc_/);
    expect(created.api_key).toMatch(/^vg_live_[0-9A-Za-z]{40}$/);

    const account = created.account_id as string;
    expect(await adminJson('credits', 'grant', '--account', account, '--amount', '25', '--reason', 'welcome bonus')).toMatchObject({
      credits: 125,
      granted: 25,
    });

    const key = await adminJson('key', 'create', '--account', account, '--rate-limit', '5');
    expect(key).toMatchObject({ account_id: account, mode: 'live', rate_limit: 5 });

    // Test mode: a vg_test_ key, and grants to the test balance (opened with 1000) only.
    const testKey = await adminJson('key', 'create', '--account', account, '--test');
    expect(testKey).toMatchObject({ account_id: account, mode: 'test', api_key: expect.stringMatching(/^vg_test_[0-9A-Za-z]{40}$/) });
    expect(await adminJson('credits', 'grant', '--account', account, '--amount', '5', '--reason', 'test top-up', '--test')).toMatchObject({
      account_id: account,
      mode: 'test',
      credits: 1005,
      granted: 5,
    });

    expect(await adminJson('account', 'set', '--account', account, '--paid', 'false', '--subscription', 'canceled')).toMatchObject({
      paid_access: false,
      subscription_status: 'canceled',
    });

    // It says when the revocation has reached every gateway (the authorizer cache's TTL).
    expect(await adminJson('key', 'revoke', '--key', key.key_id)).toMatchObject({
      key_id: key.key_id,
      status: 'revoked',
      effective_everywhere_within_seconds: 60,
      note: expect.stringMatching(/may still be accepted for up to 60 s where it was used recently: the gateway caches each key's authorization that long/),
    });

    const shown = await adminJson('account', 'show', '--account', account);
    expect(shown).toMatchObject({ credits: 125, ledger_sum: 125, ledger_entries: 2, balance_matches_ledger: true });
    expect(shown.keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key_id: created.key_id, status: 'active', rate_limit: null }),
        expect.objectContaining({ key_id: key.key_id, status: 'revoked', rate_limit: 5 }),
      ]),
    );
    expect(JSON.stringify(shown)).not.toContain('vg_live_');

    // Issue 36: every change above is in the account's audit log, the operator's, newest first.
    const audit = await adminJson('audit', '--account', account);
    expect(audit.events.map((event: { action: string }) => event.action)).toEqual([
      'key.revoked',
      'account.access_changed',
      'credits.granted',
      'key.created',
      'key.created',
      'credits.granted',
      'key.created',
      'account.created',
    ]);
    expect(audit.events.every((event: { actor: unknown; user_agent: string }) => JSON.stringify(event.actor) === '{"type":"operator","id":"operator","email":null}' && event.user_agent.startsWith('vidgen-admin/'))).toBe(true);
    expect(audit).toMatchObject({ account_id: account, has_more: false, next_after: null });
    const paged = await adminJson('audit', '--account', account, '--limit', '3');
    expect(paged).toMatchObject({ has_more: true, next_after: audit.events[2].id });
    expect((await adminJson('audit', '--account', account, '--after', paged.next_after)).events).toEqual(audit.events.slice(3));
    expect(JSON.stringify(audit)).not.toMatch(/vg_(live|test)_[0-9A-Za-z]{40}/);

    // The printed keys are the real thing: one works, the revoked one does not.
    const ctx = buildAppContext(testConfig(db.tableName));
    await expect(authenticate(ctx.apiKeys, `Bearer ${created.api_key}`, 60, new Date())).resolves.toMatchObject({ partitionId: account });
    await expect(authenticate(ctx.apiKeys, `Bearer ${key.api_key}`, 60, new Date())).rejects.toBeInstanceOf(UnauthorizedError);
    ctx.db.doc.destroy();
  });

  it("lists accounts newest first with both balances, and an account's keys without their secrets", async () => {
    const older = await adminJson('account', 'create', '--credits', '10');
    const newer = await adminJson('account', 'create', '--credits', '20', '--paid', '--subscription', 'active');
    const testKey = await adminJson('key', 'create', '--account', newer.account_id, '--test', '--name', 'CI', '--scopes', 'generate,read', '--end-user-monthly-spend-limit', '50');
    expect(testKey).toMatchObject({ monthly_spend_limit: null, end_user_monthly_spend_limit: 50 });
    await adminJson('credits', 'grant', '--account', newer.account_id, '--amount', '5', '--reason', 'opens the test balance', '--test');

    const listed = await adminJson('account', 'list');
    const ids = (listed.accounts as Array<{ account_id: string }>).map((account) => account.account_id);
    expect(ids).toEqual(expect.arrayContaining([older.account_id, newer.account_id]));
    expect(ids.indexOf(newer.account_id)).toBeLessThan(ids.indexOf(older.account_id));
    expect(ids.some((id) => id.endsWith('_test'))).toBe(false);
    expect(listed.accounts[ids.indexOf(newer.account_id)]).toEqual({
      account_id: newer.account_id,
      credits: 20,
      test_credits: 1005,
      paid_access: true,
      subscription_status: 'active',
      created_at: newer.created_at,
    });
    expect(listed.accounts[ids.indexOf(older.account_id)]).toMatchObject({ credits: 10, test_credits: null });
    expect(listed.total).toBe(ids.length);
    const one = await adminJson('account', 'list', '--limit', '1');
    expect([one.accounts.length, one.total]).toEqual([1, listed.total]);

    const keys = await adminJson('key', 'list', '--account', newer.account_id);
    expect(keys.account_id).toBe(newer.account_id);
    expect(keys.keys).toEqual([
      expect.objectContaining({ key_id: testKey.key_id, name: 'CI', mode: 'test', prefix: testKey.api_key.slice(0, 12), scopes: ['generate', 'read'], status: 'active', end_user_monthly_spend_limit: 50, created_by: 'operator' }),
      expect.objectContaining({ key_id: newer.key_id, mode: 'live', status: 'active', scopes: ['generate', 'read', 'webhooks'] }),
    ]);
    expect(JSON.stringify(keys)).not.toMatch(/vg_(live|test)_[0-9A-Za-z]{40}|key_hash/);
    const missing = await admin('key', 'list', '--account', 'acc_missing');
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('No account acc_missing')]);
  });

  // Each case spawns the CLI; they run side by side to keep the suite quick.
  it('refuses usage mistakes with exit code 2, a clear message and nothing on stdout', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['account', 'create', '--credits', '-5'], /--credits/],
      [['account', 'create', '--credits', 'ten'], /--credits must be a whole number/],
      [['account', 'create', '--subscription', 'gold'], /--subscription must be one of none, active, past_due, canceled/],
      [['account', 'show'], /--account is required/],
      [['key', 'list'], /--account is required/],
      [['account', 'list', '--limit', '0'], /--limit must be a whole number from 1 to 1000/],
      [['credits', 'grant', '--account', 'acc_x', '--amount', '5'], /--reason is required/],
      [['account', 'set', '--account', 'acc_x', '--paid', 'yes'], /--paid must be true or false/],
      [['key', 'create', '--account', 'acc_x', '--rate-limit', '1.5'], /--rate-limit must be a whole number/],
      [['key', 'create', '--account', 'acc_x', '--end-user-monthly-spend-limit', 'fifty'], /--end-user-monthly-spend-limit must be a whole number/],
      [['account', 'delete'], /Unknown command "account delete"/],
      [['outputs', 'index', '--resume', 'not-a-key'], /--resume is not a resume key a previous run printed; got "not-a-key"\./],
      [['outputs', 'index', '--max-pages', '0'], /--max-pages must be a whole number of at least 1/],
      [['account', 'create', '--colour', 'blue'], /^admin: Unknown option --colour\.$/m],
      [['account', 'create', '--credts', '5'], /^admin: Unknown option --credts\. Did you mean --credits\?$/m],
      [[], /^admin: No command given\.$/m],
      [['member', 'add', '--account', 'acc_x', '--email', 'a@example.com'], /--role is required/],
      [['member', 'add', '--account', 'acc_x', '--email', 'a@example.com', '--role', 'boss'], /--role must be one of owner, admin, developer, billing, viewer; got "boss"/],
      [['member', 'add', '--email', 'a@example.com', '--role', 'viewer'], /--account is required/],
      [['member', 'remove', '--account', 'acc_x'], /member remove needs exactly one of --email and --holder/],
      [['member', 'remove', '--account', 'acc_x', '--email', 'a@example.com', '--holder', 'h'], /member remove needs exactly one of --email and --holder/],
    ];
    const results = await Promise.all(cases.map(([args]) => admin(...args)));
    results.forEach((result, i) => {
      expect({ args: cases[i]![0], code: result.code, stdout: result.stdout }).toEqual({ args: cases[i]![0], code: 2, stdout: '' });
      expect(result.stderr).toMatch(cases[i]![1]);
    });
  });

  it('shows a task as operators need it (its provider, job and submission) and every provider\'s circuit (issue 31)', async () => {
    const created = await adminJson('account', 'create', '--credits', '100');
    const ctx = buildAppContext(testConfig(db.tableName));
    try {
      const task = await startTask(ctx.lifecycle, created.account_id, {
        kind: 'video',
        params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: 'a heron', aspectRatio: '16:9', duration: 5, resolution: '480p' },
      });
      // The simulated provider's circuit: opened by three failures.
      const circuits = new DynamoCircuitStore(db);
      for (let i = 0; i < 3; i += 1) await circuits.addFailure('simulated');
      const until = Date.now() + 60_000;
      await circuits.open('simulated', undefined, until);

      const shown = await adminJson('task', 'show', '--account', created.account_id, '--task', task.taskId);
      expect(shown).toMatchObject({
        task_id: task.taskId,
        account_id: created.account_id,
        mode: 'live',
        kind: 'video',
        status: 'processing',
        model: 'vid-1-5-pro',
        credits_used: 25,
        provider: { name: 'simulated', job_id: task.provider!.jobId },
        submission: { state: 'job recorded' },
        error: null,
        circuit: { provider: 'simulated', state: 'open', consecutive_failures: 3, open_until: new Date(until).toISOString() },
      });

      const { circuits: listed } = await adminJson('circuits');
      expect(listed).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ provider: 'simulated', state: 'open', consecutive_failures: 3 }),
          expect.objectContaining({ provider: 'replicate', state: 'closed', consecutive_failures: 0, open_until: null }),
          expect.objectContaining({ provider: 'fal', state: 'closed' }),
        ]),
      );

      const missing = await admin('task', 'show', '--account', created.account_id, '--task', 'vid_01MISSING');
      expect({ code: missing.code, stdout: missing.stdout }).toEqual({ code: 1, stdout: '' });
      expect(missing.stderr).toMatch(/No task vid_01MISSING/);
      const usage = await admin('task', 'show', '--account', created.account_id);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/--task is required/);
    } finally {
      await new DynamoCircuitStore(db).close('simulated');
      ctx.db.doc.destroy();
    }
  });

  it('enters old completed tasks into the list the expiry reads (outputs index), once', async () => {
    const created = await adminJson('account', 'create', '--credits', '100');
    const task = { taskId: newTaskId('image') };
    const completedAt = new Date().toISOString();
    // As the code before retention left a completion: announced, so in no gsi2 list.
    await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...taskKey(created.account_id, task.taskId), type: 'task', kind: 'image', task_id: task.taskId, status: 'completed', completed_at: completedAt } }));
    const first = await adminJson('outputs', 'index');
    expect(first).toEqual({ found: 1, indexed: 1, resume_key: null });
    const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: taskKey(created.account_id, task.taskId) }));
    expect([Item?.gsi2pk, Item?.gsi2sk]).toEqual([`OUTPUTS#${created.account_id}`, `${completedAt}#${task.taskId}`]);
    await expect(adminJson('outputs', 'index')).resolves.toEqual({ found: 0, indexed: 0, resume_key: null });
  });

  it('prints its usage on stdout with exit code 0 when asked (--help, help)', async () => {
    const results = await Promise.all([admin('--help'), admin('help')]);
    for (const result of results) {
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: npm run -s admin -- <command>/);
    }
  });

  it('fails on missing accounts and keys and bad amounts with exit code 1 and says why', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['account', 'show', '--account', 'acc_missing'], /No account acc_missing/],
      [['credits', 'grant', '--account', 'acc_missing', '--amount', '5', '--reason', 'x'], /No account acc_missing/],
      [['key', 'revoke', '--key', 'key_missing'], /No API key with id "key_missing"/],
      [['credits', 'grant', '--account', 'acc_missing', '--amount', '0', '--reason', 'x'], /amount must be a whole number from 1/],
    ];
    const results = await Promise.all(cases.map(([args]) => admin(...args)));
    results.forEach((result, i) => {
      expect({ args: cases[i]![0], code: result.code, stdout: result.stdout }).toEqual({ args: cases[i]![0], code: 1, stdout: '' });
      expect(result.stderr).toMatch(cases[i]![1]);
    });
  });

});

describe('admin member commands (through the identity server, as with --aws through Cognito)', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestApi();
  });
  afterAll(async () => {
    await stack.stop();
  });

  const member = async (...args: string[]) => {
    const result = await runScript('bin/admin.ts', ['member', ...args], {
      DATA_DIR: stack.dataDir,
      TABLE_NAME: stack.context.db.tableName,
      AWS_REGION: 'local',
      DYNAMODB_ENDPOINT: stack.dynamodbEndpoint,
      IDENTITY_ENDPOINT: stack.identity.endpoint,
      USER_POOL_ID: stack.identity.userPoolId,
      USER_POOL_CLIENT_ID: stack.identity.clientId,
    });
    return { ...result, json: result.code === 0 ? (JSON.parse(result.stdout) as Record<string, any>) : undefined };
  };
  /** A holder recorded by their first request, which opened their own account. */
  const recorded = async () => {
    const signedIn = await signedInHolder(stack);
    const own = (await call<Json>(stack.baseUrl, '/account', { key: signedIn.accessToken })).body.data!.account_id as string;
    return { ...signedIn, own };
  };
  const roles = async (accountId: string) => Object.fromEntries((await stack.context.team.list(accountId)).map((each) => [each.email, each.role]));

  it('adds a member by email with a role and removes them, audited as the operator; the last owner stays', async () => {
    const [alice, bob] = [await recorded(), await recorded()];

    const added = await member('add', '--account', alice.own, '--email', bob.email.toUpperCase(), '--role', 'developer');
    expect(added.stderr).toBe('');
    expect(added.json).toEqual({ account_id: alice.own, holder_id: bob.holderId, email: bob.email, role: 'developer' });
    expect(await roles(alice.own)).toEqual({ [alice.email]: 'owner', [bob.email]: 'developer' });
    // The owner sees them in GET /account/members too.
    const listed = await call<Json>(stack.baseUrl, '/account/members', { key: alice.accessToken });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain(bob.holderId);

    const again = await member('add', '--account', alice.own, '--email', bob.email, '--role', 'viewer');
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');

    const removed = await member('remove', '--account', alice.own, '--email', bob.email);
    expect(removed.stderr).toBe('');
    expect(removed.json).toEqual({ account_id: alice.own, holder_id: bob.holderId, email: bob.email, removed: true });
    expect(await roles(alice.own)).toEqual({ [alice.email]: 'owner' });

    const audit = await stack.context.auditLog.page(alice.own, undefined, 10);
    expect(audit.entries.map((entry) => [entry.action, entry.actor.type])).toEqual(
      expect.arrayContaining([['member.joined', 'operator'], ['member.removed', 'operator']]),
    );

    const lastOwner = await member('remove', '--account', alice.own, '--holder', alice.holderId);
    expect({ code: lastOwner.code, stdout: lastOwner.stdout }).toEqual({ code: 1, stdout: '' });
    expect(lastOwner.stderr).toMatch(/would be left without an owner/);
    expect(await roles(alice.own)).toEqual({ [alice.email]: 'owner' });
  });

  it('refuses, exit 1, an unknown email, a user who never signed in, and a non-member to remove', async () => {
    const alice = await recorded();
    const unknown = await member('add', '--account', alice.own, '--email', `nobody-${Date.now()}@example.com`, '--role', 'viewer');
    expect({ code: unknown.code, stdout: unknown.stdout }).toEqual({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/No user nobody-.* in the identity provider/);

    const fresh = await signedInHolder(stack);
    const never = await member('add', '--account', alice.own, '--email', fresh.email, '--role', 'viewer');
    expect({ code: never.code, stdout: never.stdout }).toEqual({ code: 1, stdout: '' });
    expect(never.stderr).toMatch(/has never signed in/);

    const stranger = await member('remove', '--account', alice.own, '--email', fresh.email);
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toMatch(/is not a member of/);
    expect(await roles(alice.own)).toEqual({ [alice.email]: 'owner' });
  });
});
