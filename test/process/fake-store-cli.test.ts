import { spawnScript } from '#test-support/run-script';
import { pollUntil } from '#test-support/wait';

/**
 * The fake store as a command (test/support/fake-store-cli.ts), as bin/demo/storage.sh runs it
 * against `npm start`: it listens, answers its scripted statuses then 200, and logs each PUT.
 */
jest.setTimeout(60_000);

it('serves the scripted answers, then 200, and logs each PUT', async () => {
  const child = spawnScript('test/support/fake-store-cli.ts', ['--port', '0', '--answers', '500,403:AccessDenied'], {}, 'node --import tsx');
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const origin = await pollUntil(() => /fake store at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] ?? (child.exitCode !== null ? `exited: ${output}` : undefined), {
      timeoutMs: 30_000,
      what: 'the fake store to listen',
    });
    expect(origin).toMatch(/^http:/);
    const put = () => fetch(`${origin}/a.mp4`, { method: 'PUT', body: 'bytes' }).then((reply) => reply.status);
    expect([await put(), await put(), await put()]).toEqual([500, 403, 200]);
    expect(await (await fetch(`${origin}/a.mp4`)).text()).toBe('bytes');
    await pollUntil(() => output.includes('PUT /a.mp4 content-length=5 bytes=5 -> 200'), { what: 'the log of the third PUT' });
    expect(output).toContain('-> 500 InternalError');
    expect(output).toContain('-> 403 AccessDenied');
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});
