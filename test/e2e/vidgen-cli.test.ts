import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { LocalStack } from '#bin/local-stack/stack';
import { createAccount, createApiKey } from '#domain/accounts/account-admin';
import { GOOD_PASSWORD, signedInHolder } from '#test-support/identity';
import { startFakeStore } from '#test-support/fake-store';
import { runScript, spawnScript } from '#test-support/run-script';
import { startTestApi } from '#test-support/local-api';
import { pollUntil } from '#test-support/wait';

/**
 * The `vidgen` CLI for API users, spawned as users run it (tsx bin/vidgen.ts), against the
 * local stack started in this test process (simulated provider, no delay).
 */
jest.setTimeout(90_000);

let stack: LocalStack;
let tmp: string;
let env: Record<string, string>;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated' });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'vidgen-cli-'));
  env = {
    VIDGEN_API_KEY: await newKey(1000),
    VIDGEN_BASE_URL: stack.baseUrl,
    // Never the developer's own ~/.config/vidgen/config.json.
    VIDGEN_CONFIG: path.join(tmp, 'no-config.json'),
  };
});
afterAll(async () => {
  await stack?.stop();
});

async function newKey(credits: number): Promise<string> {
  const { account } = await createAccount(stack.context, { credits, paidAccess: true, subscriptionStatus: 'active' });
  return (await createApiKey(stack.context, account.accountId, { rateLimit: 1000 })).apiKey;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const vidgen = (args: string[], extraEnv: Record<string, string> = {}) => runScript('bin/vidgen.ts', args, { ...env, ...extraEnv });

describe('vidgen CLI', () => {
  it('generate --wait --out downloads a real MP4', async () => {
    const out = path.join(tmp, 'x.mp4');
    const result = await vidgen(['generate', 'a cat', '--duration', '3', '--resolution', '480p', '--wait', '--out', out]);
    expect(result.stderr).toMatch(/^vid_\w+ processing/m);
    expect(result.stderr).toContain(`saved ${out}`);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^status\s+completed$/m);
    expect(result.stdout).toMatch(/^video_url\s+http:\/\/127\.0\.0\.1:\d+\/media\/videos\/vid_\w+\.mp4$/m);
    const bytes = readFileSync(out);
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(bytes.length).toBeGreaterThan(10 * 1024);
  });

  it('image --wait --out --json prints only JSON on stdout and writes a PNG', async () => {
    const out = path.join(tmp, 'x.png');
    const result = await vidgen(['image', 'a cat', '--wait', '--out', out, '--json', '--interval', '0.5']);
    expect(result.code).toBe(0);
    const task = JSON.parse(result.stdout);
    expect(task).toMatchObject({ image_id: expect.stringMatching(/^img_/), status: 'completed', output_format: 'png', image_urls: [expect.any(String)] });
    expect([...readFileSync(out).subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

    // The same task through status, videos/images and credits, all as JSON.
    const [status, images, credits] = await Promise.all([
      vidgen(['status', task.image_id, '--json']),
      vidgen(['images', '--limit', '5', '--json']),
      vidgen(['credits', '--json']),
    ]);
    expect(JSON.parse(status.stdout)).toEqual(task);
    expect(JSON.parse(images.stdout).images.map((i: { image_id: string }) => i.image_id)).toContain(task.image_id);
    expect(JSON.parse(images.stdout).pagination).toMatchObject({ page: 1, limit: 5 });
    expect(credits.code).toBe(0);
    expect(JSON.parse(credits.stdout)).toEqual({ credits: expect.any(Number), paid_access: true, subscription_status: 'active' });
  });

  it('credits --json parses; the human form is readable', async () => {
    const key = await newKey(250);
    const [json, human] = await Promise.all([
      vidgen(['credits', '--json'], { VIDGEN_API_KEY: key }),
      vidgen(['credits'], { VIDGEN_API_KEY: key }),
    ]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ credits: 250, paid_access: true, subscription_status: 'active' });
    expect(human.stdout).toMatch(/^credits\s+250$/m);
  });

  it('transactions lists grant, charge and refund with their sum; a test key is marked on stderr', async () => {
    const { account } = await createAccount(stack.context, { credits: 40, paidAccess: true, subscriptionStatus: 'active' });
    const test = (await createApiKey(stack.context, account.accountId, { rateLimit: 1000, mode: 'test' })).apiKey;
    const failed = await vidgen(['generate', 'sim:fail a fox', '--duration', '3', '--wait', '--interval', '0.2'], { VIDGEN_API_KEY: test });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^vidgen: TEST MODE/m);
    const listed = await vidgen(['transactions'], { VIDGEN_API_KEY: test });
    expect(listed.code).toBe(0);
    expect(listed.stderr).toMatch(/^vidgen: TEST MODE/m);
    expect(listed.stdout).toMatch(/ refund +\+15 +vid_\w+ +refund: video task failed$/m);
    expect(listed.stdout).toMatch(/ charge +-15 +vid_\w+ +video generation \(vid-1-5-pro\)$/m);
    expect(listed.stdout).toMatch(/ grant +\+1000 +- +test mode opening balance$/m);
    expect(listed.stdout).toMatch(/^Sum: 1000 \(your balance\)$/m);
    const json = await vidgen(['transactions', '--json', '--limit', '2'], { VIDGEN_API_KEY: test });
    expect(JSON.parse(json.stdout).pagination).toEqual({ page: 1, limit: 2, total: 3, total_pages: 2, has_more: true });
    const live = (await createApiKey(stack.context, account.accountId, { rateLimit: 1000 })).apiKey;
    const liveListed = await vidgen(['transactions'], { VIDGEN_API_KEY: live });
    expect(liveListed.stderr).not.toContain('TEST MODE');
    expect(liveListed.stdout).toMatch(/^Sum: 40 \(your balance\)$/m);
  });

  it('upload FILE prints the URL; generate --image FILE uploads it and starts image_to_video', async () => {
    const file = path.join(tmp, 'ref.png');
    writeFileSync(file, await sharp({ create: { width: 32, height: 32, channels: 3, background: '#00aa44' } }).png().toBuffer());
    const [uploaded, generated] = await Promise.all([
      vidgen(['upload', file]),
      vidgen(['generate', 'it waves', '--image', file, '--duration', '3', '--json']),
    ]);
    expect(uploaded.code).toBe(0);
    expect(uploaded.stdout.trim()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/media\/uploads\/\w+\.png$/);
    expect(generated.code).toBe(0);
    expect(JSON.parse(generated.stdout)).toMatchObject({
      status: 'processing',
      generation_type: 'image_to_video',
      image_url: expect.stringContaining('/media/uploads/'),
    });
  });

  it('models lists the catalogue; quote prices a start; --seed, --negative and --end-image reach the task', async () => {
    const first = path.join(tmp, 'first.png');
    const last = path.join(tmp, 'last.png');
    writeFileSync(first, await sharp({ create: { width: 32, height: 32, channels: 3, background: '#aa4400' } }).png().toBuffer());
    writeFileSync(last, await sharp({ create: { width: 32, height: 32, channels: 3, background: '#0044aa' } }).png().toBuffer());
    const [models, quote, poor, generated] = await Promise.all([
      vidgen(['models']),
      vidgen(['quote', 'generate', 'a cat', '--model', 'vid-2-0', '--duration', '5', '--seed', '7', '--json']),
      vidgen(['quote', 'generate', 'a cat', '--duration', '12'], { VIDGEN_API_KEY: await newKey(10) }),
      vidgen(['generate', 'dusk', '--image', first, '--end-image', last, '--seed', '42', '--negative', 'rain', '--duration', '3', '--json']),
    ]);
    expect(models.code).toBe(0);
    expect(models.stdout).toMatch(/^vid-2-0\s+video\s+7\.5 credits\/second\s+subscription\s+3-12s\s+image_to_video,end_image,seed,negative_prompt$/m);
    expect(models.stdout).toMatch(/^image-2\s+image\s+5 credits\/image/m);
    expect(quote.code).toBe(0);
    expect(JSON.parse(quote.stdout)).toEqual({ kind: 'video', model: 'vid-2-0', credits: 38, balance: expect.any(Number), can_start: true, reason: null });
    expect(poor.stdout.trim()).toBe('vid-1-5-pro: 60 credits (balance 10); would be refused: insufficient_credits');
    expect(generated.code).toBe(0);
    expect(JSON.parse(generated.stdout)).toMatchObject({
      generation_type: 'image_to_video',
      image_url: expect.stringContaining('/media/uploads/'),
      end_image_url: expect.stringContaining('/media/uploads/'),
      seed: 42,
      negative_prompt: 'rain',
    });
  });

  it('--end-user and --metadata reach the task; videos --end-user lists only that end user\'s', async () => {
    const key = { VIDGEN_API_KEY: await newKey(200) };
    const start = async (endUser: string, order: string) => {
      const result = await vidgen(['generate', 'a kite', '--duration', '3', '--end-user', endUser, '--metadata', `order=${order}`, '--metadata', 'plan=pro', '--json'], key);
      expect(result.code).toBe(0);
      const video = JSON.parse(result.stdout);
      expect(video).toMatchObject({ end_user: endUser, metadata: { order, plan: 'pro' } });
      return video.video_id as string;
    };
    const carol = [await start('carol', '1'), await start('dave', '2'), await start('carol', '3')].filter((_, index) => index !== 1);
    // The end user's list is read from an eventually consistent index: poll until both show.
    const listed = await pollUntil(async () => {
      const result = await vidgen(['videos', '--end-user', 'carol', '--json'], key);
      const page = JSON.parse(result.stdout);
      return page.videos.length === 2 && page;
    });
    expect(listed.videos.map((video: { video_id: string }) => video.video_id)).toEqual([carol[1], carol[0]]);
    expect(listed.pagination).toMatchObject({ total: 2 });
    const refused = await vidgen(['generate', 'a kite', '--metadata', 'no-equals'], key);
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('--metadata: expected key=value, got "no-equals"')]);
  });

  it('--deliver-to, --deliver-header, --thumbnail-to and --no-keep-output: both files PUT to the store with the headers, our copy deleted', async () => {
    const store = await startFakeStore();
    try {
      const key = { VIDGEN_API_KEY: await newKey(200) };
      const started = await vidgen(
        ['generate', 'a kite', '--duration', '3', '--deliver-to', `${store.origin}/kite.mp4`, '--deliver-header', 'x-ms-blob-type: BlockBlob',
          '--deliver-header', 'content-type: video/mp4', '--thumbnail-to', `${store.origin}/kite.jpg`, '--no-keep-output', '--json'],
        key,
      );
      expect(started.code).toBe(0);
      const id = JSON.parse(started.stdout).video_id as string;
      const final = await pollUntil(async () => {
        const view = JSON.parse((await vidgen(['status', id, '--json'], key)).stdout);
        return view.delivery?.status !== 'pending' && view.output_deleted_at !== null && view;
      });
      expect(final.delivery).toMatchObject({ status: 'delivered', attempts: 1, last_error: null });
      const [video] = store.putsTo('/kite.mp4');
      const [thumbnail] = store.putsTo('/kite.jpg');
      expect(video!.headers).toMatchObject({ 'x-ms-blob-type': 'BlockBlob', 'content-type': 'video/mp4' });
      // The thumbnail gets the headers but the video's content type.
      expect(thumbnail!.headers['x-ms-blob-type']).toBe('BlockBlob');
      expect(thumbnail!.headers['content-type']).toBeUndefined();
      expect(store.object('/kite.mp4')!.subarray(4, 8).toString('latin1')).toBe('ftyp');
    } finally {
      await store.close();
    }
  });

  it('a failed task exits 1 with its error code', async () => {
    const result = await vidgen(['generate', 'sim:fail please', '--duration', '3', '--wait', '--interval', '0.3']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^status\s+failed$/m);
    expect(result.stderr).toMatch(/^error \[upstream_error\]: .*Your credits were refunded\. \(vid_\w+\)$/m);
  });

  it('a content rejection says "refunded" once', async () => {
    const result = await vidgen(['generate', 'sim:content please', '--duration', '3', '--wait', '--interval', '0.3']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error \[content_rejected\]: .*\(vid_\w+\)$/m);
    expect(result.stderr.match(/refunded/g)).toHaveLength(1);
  });

  it('API errors exit 1 with "error [code]: message (request id ...)"', async () => {
    const closed = await closedPort();
    const [badKey, badKeyJson, invalid, unknown, unreachable] = await Promise.all([
      vidgen(['credits'], { VIDGEN_API_KEY: 'vg_live_notakeynotakeynotakeynotakey00' }),
      vidgen(['credits', '--json'], { VIDGEN_API_KEY: 'vg_live_notakeynotakeynotakeynotakey00' }),
      vidgen(['generate', 'x', '--duration', '99']),
      vidgen(['status', 'vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ']),
      vidgen(['credits'], { VIDGEN_BASE_URL: `http://127.0.0.1:${closed}/api/v1` }),
    ]);
    expect(badKey.code).toBe(1);
    expect(badKey.stdout).toBe('');
    expect(badKey.stderr).toMatch(/^error \[unauthorized\]: Missing or invalid API key\..* \(request id [0-9a-f-]{36}\)$/m);
    expect(badKeyJson.code).toBe(1);
    expect(JSON.parse(badKeyJson.stdout)).toEqual({
      error: { code: 'unauthorized', message: expect.stringMatching(/API key/), status: 401, request_id: expect.any(String) },
    });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^error \[validation_error\]: .*duration/m);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error \[not_found\]: /m);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^retrying in \d+\.\ds \(attempt 1\) after \[network_error\]/m);
    expect(unreachable.stderr).toMatch(/^error \[network_error\]: Could not reach GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/credits: .*ECONNREFUSED/m);
  });

  it('usage prints the report as a table with totals, --json as the API has it, --csv as the API\'s own bytes', async () => {
    const key = await newKey(100);
    const failed = await vidgen(['generate', 'sim:fail a fox', '--duration', '3', '--wait', '--interval', '0.2'], { VIDGEN_API_KEY: key });
    expect(failed.code).toBe(1);
    expect((await vidgen(['generate', 'a fox', '--duration', '3'], { VIDGEN_API_KEY: key })).code).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    const range = ['--from', today, '--to', today];
    const [table, json, csv] = await Promise.all([
      vidgen(['usage', ...range, '--group-by', 'model'], { VIDGEN_API_KEY: key }),
      vidgen(['usage', '--json'], { VIDGEN_API_KEY: key }),
      vidgen(['usage', ...range, '--group-by', 'model', '--csv'], { VIDGEN_API_KEY: key }),
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(`Usage ${today} to ${today} (UTC), by model:`);
    expect(table.stdout).toMatch(/^vid-1-5-pro +2 +30 +15 +15$/m);
    expect(table.stdout).toMatch(/^total +2 +30 +15 +15$/m);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ group_by: 'day', totals: { tasks: 2, credits_charged: 30, credits_refunded: 15, credits_net: 15 } });
    const api = await fetch(`${stack.baseUrl}/usage?from=${today}&to=${today}&group_by=model`, { headers: { Authorization: `Bearer ${key}`, Accept: 'text/csv' } });
    expect(csv.stdout).toBe(await api.text());
    expect(csv.stdout).toBe('model,tasks,credits_charged,credits_refunded,credits_net\r\nvid-1-5-pro,2,30,15,15\r\n');
    // The API's refusal of a date: exit 1 with its message naming the field.
    const refused = await vidgen(['usage', '--from', '2026-02-30'], { VIDGEN_API_KEY: key });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/error \[validation_error\]: from: 2026-02-30 is not a calendar date/);
  });

  it('usage errors exit 2 with a message and nothing on stdout', async () => {
    const cases: Array<[string[], RegExp, Record<string, string>?]> = [
      [['generate'], /"generate" needs PROMPT/],
      [['frobnicate'], /Unknown command "frobnicate"/],
      [['generate', 'a', 'cat'], /Too many arguments for "generate": cat\. Quote a prompt/],
      [['generate', 'x', '--duration', 'ten'], /--duration must be a number/],
      [['generate', 'x', '--format', 'png'], /--format is not an option of "generate"/],
      [['status', 'abc'], /not a task id/],
      [['videos', '--colour', 'red'], /^vidgen: Unknown option --colour\.$/m],
      [['generate', 'x', '--durtion', '3'], /^vidgen: Unknown option --durtion\. Did you mean --duration\?$/m],
      [['upload', path.join(tmp, 'missing.png')], /Cannot read .*missing\.png: ENOENT/],
      [['credits'], /No API key and no session\. Set VIDGEN_API_KEY/, { VIDGEN_API_KEY: '' }],
      // An API key is configured, but keys are the signed-in holder's.
      [['keys'], /"keys" acts as the signed-in account holder \(an API key cannot manage keys\)\. Sign in first: npx vidgen login/],
      [['keys', 'create', '--name', 'x', '--scopes', 'read,admin'], /--scopes: unknown scope "admin"/],
      [['usage', '--group-by', 'week'], /--group-by must be one of day, model, key, end_user; got "week"/],
      [['usage', '--csv', '--json'], /--csv and --json are two answers/],
      [['members'], /"members" acts as the signed-in account holder \(an API key cannot manage the account's team\)/],
      [['credits', '--account', 'acc_01ANY'], /--account acc_01ANY acts as the signed-in account holder in one of their accounts/],
      [['credits', '--account', 'someone'], /--account must be an account id such as acc_\.\.\.; got "someone"/],
      [['login', '--email', 'a@b.c', '--password', 'x', '--account', 'acc_01ANY'], /--account \(or VIDGEN_ACCOUNT\) does not apply to "login"/],
      [['members', 'set-role', 'h1', 'boss'], /ROLE must be one of owner, admin, developer, billing, viewer; got "boss"/],
      [['members', 'promote'], /Unknown members command "promote"/],
      [['members', 'remove'], /"members remove" needs HOLDER_ID/],
      [['members', 'invite', 'a@b.c'], /"members invite" needs EMAIL and ROLE/],
      [['invitations', 'accept'], /"invitations accept" needs INVITATION_ID/],
      [['audit', '--csv', '--json'], /--csv and --json are two answers/],
      [['account', 'retention'], /"account retention" needs DAYS \(1 to 3650\) or off/],
      [['account', 'retention', 'forever'], /DAYS must be a number, got "forever"/],
      [['account', 'retention', '30'], /"account retention" acts as the signed-in account holder \(an API key cannot manage retention\)/],
    ];
    const results = await Promise.all(cases.map(([args, , extra]) => vidgen(args, extra)));
    results.forEach((result, i) => {
      const [args, message] = cases[i]!;
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toContain('Run "npx vidgen --help" for usage.');
    });
  });

  it('reads the key and base URL from the config file; --help prints usage', async () => {
    const config = path.join(tmp, 'config.json');
    writeFileSync(config, JSON.stringify({ apiKey: await newKey(40), baseUrl: stack.baseUrl }));
    const [fromFile, help] = await Promise.all([
      vidgen(['credits', '--json'], { VIDGEN_API_KEY: '', VIDGEN_BASE_URL: '', VIDGEN_CONFIG: config }),
      vidgen(['--help']),
    ]);
    expect(fromFile.code).toBe(0);
    expect(JSON.parse(fromFile.stdout).credits).toBe(40);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npx vidgen <command>/);
  });
});

