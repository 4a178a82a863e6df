import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canConnectNow, freePort } from '#bin/local-stack/wait-for-port';
import { interrupt, start } from '#test-support/npm-start';
import { runScript } from '#test-support/run-script';

/**
 * `npm start` as a developer runs it: its own DynamoDB Local (a Java child process) and
 * s3rver, data under a data folder, the banner with key and URL, and Ctrl-C stopping it all.
 */
jest.setTimeout(90_000);

describe('npm start', () => {
  it('serves the API with a seeded demo key, stops every child on Ctrl-C, and keeps data across restarts', async () => {
    const ports = { PORT: await freePort(), DYNAMODB_PORT: await freePort(), S3_PORT: await freePort(), IDENTITY_PORT: await freePort() };
    const env = {
      PORT: String(ports.PORT),
      DYNAMODB_PORT: String(ports.DYNAMODB_PORT),
      S3_PORT: String(ports.S3_PORT),
      IDENTITY_PORT: String(ports.IDENTITY_PORT),
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'vidgen-start-')),
      TABLE_NAME: 'vidgen-local',
    };

    const first = await start(env);
    expect(first.baseUrl).toBe(`http://127.0.0.1:${ports.PORT}/api/v1`);
    expect(first.output()).toContain('created now');
    const credits = await fetch(`${first.baseUrl}/credits`, { headers: { Authorization: `Bearer ${first.apiKey}` } });
    expect(credits.status).toBe(200);
    expect(await credits.json()).toEqual({
      data: { credits: 1000, paid_access: true, subscription_status: 'active' },
      error: null,
    });
    // The streamed route (MCP) runs in the started stack too, whose modules set `awslambda` up before its own.
    const mcp = await fetch(`${first.baseUrl}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${first.apiKey}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_credits', arguments: {}, _meta: { progressToken: 1 } } }),
    });
    expect([mcp.status, mcp.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
    expect(await mcp.text()).toContain('"credits":1000');

    // On other ports, the banner says what to paste elsewhere, and the CLIs find the stack by its data folder.
    expect(first.output()).toContain(`  API reference   ${first.baseUrl}/docs`);
    expect(first.output()).toContain(
      `    export BASE=${first.baseUrl} VIDGEN_BASE_URL=${first.baseUrl} PORT=${ports.PORT} DYNAMODB_PORT=${ports.DYNAMODB_PORT} S3_PORT=${ports.S3_PORT} IDENTITY_PORT=${ports.IDENTITY_PORT} DATA_DIR=${env.DATA_DIR}`,
    );
    const account = /Demo account\s+(acc_\w+)/.exec(first.output())![1]!;
    const unset = { PORT: '', DYNAMODB_PORT: '', S3_PORT: '', IDENTITY_PORT: '', DYNAMODB_ENDPOINT: '', S3_ENDPOINT: '', TABLE_NAME: '', VIDGEN_BASE_URL: '' };
    const [admin, vidgen] = await Promise.all([
      runScript('bin/admin.ts', ['account', 'show', '--account', account], { ...unset, DATA_DIR: env.DATA_DIR }),
      runScript('bin/vidgen.ts', ['credits', '--json'], { ...unset, DATA_DIR: env.DATA_DIR, VIDGEN_API_KEY: first.apiKey, VIDGEN_CONFIG: path.join(env.DATA_DIR, 'none.json') }),
    ]);
    expect({ code: admin.code, stderr: admin.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(admin.stdout)).toMatchObject({ account_id: account, credits: 1000 });
    expect({ code: vidgen.code, stderr: vidgen.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(vidgen.stdout)).toMatchObject({ credits: 1000 });

    expect(await interrupt(first.child)).toBe(0);
    for (const port of Object.values(ports)) expect(await canConnectNow('127.0.0.1', port)).toBe(false);
    // Stopped, it no longer claims the addresses.
    expect(existsSync(path.join(env.DATA_DIR, 'local-stack.json'))).toBe(false);

    const second = await start(env);
    try {
      expect(second.apiKey).toBe(first.apiKey);
      expect(second.output()).not.toContain('created now');
      const again = await fetch(`${second.baseUrl}/credits`, { headers: { Authorization: `Bearer ${second.apiKey}` } });
      expect(again.status).toBe(200);
    } finally {
      expect(await interrupt(second.child)).toBe(0);
    }
  });
});

/** Direct children of a process (Linux: /proc/<pid>/task/<tid>/children). */
function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
    readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
  );
}
const commandOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};
const isAlive = (pid: number) => commandOf(pid) !== '' && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');

describe('npm start after the API process was killed with SIGKILL', () => {
  it('leaves no DynamoDB Local behind, and the next start comes up on the same ports', async () => {
    const ports = { PORT: await freePort(), DYNAMODB_PORT: await freePort(), S3_PORT: await freePort(), IDENTITY_PORT: await freePort() };
    const env = {
      PORT: String(ports.PORT),
      DYNAMODB_PORT: String(ports.DYNAMODB_PORT),
      S3_PORT: String(ports.S3_PORT),
      IDENTITY_PORT: String(ports.IDENTITY_PORT),
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'vidgen-kill-')),
    };
    const first = await start(env, true);
    // tsx runs the API in a child node process; DynamoDB Local is a java child of that one.
    const [api] = childrenOf(first.child.pid!).filter((pid) => commandOf(pid).includes('bin/local.ts'));
    expect(api).toBeDefined();
    const java = childrenOf(api!).find((pid) => commandOf(pid).includes('DynamoDBLocal.jar'));
    expect(java).toBeDefined();

    first.child.removeAllListeners('exit');
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    process.kill(api!, 'SIGKILL');
    await exited;
    const deadline = Date.now() + 10_000;
    while (isAlive(java!) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isAlive(java!)).toBe(false);

    const second = await start(env, true);
    let wrapperKilled = false;
    try {
      expect(second.apiKey).toBe(first.apiKey);
      const credits = await fetch(`${second.baseUrl}/credits`, { headers: { Authorization: `Bearer ${second.apiKey}` } });
      expect(credits.status).toBe(200);

      // Killing tsx (the wrapper) outright: the orphaned API process stops itself and its children.
      second.child.removeAllListeners('exit');
      process.kill(second.child.pid!, 'SIGKILL');
      wrapperKilled = true;
      const until = Date.now() + 20_000;
      const busy = async () => (await Promise.all(Object.values(ports).map((port) => canConnectNow('127.0.0.1', port)))).some(Boolean);
      while ((await busy()) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await busy()).toBe(false);
    } finally {
      if (!wrapperKilled) expect(await interrupt(second.child)).toBe(0);
    }
  }, 180_000);
});

describe('npm start without Java', () => {
  it('stops at once and says how to install it', async () => {
    // A PATH with node and nothing else: no java.
    const bin = mkdtempSync(path.join(os.tmpdir(), 'vidgen-nojava-'));
    symlinkSync(process.execPath, path.join(bin, 'node'));
    const startedAt = Date.now();
    const result = await runScript('bin/local.ts', [], {
      PATH: bin,
      PORT: String(await freePort()),
      DYNAMODB_PORT: String(await freePort()),
      S3_PORT: String(await freePort()),
      IDENTITY_PORT: String(await freePort()),
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'vidgen-nojava-data-')),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('sudo apt-get install -y openjdk-17-jre-headless');
    expect(result.stderr).toMatch(/Java 17/);
    expect(Date.now() - startedAt).toBeLessThan(25_000);
  });
});
