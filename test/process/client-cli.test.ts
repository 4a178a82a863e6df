import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseCommand, USAGE, UsageError } from '#bin/vidgen/args';
import { configPath, loadConfig } from '#bin/vidgen/config';
import { writeAddresses } from '#bin/local-stack/discovery';
import { deadPid, RUNNING } from '#test-support/local-stack-addresses';
import { numberedFile } from '#bin/vidgen/download';
import { formatDeliveryList, formatFields, formatKeyList, formatVideoList, formatWebhookList } from '#bin/vidgen/format';
import { startProgress } from '#bin/vidgen/progress';
import type { VideoTask } from '#client';

/** The vidgen CLI's pure parts: argument parsing, configuration, output. */

describe('parseCommand', () => {
  it('reads generate with every option; --out implies --wait', () => {
    expect(
      parseCommand([
        'generate', 'a cat', '--model', 'vid-2-0', '--duration', '3', '--resolution', '480p',
        '--aspect-ratio', '9:16', '--image', 'cat.png', '--out', 'x.mp4', '--interval', '0.5', '--timeout', '60', '--json',
      ]),
    ).toEqual({
      name: 'generate',
      prompt: 'a cat',
      model: 'vid-2-0',
      duration: 3,
      resolution: '480p',
      aspectRatio: '9:16',
      image: 'cat.png',
      wait: { wait: true, out: 'x.mp4', intervalMs: 500, timeoutMs: 60_000 },
      json: true,
    });
    expect(parseCommand(['generate', 'x'])).toMatchObject({ wait: { wait: false, out: undefined, intervalMs: 5000, timeoutMs: undefined }, json: false });
  });

  it('reads image with repeated --ref, status by id prefix, lists and the rest', () => {
    expect(parseCommand(['image', 'p', '--ref', 'a.png', '--ref', 'https://x/b.jpg', '--format', 'webp', '--wait'])).toMatchObject({
      name: 'image',
      refs: ['a.png', 'https://x/b.jpg'],
      format: 'webp',
      wait: { wait: true },
    });
    expect(parseCommand(['status', 'vid_1'])).toMatchObject({ name: 'status', kind: 'video', id: 'vid_1' });
    expect(parseCommand(['status', 'img_1', '--wait'])).toMatchObject({ name: 'status', kind: 'image', wait: { wait: true } });
    expect(parseCommand(['videos', '--page', '2', '--limit', '10'])).toEqual({ name: 'videos', page: 2, limit: 10, json: false });
    expect(parseCommand(['images'])).toEqual({ name: 'images', page: undefined, limit: undefined, json: false });
    expect(parseCommand(['upload', 'f.png', '--json'])).toEqual({ name: 'upload', file: 'f.png', json: true });
    expect(parseCommand(['credits'])).toEqual({ name: 'credits', json: false });
    expect(parseCommand(['--help'])).toEqual({ name: 'help' });
    expect(parseCommand(['help'])).toEqual({ name: 'help' });
    expect(parseCommand(['generate', '--', '--a prompt that starts with dashes'])).toMatchObject({ prompt: '--a prompt that starts with dashes' });
  });

  it('reads --seed, --negative and --end-image; models; quote as the start it prices', () => {
    expect(parseCommand(['generate', 'x', '--image', 'a.png', '--end-image', 'https://x/z.png', '--seed', '7', '--negative', 'blur'])).toMatchObject({
      name: 'generate',
      image: 'a.png',
      endImage: 'https://x/z.png',
      seed: 7,
      negative: 'blur',
    });
    expect(parseCommand(['image', 'p', '--seed', '0', '--negative', 'text'])).toMatchObject({ name: 'image', seed: 0, negative: 'text' });
    expect(parseCommand(['models', '--json'])).toEqual({ name: 'models', json: true });
    expect(parseCommand(['quote', 'generate', 'a cat', '--model', 'vid-2-0', '--duration', '12', '--json'])).toMatchObject({
      name: 'quote',
      json: true,
      start: { name: 'generate', prompt: 'a cat', model: 'vid-2-0', duration: 12 },
    });
    // An option value spelled like the command is still the option's value.
    expect(parseCommand(['quote', 'image', 'p', '--negative', 'quote'])).toMatchObject({ name: 'quote', start: { name: 'image', negative: 'quote' } });
  });

  it('reads --end-user and repeated --metadata KEY=VALUE on both starts, and --end-user on the lists', () => {
    expect(parseCommand(['generate', 'x', '--end-user', 'alice@example.com', '--metadata', 'order=1001', '--metadata', 'note=a=b'])).toMatchObject({
      name: 'generate',
      endUser: 'alice@example.com',
      metadata: { order: '1001', note: 'a=b' },
    });
    expect(parseCommand(['image', 'p', '--metadata', 'empty='])).toMatchObject({ name: 'image', metadata: { empty: '' } });
    expect(parseCommand(['image', 'p'])).not.toHaveProperty('metadata');
    expect(parseCommand(['quote', 'generate', 'x', '--end-user', 'bob'])).toMatchObject({ start: { endUser: 'bob' } });
    expect(parseCommand(['videos', '--end-user', 'alice', '--limit', '5'])).toEqual({ name: 'videos', page: undefined, limit: 5, endUser: 'alice', json: false });
    expect(parseCommand(['images', '--end-user', 'bob'])).toMatchObject({ name: 'images', endUser: 'bob' });
  });

  it('reads --deliver-to with repeated --deliver-header NAME: VALUE, --thumbnail-to and --no-keep-output', () => {
    const url = 'https://acct.blob.core.windows.net/c/v.mp4?sv=2024-11-04&sp=cw&sig=x';
    expect(
      parseCommand(['generate', 'x', '--deliver-to', url, '--deliver-header', 'x-ms-blob-type: BlockBlob', '--deliver-header', 'x-ms-meta-a:b:c', '--thumbnail-to', 'https://t.example/t.jpg', '--no-keep-output']),
    ).toMatchObject({
      name: 'generate',
      deliverTo: { url, headers: { 'x-ms-blob-type': 'BlockBlob', 'x-ms-meta-a': 'b:c' } },
      thumbnailTo: 'https://t.example/t.jpg',
      keepOutput: false,
    });
    expect(parseCommand(['image', 'p', '--deliver-to', 'https://b.example/i.png'])).toMatchObject({ name: 'image', deliverTo: { url: 'https://b.example/i.png', headers: {} } });
    const plain = parseCommand(['image', 'p']);
    for (const field of ['deliverTo', 'thumbnailTo', 'keepOutput']) expect(plain).not.toHaveProperty(field);
  });

  it.each([
    [['image', 'p', '--deliver-to', 'https://b.example/i', '--thumbnail-to', 'https://b.example/t'], /--thumbnail-to is not an option of "image"/],
    [['generate', 'x', '--deliver-header', 'a: b'], /--deliver-header needs --deliver-to URL/],
    [['generate', 'x', '--no-keep-output'], /--no-keep-output needs --deliver-to URL/],
    [['generate', 'x', '--thumbnail-to', 'https://b.example/t'], /--thumbnail-to needs --deliver-to URL/],
    [['generate', 'x', '--deliver-to', 'https://b.example/v', '--deliver-header', 'BlockBlob'], /--deliver-header: expected NAME: VALUE, got "BlockBlob"/],
    [['generate', 'x', '--deliver-to', 'https://b.example/v', '--deliver-header', 'x blob: y'], /--deliver-header: expected NAME: VALUE, got "x blob: y"/],
    [['image', 'p', '--deliver-to', 'https://b.example/v', '--deliver-header', 'A: 1', '--deliver-header', 'a: 2'], /--deliver-header: "a" is given twice/],
  ])('refuses the delivery options %j', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(message);
  });

  it.each([
    [['quote'], /"quote" needs generate or image/],
    [['quote', 'credits'], /"quote" prices a start/],
    [['quote', 'generate', 'x', '--wait'], /--wait, --out and --timeout do not apply/],
    [['image', 'p', '--end-image', 'z.png'], /--end-image is not an option of "image"/],
    [['generate', 'x', '--seed', 'seven'], /--seed must be a number/],
    [['generate', 'x', '--metadata', 'x'], /--metadata: expected key=value, got "x"/],
    [['generate', 'x', '--metadata', '=v'], /--metadata: expected key=value, got "=v"/],
    [['image', 'p', '--metadata', 'k=1', '--metadata', 'k=2'], /--metadata: "k" is given twice/],
    [['transactions', '--end-user', 'alice'], /--end-user is not an option of "transactions"/],
    [['videos', '--end-user', ''], /--end-user must not be empty/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(message);
  });

  it('reads webhooks listen and webhooks deliveries WEBHOOK_ID', () => {
    expect(parseCommand(['webhooks', 'listen', '--port', '4000'])).toEqual({ name: 'webhooks', action: 'listen', port: 4000, json: false });
    expect(parseCommand(['webhooks', 'deliveries', 'whk_1', '--limit', '5', '--json'])).toEqual({
      name: 'webhooks',
      action: 'deliveries',
      webhookId: 'whk_1',
      page: undefined,
      limit: 5,
      json: true,
    });
    expect(() => parseCommand(['webhooks', 'deliveries'])).toThrow(/"webhooks deliveries" needs WEBHOOK_ID/);
    expect(() => parseCommand(['webhooks', 'deliveries', 'whk_1', '--port', '1'])).toThrow(/--port is not an option of "webhooks deliveries"/);
    expect(() => parseCommand(['webhooks', 'listen', '--page', '1'])).toThrow(/--page is not an option of "webhooks listen"/);
  });

  it('reads webhooks list and webhooks delete WEBHOOK_ID', () => {
    expect(parseCommand(['webhooks', 'list'])).toEqual({ name: 'webhooks', action: 'list', json: false });
    expect(parseCommand(['webhooks', 'list', '--json'])).toEqual({ name: 'webhooks', action: 'list', json: true });
    expect(parseCommand(['webhooks', 'delete', 'whk_1'])).toEqual({ name: 'webhooks', action: 'delete', webhookId: 'whk_1', json: false });
    expect(() => parseCommand(['webhooks', 'delete'])).toThrow(/"webhooks delete" needs WEBHOOK_ID \(whk_\.\.\., the first column of "npx vidgen webhooks list"\)/);
    expect(() => parseCommand(['webhooks', 'delete', 'evt_1'])).toThrow(/"evt_1" is not a webhook id: webhook ids start with whk_ \(the first column of "npx vidgen webhooks list"\)/);
    expect(() => parseCommand(['webhooks', 'list', '--page', '1'])).toThrow(/--page is not an option of "webhooks list"/);
    expect(() => parseCommand(['webhooks', 'delete', 'whk_1', 'whk_2'])).toThrow(/Too many arguments for "webhooks": whk_2/);
    expect(() => parseCommand(['webhooks', 'remove'])).toThrow(/Unknown webhooks command "remove": use "webhooks listen", "webhooks list", "webhooks delete WEBHOOK_ID"/);
  });

  it('reads events [--after C] [--limit N] [--follow] [--interval SEC] and webhooks retry WEBHOOK_ID EVENT_ID', () => {
    expect(parseCommand(['events'])).toEqual({ name: 'events', limit: undefined, follow: false, intervalMs: 5000, json: false });
    expect(parseCommand(['events', '--follow', '--after', 'MTIuYWJj', '--interval', '0.5', '--limit', '10'])).toEqual({
      name: 'events',
      after: 'MTIuYWJj',
      limit: 10,
      follow: true,
      intervalMs: 500,
      json: false,
    });
    expect(() => parseCommand(['events', '--interval', '0'])).toThrow(/--interval must be a number of seconds above 0/);
    expect(() => parseCommand(['events', '--page', '2'])).toThrow(/--page is not an option of "events"/);
    expect(parseCommand(['webhooks', 'retry', 'whk_1', 'evt_1'])).toEqual({ name: 'webhooks', action: 'retry', webhookId: 'whk_1', eventId: 'evt_1', json: false });
    expect(() => parseCommand(['webhooks', 'retry', 'whk_1'])).toThrow(/"webhooks retry" needs WEBHOOK_ID \(whk_...\) and EVENT_ID/);
  });

  it('reads keys, keys create, keys update KEY_ID and keys revoke KEY_ID', () => {
    expect(parseCommand(['keys'])).toEqual({ name: 'keys', action: 'list', json: false });
    expect(parseCommand(['keys', 'list', '--json'])).toEqual({ name: 'keys', action: 'list', json: true });
    expect(
      parseCommand(['keys', 'create', '--name', 'CI pipeline', '--mode', 'test', '--scopes', 'generate, read,generate', '--monthly-spend-limit', '500', '--expires-at', '2027-01-31']),
    ).toEqual({
      name: 'keys',
      action: 'create',
      keyName: 'CI pipeline',
      mode: 'test',
      scopes: ['generate', 'read'],
      monthlySpendLimit: 500,
      expiresAt: '2027-01-31T00:00:00.000Z',
      json: false,
    });
    expect(parseCommand(['keys', 'create', '--name', 'x'])).toEqual({ name: 'keys', action: 'create', keyName: 'x', json: false });
    expect(parseCommand(['keys', 'update', 'key_1', '--scopes', 'read', '--monthly-spend-limit', 'none', '--json'])).toEqual({
      name: 'keys',
      action: 'update',
      keyId: 'key_1',
      scopes: ['read'],
      monthlySpendLimit: null,
      json: true,
    });
    expect(parseCommand(['keys', 'update', 'key_1', '--name', 'renamed', '--monthly-spend-limit', '20'])).toEqual({
      name: 'keys',
      action: 'update',
      keyId: 'key_1',
      keyName: 'renamed',
      monthlySpendLimit: 20,
      json: false,
    });
    expect(parseCommand(['keys', 'revoke', 'key_1'])).toEqual({ name: 'keys', action: 'revoke', keyId: 'key_1', json: false });
  });

  it.each([
    [['keys', 'create', '--name', 'x', '--scopes', 'generate,admin'], /^--scopes: unknown scope "admin"; the scopes are generate, read, webhooks/],
    [['keys', 'create', '--name', 'x', '--scopes', ' , '], /^--scopes needs at least one of generate, read, webhooks/],
    [['keys', 'create', '--name', 'x', '--monthly-spend-limit', 'lots'], /^--monthly-spend-limit must be a number, got "lots"/],
    [['keys', 'update', 'key_1', '--monthly-spend-limit', 'ten'], /^--monthly-spend-limit must be a number, got "ten"/],
    [['keys', 'create', '--name', 'x', '--mode', 'prod'], /^--mode must be live or test, got "prod"/],
    [['keys', 'create', '--name', 'x', '--expires-at', 'soon'], /^--expires-at must be an ISO 8601 date or time/],
    [['keys', 'create'], /"keys create" needs --name/],
    [['keys', 'create', '--name', ' '], /--name must not be empty/],
    [['keys', 'create', '--name', 'x', '--page', '2'], /--page is not an option of "keys"/],
    [['keys', 'update', 'key_1', '--mode', 'test'], /--mode is not an option of "keys update"/],
    [['keys', 'update', 'key_1', '--expires-at', '2027-01-31'], /--expires-at is not an option of "keys update"/],
    [['keys', 'update', 'key_1'], /"keys update" needs something to change: --name, --scopes or --monthly-spend-limit/],
    [['keys', 'revoke'], /"keys revoke" needs KEY_ID/],
    [['keys', 'revoke', 'key_1', '--name', 'x'], /--name is not an option of "keys revoke"/],
    [['keys', 'revoke', 'key_1', 'key_2'], /Too many arguments for "keys": key_2/],
    [['keys', 'list', '--scopes', 'read'], /--scopes is not an option of "keys list"/],
    [['keys', 'rotate'], /Unknown keys command "rotate"/],
    [['keys', 'revoke', 'abc'], /"abc" is not a key id: key ids start with key_/],
    [['keys', 'revoke', 'vg_live_secretsecretsecret'], /^That is an API key itself: give its id instead/],
  ])('keys: %j is a usage error: %s', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(UsageError);
    expect(() => parseCommand(argv)).toThrow(message);
  });

  it('never repeats an API key given where a key id belongs', () => {
    expect(() => parseCommand(['keys', 'revoke', 'vg_live_secretsecretsecret'])).toThrow(expect.objectContaining({ message: expect.not.stringContaining('secret') }));
  });

  it.each([
    [[], /No command given/],
    [['nope'], /Unknown command "nope"/],
    [['generate'], /"generate" needs PROMPT/],
    [['generate', '  '], /PROMPT must not be empty/],
    [['generate', 'a', 'b'], /Too many arguments/],
    [['credits', 'extra'], /Too many arguments for "credits": extra\.$/],
    [['generate', 'x', '--duration', ''], /--duration must be a number/],
    [['videos', '--page', 'two'], /--page must be a number, got "two"/],
    [['generate', 'x', '--interval', '0'], /--interval must be more than 0/],
    [['generate', 'x', '--timeout', '-1'], /--timeout/],
    [['image', 'x', '--image', 'a.png'], /--image is not an option of "image"/],
    [['credits', '--wait'], /--wait is not an option of "credits"/],
    [['status', 'job_1'], /video ids start with vid_, image ids with img_/],
    [['generate', 'x', '--bogus'], /^Unknown option --bogus\.$/],
    [['generate', 'x', '--durtion', '3'], /^Unknown option --durtion\. Did you mean --duration\?$/],
    [['videos', '--limt', '3'], /^Unknown option --limt\. Did you mean --limit\?$/],
    [['generate', 'x', '--aspect_ratio', '9:16'], /Did you mean --aspect-ratio\?$/],
    [['generate', 'x', '--wait=yes'], /--wait/],
  ])('%j is a usage error: %s', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(UsageError);
    expect(() => parseCommand(argv)).toThrow(message);
  });
});