describe('vidgen webhooks listen and vidgen cancel', () => {
  it('prints each verified event, and removes its endpoint on Ctrl-C', async () => {
    const key = await newKey(100);
    // Node itself, not the tsx CLI: the CLI relays a SIGINT and kills its child (exit 130) when the
    // child does not confirm within 30 ms, which a loaded machine misses; a terminal's Ctrl-C goes
    // to the whole process group, so a person never meets that relay.
    const child = spawnScript('bin/vidgen.ts', ['webhooks', 'listen'], { ...env, VIDGEN_API_KEY: key }, 'node --import tsx');
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    const until = async (test: () => boolean, what: string) => {
      for (let i = 0; i < 300 && !test(); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      if (!test()) throw new Error(`timed out waiting for ${what}; stderr: ${stderr}`);
    };
    const api = (pathname: string, method = 'GET') =>
      fetch(`${stack.baseUrl}${pathname}`, { method, headers: { Authorization: `Bearer ${key}` } }).then((r) => r.json() as Promise<{ data: any }>);
    try {
      await until(() => /Ready: .*\(webhook whk_/.test(stderr), 'the Ready line');
      const webhookId = /\(webhook (whk_[0-9A-Z]+)\)/.exec(stderr)![1]!;
      const { data } = await api(`/webhooks/${webhookId}/test`, 'POST');
      await until(() => stdout.includes(data.event_id), 'the event line');
      expect(stdout).toMatch(new RegExp(`webhook\\.test\\s+${data.event_id}\\s+${webhookId}`));

      const task = await vidgen(['generate', 'sim:stall a kite', '--duration', '3', '--json'], { VIDGEN_API_KEY: key });
      const videoId = JSON.parse(task.stdout).video_id as string;
      const canceled = await vidgen(['cancel', videoId, '--json'], { VIDGEN_API_KEY: key });
      expect([canceled.code, JSON.parse(canceled.stdout)]).toEqual([0, expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code: 'canceled' }) })]);
      await until(() => stdout.includes(`video.failed`), 'the video.failed line');
      expect(stdout).toContain(`${videoId} failed`);
      const again = await vidgen(['cancel', videoId], { VIDGEN_API_KEY: key });
      expect([again.code, again.stderr]).toEqual([1, expect.stringContaining('[task_not_cancelable]')]);

      // delete: only with --yes; a failed task takes output_deleted_at.
      const unconfirmed = await vidgen(['delete', videoId], { VIDGEN_API_KEY: key });
      expect([unconfirmed.code, unconfirmed.stderr]).toEqual([2, expect.stringContaining('pass --yes')]);
      const deleted = await vidgen(['delete', videoId, '--yes', '--json'], { VIDGEN_API_KEY: key });
      expect([deleted.code, JSON.parse(deleted.stdout)]).toEqual([0, expect.objectContaining({ video_id: videoId, output_deleted_at: expect.any(String) })]);

      const deliveries = await vidgen(['webhooks', 'deliveries', webhookId], { VIDGEN_API_KEY: key });
      expect(deliveries.code).toBe(0);
      expect(deliveries.stdout).toMatch(new RegExp(`^${data.event_id}\\s+webhook\\.test\\s+delivered\\s+1 attempt\\s`, 'm'));
      expect(deliveries.stdout).toMatch(/^Page 1 of 1 \(2 deliveries\)\.$/m);

      const listed = await vidgen(['webhooks', 'list'], { VIDGEN_API_KEY: key });
      expect([listed.code, listed.stdout]).toEqual([0, expect.stringMatching(new RegExp(`^${webhookId}\\s+http://127\\.0\\.0\\.1:\\d+/\\s+every event\\s+\\S+ \\S+Z\\s+vidgen webhooks listen\n1 endpoint\\.\n$`))]);
    } finally {
      child.kill('SIGINT');
    }
    expect(await closed).toBe(0);
    expect(stderr).toContain('Removed webhook');
    expect((await api('/webhooks')).data).toEqual({ webhooks: [] });
  }, 60_000);

  it('webhooks delete removes an endpoint webhooks list shows, such as one nobody listens on', async () => {
    const key = await newKey(100);
    const created = await fetch(`${stack.baseUrl}/webhooks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${await closedPort()}/hooks`, events: ['video.failed'] }),
    }).then((response) => response.json() as Promise<{ data: { webhook_id: string } }>);
    const webhookId = created.data.webhook_id;

    const listed = await vidgen(['webhooks', 'list', '--json'], { VIDGEN_API_KEY: key });
    expect([listed.code, JSON.parse(listed.stdout)]).toEqual([0, { webhooks: [expect.objectContaining({ webhook_id: webhookId, events: ['video.failed'] })] }]);
    const deleted = await vidgen(['webhooks', 'delete', webhookId], { VIDGEN_API_KEY: key });
    expect([deleted.code, deleted.stdout]).toEqual([0, `Deleted webhook ${webhookId}: nothing more is sent to it.\n`]);
    const empty = await vidgen(['webhooks', 'list'], { VIDGEN_API_KEY: key });
    expect([empty.code, empty.stdout]).toEqual([0, 'No webhook endpoints.\n']);
    const again = await vidgen(['webhooks', 'delete', webhookId], { VIDGEN_API_KEY: key });
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining('error [not_found]')]);
  });
});


describe('vidgen events --follow', () => {
  it('prints each ending as it happens while no webhook exists, in order, and exits 0 on Ctrl-C with the cursor to resume', async () => {
    const key = await newKey(100);
    // Node itself, not the tsx CLI (see "webhooks listen" above: its 30 ms signal relay).
    const child = spawnScript('bin/vidgen.ts', ['events', '--follow', '--interval', '0.2'], { ...env, VIDGEN_API_KEY: key }, 'node --import tsx');
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    const until = async (test: () => boolean, what: string) => {
      for (let i = 0; i < 300 && !test(); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      if (!test()) throw new Error(`timed out waiting for ${what}; stderr: ${stderr}`);
    };
    const canceledVideo = async () => {
      const task = await vidgen(['generate', 'sim:stall a kite', '--duration', '3', '--json'], { VIDGEN_API_KEY: key });
      const videoId = JSON.parse(task.stdout).video_id as string;
      expect((await vidgen(['cancel', videoId], { VIDGEN_API_KEY: key })).code).toBe(0);
      return videoId;
    };
    try {
      await until(() => stderr.includes('Following your task endings'), 'the follow line');
      const first = await canceledVideo();
      await until(() => stdout.includes(first), 'the first ending');
      const second = await canceledVideo();
      await until(() => stdout.includes(second), 'the second ending');
      const lines = stdout.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(new RegExp(`video\\.failed\\s+${first}\\s+canceled$`));
      expect(lines[1]).toMatch(new RegExp(`video\\.failed\\s+${second}\\s+canceled$`));
    } finally {
      child.kill('SIGINT');
    }
    expect(await closed).toBe(0);
    expect(stderr).toMatch(/Stopped\. Resume with: npx vidgen events --follow --after \S+/);
  }, 60_000);
});

describe('vidgen accounts, members and audit', () => {
  it("an owner invites a developer who accepts, lists the team, a member acts in the owner's account with --account, the owner reads the audit log and changes the team", async () => {
    const asHolder = async (who: { email: string }) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'vidgen-team-'));
      const holderEnv = { VIDGEN_CONFIG: path.join(dir, 'config.json'), VIDGEN_IDENTITY_ENDPOINT: stack.identity.endpoint, VIDGEN_CLIENT_ID: stack.identity.clientId };
      expect((await vidgen(['login', '--email', who.email, '--password', GOOD_PASSWORD], holderEnv)).code).toBe(0);
      return (...args: string[]) => vidgen(args, holderEnv);
    };
    const [owner, dev] = await Promise.all([signedInHolder(stack), signedInHolder(stack)]);
    const asOwner = await asHolder(owner);
    // An API key is configured too (env): the session commands act as the holder all the same.
    const ownAccount = JSON.parse((await asOwner('accounts', '--json')).stdout).accounts[0].account_id as string;
    let asDev = await asHolder(dev);
    const devAccount = JSON.parse((await asDev('accounts', '--json')).stdout).accounts[0].account_id as string;
    // The owner invites the developer (and someone else, withdrawn); the developer finds the invitation and accepts it.
    const [invited, other] = await Promise.all([
      asOwner('members', 'invite', dev.email, 'developer', '--json'),
      asOwner('members', 'invite', `someone-${Date.now()}@example.com`, 'viewer', '--json'),
    ]);
    const invitation = JSON.parse(invited.stdout) as { invitation_id: string; email: string; role: string };
    expect(invitation).toMatchObject({ email: dev.email, role: 'developer', invitation_id: expect.stringMatching(/^inv_/) });
    const withdrawn = await asOwner('members', 'revoke', JSON.parse(other.stdout).invitation_id);
    expect(withdrawn.stdout).toMatch(/^Revoked inv_\w+\.$/m);
    const mine = await asDev('invitations');
    expect(mine.stdout).toMatch(new RegExp(`^${invitation.invitation_id}\\s+${ownAccount}\\s+developer\\s+until `, 'm'));
    const accepted = await asDev('invitations', 'accept', invitation.invitation_id);
    expect([accepted.code, accepted.stdout]).toEqual([0, expect.stringMatching(new RegExp(`^You are now developer in ${ownAccount}: `))]);
    asDev = await asHolder(dev); // a new session: the authorizer's cached answer for the old one lists one account

    // Independent reads side by side: each run is a process start, slow on a loaded machine.
    const [team, accounts, there] = await Promise.all([asOwner('members'), asDev('accounts'), asDev('account', '--json', '--account', ownAccount)]);
    expect(team.code).toBe(0);
    expect(team.stdout).toMatch(new RegExp(`^${owner.holderId}\\s+${owner.email}\\s+owner\\s+joined `, 'm'));
    expect(team.stdout).toMatch(new RegExp(`^${dev.holderId}\\s+${dev.email}\\s+developer\\s+joined `, 'm'));
    expect(team.stdout).toMatch(/^2 members\.$/m);

    expect(accounts.stdout).toMatch(new RegExp(`^${devAccount}\\s+owner\\s+default\\n${ownAccount}\\s+developer\\n`));
    // --account: any command acts as the member in the owner's account, though an API key is configured.
    expect(JSON.parse(there.stdout).account_id).toBe(ownAccount);
    const [made, refused] = await Promise.all([
      asDev('keys', 'create', '--name', 'dev made this', '--account', ownAccount, '--json'),
      // A developer may not manage the team: the API's 403, naming the roles that may.
      asDev('members', '--account', ownAccount),
    ]);
    expect(made.code).toBe(0);
    const key = JSON.parse(made.stdout) as { key_id: string; created_by: string };
    expect(key.created_by).toBe(dev.holderId);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/^error \[forbidden\]: .*developer.*owner, admin/m)]);

    const [audit, csv, older] = await Promise.all([asOwner('audit'), asOwner('audit', '--csv', '--limit', '2'), asOwner('audit', '--limit', '1', '--json')]);
    expect(audit.code).toBe(0);
    expect(audit.stdout).toMatch(new RegExp(`^\\S+ \\S+\\s+${dev.email}\\s+key\\.created\\s+key ${key.key_id}\\s+127\\.0\\.0\\.1$`, 'm'));
    const lines = csv.stdout.trim().split('\r\n');
    expect(lines[0]).toBe('id,at,actor_type,actor_id,actor_email,action,target_type,target_id,ip,user_agent,details');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`,key.created,key,${key.key_id},`);
    const newest = JSON.parse(older.stdout) as { has_more: boolean; next_after: string };
    expect(newest.has_more).toBe(true);
    const second = JSON.parse((await asOwner('audit', '--limit', '1', '--after', newest.next_after, '--json')).stdout) as { events: Array<{ id: string }> };
    expect(second.events[0]!.id < newest.next_after).toBe(true);

    const demoted = await asOwner('members', 'set-role', dev.holderId, 'viewer');
    expect([demoted.code, demoted.stdout]).toEqual([0, `${dev.email} (${dev.holderId}) is now viewer.\n`]);
    const lastOwner = await asOwner('members', 'set-role', owner.holderId, 'admin');
    expect([lastOwner.code, lastOwner.stderr]).toEqual([1, expect.stringMatching(/^error \[last_owner\]: /m)]);
    // Retention, as the owner: set, refused out of range (the API's 400 naming the field), then off.
    const kept = await asOwner('account', 'retention', '30');
    expect([kept.code, kept.stdout]).toEqual([0, `${ownAccount} keeps results 30 days after they complete; older ones are deleted within minutes.\n`]);
    const tooLong = await asOwner('account', 'retention', '5000');
    expect([tooLong.code, tooLong.stderr]).toEqual([1, expect.stringMatching(/^error \[validation_error\]: output_retention_days/m)]);
    expect(JSON.parse((await asOwner('account', 'retention', 'off', '--json')).stdout)).toMatchObject({ account_id: ownAccount, output_retention_days: null });

    const removed = await asOwner('members', 'remove', dev.holderId);
    expect([removed.code, removed.stdout]).toEqual([0, expect.stringMatching(new RegExp(`^Removed ${dev.holderId}: `))]);
    expect(JSON.parse((await asOwner('members', '--json')).stdout).members.map((member: { holder_id: string }) => member.holder_id)).toEqual([owner.holderId]);
  }, 240_000);
});