describe('configuration', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vidgen-config-'));
  const file = (name: string, content: string) => {
    const full = path.join(dir, name);
    writeFileSync(full, content);
    return full;
  };

  it('the environment wins over the file; the file fills in; then the running local stack; then the default', () => {
    // An empty data folder: no local stack runs there.
    const DATA_DIR = mkdtempSync(path.join(os.tmpdir(), 'vidgen-data-'));
    const config = file('both.json', JSON.stringify({ apiKey: 'vg_live_file', baseUrl: 'https://file.example/api/v1' }));
    expect(loadConfig({ DATA_DIR, VIDGEN_CONFIG: config })).toEqual({ apiKey: 'vg_live_file', baseUrl: 'https://file.example/api/v1', baseUrlFrom: config });
    expect(loadConfig({ DATA_DIR, VIDGEN_CONFIG: config, VIDGEN_API_KEY: 'vg_live_env', VIDGEN_BASE_URL: 'https://env.example/api/v1' })).toEqual({
      apiKey: 'vg_live_env',
      baseUrl: 'https://env.example/api/v1',
      baseUrlFrom: 'VIDGEN_BASE_URL',
    });
    const noFile = { DATA_DIR, VIDGEN_CONFIG: path.join(dir, 'missing.json'), VIDGEN_API_KEY: 'k' };
    expect(loadConfig(noFile)).toEqual({ apiKey: 'k', baseUrl: 'http://127.0.0.1:3000/api/v1', baseUrlFrom: 'the default' });

    // `npm start` on another port records it in its data folder; vidgen goes there (this process stands in for it).
    writeAddresses(DATA_DIR, { ...RUNNING, pid: process.pid });
    expect(loadConfig(noFile)).toEqual({ apiKey: 'k', baseUrl: 'http://127.0.0.1:3700/api/v1', baseUrlFrom: expect.stringContaining('running local stack') });
    expect(loadConfig({ ...noFile, VIDGEN_BASE_URL: 'https://env.example/api/v1' }).baseUrl).toBe('https://env.example/api/v1');
    // A file left by a stack that is gone is ignored.
    writeAddresses(DATA_DIR, { ...RUNNING, pid: deadPid() });
    expect(loadConfig(noFile).baseUrl).toBe('http://127.0.0.1:3000/api/v1');
  });

  it('--help tells the base URL the way loadConfig finds it: the variable, the file, the running local stack, then the default', () => {
    expect(USAGE.replace(/\s+/g, ' ')).toContain(
      'Base URL: VIDGEN_BASE_URL, else "baseUrl" in the file, else the local stack npm start runs from this repository (whatever its port), else http://127.0.0.1:3000/api/v1.',
    );
  });

  it('finds ~/.config/vidgen/config.json, or under XDG_CONFIG_HOME', () => {
    expect(configPath({})).toBe(path.join(os.homedir(), '.config', 'vidgen', 'config.json'));
    expect(configPath({ XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/vidgen/config.json');
    expect(configPath({ VIDGEN_CONFIG: '/etc/v.json', XDG_CONFIG_HOME: '/xdg' })).toBe('/etc/v.json');
  });

  it.each([
    ['{not json', /is not valid JSON/],
    ['[1]', /must hold a JSON object/],
    ['{"apiKey": 5}', /"apiKey" must be a string/],
    ['{"clientId": 5}', /"clientId" must be a string/],
    ['{"apiKey": "k", "baseUrl": "localhost:3000"}', /must be an http\(s\) URL/],
  ])('%s is refused clearly', (content, message) => {
    expect(() => loadConfig({ VIDGEN_CONFIG: file(`c${Math.random()}.json`, content) })).toThrow(message);
  });

  it('without a key loads no apiKey: vidgen then acts through the session of vidgen login', () => {
    expect(loadConfig({ VIDGEN_CONFIG: file(`c${Math.random()}.json`, '{}') }).apiKey).toBeUndefined();
  });
});

describe('output', () => {
  const video: VideoTask = {
    video_id: 'vid_1',
    status: 'failed',
    model: 'vid-1-5-pro',
    generation_type: 'text_to_video',
    prompt: 'a very long prompt '.repeat(5),
    aspect_ratio: '16:9',
    duration: 5,
    livemode: true,
    thumbnail_url: null,
    resolution: '720p',
    end_image_url: null,
    seed: null,
    negative_prompt: null,
    end_user: null,
    metadata: {},
    credits_used: 25,
    credits_refunded: 25,
    progress: 40,
    error: { code: 'content_rejected', message: 'refused' },
    created_at: '2026-11-21T17:00:00.000Z',
    updated_at: '2026-11-21T17:00:05.000Z',
    output_deleted_at: null,
    expires_at: null,
    delivery: null,
  };

  it('prints a task as aligned fields', () => {
    const text = formatFields(video);
    expect(text).toMatch(/^video_id {10}vid_1$/m);
    expect(text).toMatch(/^error {13}\[content_rejected\] refused$/m);
    expect(formatFields({ ...video, status: 'completed', error: undefined } as never)).not.toMatch(/^error/m);
  });

  it('prints the delivery and metadata objects as their fields, never "[undefined] undefined"', () => {
    const text = formatFields({
      ...video,
      status: 'completed',
      error: undefined,
      metadata: { order: '1001' },
      delivery: { status: 'failed', attempts: 1, last_error: 'HTTP 403 (AccessDenied)', delivered_at: null },
    } as never);
    expect(text).not.toContain('undefined');
    expect(text).toMatch(/^delivery {10}status: failed, attempts: 1, last_error: HTTP 403 \(AccessDenied\)$/m);
    expect(text).toMatch(/^metadata {10}order: 1001$/m);
    expect(formatFields(video)).not.toMatch(/^metadata/m);
  });

  it('prints a page as a table with a footer', () => {
    const lines = formatVideoList({ videos: [video], pagination: { page: 1, limit: 20, total: 1, total_pages: 1, has_more: false } }).split('\n');
    expect(lines[0]).toMatch(/^vid_1 {2}failed {2}vid-1-5-pro {2}5s {2}720p {2}16:9 {2}2026-11-21 17:00Z {2}"a very long prompt .*…"$/);
    expect(lines[1]).toBe('Page 1 of 1 (1 video).');
    expect(formatVideoList({ videos: [], pagination: { page: 1, limit: 20, total: 0, total_pages: 0, has_more: false } })).toBe('No videos yet.');
  });

  it('prints deliveries with why the last attempt failed and when the next is due', () => {
    const pagination = { page: 1, limit: 20, total: 2, total_pages: 1, has_more: false };
    const lines = formatDeliveryList({
      deliveries: [
        {
          event_id: 'evt_2',
          type: 'video.failed',
          status: 'pending',
          attempts: 2,
          last_status_code: null,
          last_error: 'connection refused',
          last_attempt_at: '2026-11-21T17:00:05.000Z',
          next_attempt_at: '2026-11-21T17:05:05.000Z',
        },
        {
          event_id: 'evt_1',
          type: 'webhook.test',
          status: 'delivered',
          attempts: 1,
          last_status_code: 204,
          last_error: null,
          last_attempt_at: '2026-11-21T16:00:00.000Z',
          next_attempt_at: null,
        },
      ],
      pagination,
    }).split('\n');
    expect(lines).toEqual([
      'evt_2  video.failed  pending    2 attempts  2026-11-21 17:00Z  connection refused, next 2026-11-21 17:05Z',
      'evt_1  webhook.test  delivered  1 attempt   2026-11-21 16:00Z',
      'Page 1 of 1 (2 deliveries).',
    ]);
    expect(formatDeliveryList({ deliveries: [], pagination: { ...pagination, total: 0, total_pages: 0 } })).toBe('No deliveries yet.');
  });

  it('prints webhook endpoints: id, URL, events, added, description', () => {
    const lines = formatWebhookList({
      webhooks: [
        {
          webhook_id: 'whk_2',
          url: 'http://127.0.0.1:40123/',
          events: ['video.completed', 'video.failed', 'image.completed', 'image.failed'],
          description: 'vidgen webhooks listen',
          created_at: '2026-11-21T17:00:00.000Z',
        },
        { webhook_id: 'whk_1', url: 'https://example.com/hooks', events: ['video.failed'], description: null, created_at: '2026-11-20T09:30:00.000Z' },
      ],
    }).split('\n');
    expect(lines).toEqual([
      'whk_2  http://127.0.0.1:40123/    every event   2026-11-21 17:00Z  vidgen webhooks listen',
      'whk_1  https://example.com/hooks  video.failed  2026-11-20 09:30Z',
      '2 endpoints.',
    ]);
    expect(formatWebhookList({ webhooks: [] })).toBe('No webhook endpoints.');
  });

  it('prints keys with spend against the limit, last use, expiry and whether each still works', () => {
    const key = {
      key_id: 'key_a',
      name: 'CI pipeline',
      mode: 'live' as const,
      prefix: 'vg_live_7Hq2',
      scopes: ['generate' as const, 'read' as const],
      expires_at: null,
      monthly_spend_limit: 500,
      end_user_monthly_spend_limit: null,
      spent_this_month: 120,
      last_used_at: '2026-11-21T17:04:00.000Z',
      created_at: '2026-11-21T17:00:00.000Z',
      created_by: 'operator',
      revoked_at: null,
    };
    const now = Date.parse('2026-12-01T00:00:00.000Z');
    const lines = formatKeyList(
      {
        keys: [
          key,
          { ...key, key_id: 'key_b', name: 'old', mode: 'test', prefix: null, monthly_spend_limit: null, spent_this_month: 0, last_used_at: null, expires_at: '2026-11-30T00:00:00.000Z' },
          { ...key, key_id: 'key_c', name: 'gone', revoked_at: '2026-11-22T09:00:00.000Z' },
        ],
      },
      now,
    ).split('\n');
    expect(lines).toEqual([
      'key_a  "CI pipeline"  live  vg_live_7Hq2  generate,read  spent 120 of 500     used 2026-11-21 17:04Z  no expiry                  active',
      'key_b  "old"          test  -             generate,read  spent 0 of no limit  never used              expires 2026-11-30 00:00Z  expired',
      'key_c  "gone"         live  vg_live_7Hq2  generate,read  spent 120 of 500     used 2026-11-21 17:04Z  no expiry                  revoked 2026-11-22 09:00Z',
      '3 keys, 1 active.',
    ]);
    expect(formatKeyList({ keys: [] })).toBe('No keys yet.');
  });

  it('numbers extra result files before the extension', () => {
    expect(numberedFile('out/x.png', 0)).toBe('out/x.png');
    expect(numberedFile('out/x.png', 1)).toBe('out/x-2.png');
    expect(numberedFile('noext', 2)).toBe('noext-3');
  });

  it('progress: plain lines when not a terminal, on change and then every 15 s', () => {
    const lines: string[] = [];
    let now = 0;
    const progress = startProgress({ isTTY: false, write: (t) => lines.push(t) }, 'vid_1', () => now);
    progress.update('processing');
    now = 5_000;
    progress.update('processing');
    now = 16_000;
    progress.update('processing');
    now = 17_000;
    progress.update('completed');
    progress.stop();
    expect(lines).toEqual(['vid_1 processing (0s)\n', 'vid_1 processing (16s)\n', 'vid_1 completed (17s)\n']);
  });

  it('progress: a redrawn spinner line on a terminal, cleared at the end', () => {
    const writes: string[] = [];
    const progress = startProgress({ isTTY: true, write: (t) => writes.push(t) }, 'vid_1', () => 3_000);
    progress.update('processing');
    progress.stop();
    expect(writes[0]).toMatch(/^\r\x1b\[2K⠋ vid_1 starting 0s$/);
    expect(writes.at(-1)).toBe('\r\x1b[2K');
  });
});

describe('npx vidgen', () => {
  const repo = path.resolve(__dirname, '..', '..');

  it('is the package.json "bin" entry, and runs from any folder', () => {
    const manifest = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
    expect(manifest.bin?.vidgen).toBe('bin/vidgen.cjs');
    const result = spawnSync(process.execPath, [path.join(repo, manifest.bin!.vidgen!), '--durtion'], { cwd: os.tmpdir(), encoding: 'utf8' });
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 2,
      stderr: 'vidgen: Unknown option --durtion. Did you mean --duration?\nRun "npx vidgen --help" for usage.\n',
    });
  });

  it('exits 2 on a --deliver-header without a colon, before any request', () => {
    const result = spawnSync(process.execPath, [path.join(repo, 'bin/vidgen.cjs'), 'generate', 'x', '--deliver-to', 'https://b.example/v', '--deliver-header', 'BlockBlob'], {
      cwd: os.tmpdir(),
      encoding: 'utf8',
      env: { ...process.env, VIDGEN_BASE_URL: 'http://127.0.0.1:9/api/v1', VIDGEN_API_KEY: 'vg_test_unused' },
    });
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 2,
      stderr: 'vidgen: --deliver-header: expected NAME: VALUE, got "BlockBlob".\nRun "npx vidgen --help" for usage.\n',
    });
  });
});