describe('vidgen keys', () => {
  it('a signed-in holder creates, lists, updates and revokes a key, with an API key configured too', async () => {
    const holder = await signedInHolder(stack);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vidgen-keys-'));
    const holderEnv = {
      VIDGEN_CONFIG: path.join(dir, 'config.json'),
      VIDGEN_IDENTITY_ENDPOINT: stack.identity.endpoint,
      VIDGEN_CLIENT_ID: stack.identity.clientId,
    };
    const asHolder = (...args: string[]) => vidgen(args, holderEnv);
    expect((await asHolder('login', '--email', holder.email, '--password', GOOD_PASSWORD)).code).toBe(0);

    const created = await asHolder('keys', 'create', '--name', 'CI pipeline', '--scopes', 'generate,read', '--monthly-spend-limit', '500');
    expect(created.code).toBe(0);
    const apiKey = /^api_key\s+(vg_live_\S+)$/m.exec(created.stdout)?.[1];
    const keyId = /^key_id\s+(key_\w+)$/m.exec(created.stdout)?.[1];
    expect([apiKey, keyId]).toEqual([expect.any(String), expect.any(String)]);
    expect(created.stdout).toMatch(/^Store this key now: it will not be shown again\.$/m);
    // The key works, and speaks for the holder's account.
    const used = await vidgen(['credits', '--json'], { VIDGEN_API_KEY: apiKey! });
    expect([used.code, JSON.parse(used.stdout)]).toEqual([0, expect.objectContaining({ credits: 0 })]);

    const test = await asHolder('keys', 'create', '--name', 'staging', '--mode', 'test', '--json');
    expect(test.code).toBe(0);
    expect(JSON.parse(test.stdout)).toMatchObject({ mode: 'test', api_key: expect.stringMatching(/^vg_test_/), scopes: ['generate', 'read', 'webhooks'], monthly_spend_limit: null });
    expect(test.stderr).toContain('it will not be shown again');

    const listed = await asHolder('keys');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${keyId}\\s+"CI pipeline"\\s+live\\s+${apiKey!.slice(0, 12)}\\s+generate,read\\s+spent 0 of 500\\s+used \\S+ \\S+\\s+no expiry\\s+active$`, 'm'));
    expect(listed.stdout).toMatch(/"staging"\s+test\s+vg_test_\S+\s+generate,read,webhooks\s+spent 0 of no limit\s+never used\s+no expiry\s+active$/m);
    expect(listed.stdout).toMatch(/^2 keys, 2 active\.$/m);
    expect(listed.stdout).not.toContain(apiKey);

    const updated = await asHolder('keys', 'update', keyId!, '--name', 'CI', '--scopes', 'read', '--monthly-spend-limit', 'none', '--json');
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ key_id: keyId, name: 'CI', scopes: ['read'], monthly_spend_limit: null, revoked_at: null });

    const revoked = await asHolder('keys', 'revoke', keyId!);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^Revoked ${keyId} \\("CI", vg_live_\\S+\\) at \\d{4}-\\S+Z\\.$`, 'm'));
    const after = JSON.parse((await asHolder('keys', '--json')).stdout) as { keys: Array<{ key_id: string; revoked_at: string | null; name: string }> };
    expect(after.keys.find((key) => key.key_id === keyId)).toMatchObject({ name: 'CI', revoked_at: expect.any(String) });

    const unknown = await asHolder('keys', 'revoke', 'key_000000000000000000000000');
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringMatching(/^error \[not_found\]: /m)]);
  });
});
