import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { normalize, outputMatches, readmeCommands, readmeScript, TRACE_PREFIX } from '#bin/readme/walkthrough';

/**
 * How check:readme reads the outputs README.md shows and compares them with what the commands
 * print (test/e2e/readme-walkthrough.test.ts runs it against npm start).
 */
const README = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');

const sample = [
  '## Try it with curl',
  '```bash',
  'KEY=vg_live_...                 # from the banner',
  '',
  '# the credits, with the key:',
  'curl -s -H "Authorization: Bearer $KEY" \\',
  '  $BASE/credits',
  '# {"data":{"credits":1000},',
  '#   "error":null}',
  '',
  '# a note about the next command, after a blank line',
  "python3 - <<'PY'",
  'print("hello")',
  '# not a comment: Python',
  'PY',
  '# hello',
  'xdg-open out/fox.mp4',
  '```',
  '## Configuration',
].join('\n');

describe('the outputs README.md shows', () => {
  it('are the # lines right under a command: continuations and here-documents belong to the command, a comment after a blank line does not', () => {
    expect(readmeCommands(sample)).toEqual([
      { lines: ['KEY=vg_live_...                 # from the banner'], expected: [], skipped: false },
      { lines: ['curl -s -H "Authorization: Bearer $KEY" \\', '  $BASE/credits'], expected: ['{"data":{"credits":1000},', '  "error":null}'], skipped: false },
      { lines: ["python3 - <<'PY'", 'print("hello")', '# not a comment: Python', 'PY'], expected: ['hello'], skipped: false },
      { lines: ['xdg-open out/fox.mp4'], expected: [], skipped: true },
    ]);
  });

  it('are kept by the script, stdout and stderr, each in its own file; the script is valid bash', () => {
    const { script, compared } = readmeScript(sample, { KEY: 'vg_live_x' }, '/tmp/out');
    expect(compared.map(({ index }) => index)).toEqual([1, 2]);
    expect(script).toContain(`{ curl -s -H "Authorization: Bearer $KEY" \\\n  $BASE/credits\n} 2>&1 | tee '/tmp/out/1.out'`);
    expect(script).toContain("{ python3 - <<'PY'\nprint(\"hello\")\n# not a comment: Python\nPY\n} 2>&1 | tee '/tmp/out/2.out'");
    expect(script).toContain('# (not run by check:readme) xdg-open out/fox.mp4');
    expect(spawnSync('bash', ['-n', '-c', script]).status).toBe(0);
    expect(spawnSync('bash', ['-n', '-c', readmeScript(README, { KEY: 'k', ACCOUNT: 'a', BASE: 'b' }, '/tmp/out').script]).status).toBe(0);
  });

  it('match what was printed, where only ids, keys, request ids, times and ports may differ, and whitespace does not count', () => {
    const printed = '{"data":{"video_id":"vid_01M8DN0VYZ941GEK2YMNDDHHQY","url":"http://127.0.0.1:3417/media/x.mp4","created_at":"2026-11-27T04:43:05.997Z"},"error":null}';
    expect(outputMatches(['{"data":{"video_id":"vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ",', '  "url":"http://127.0.0.1:3000/media/x.mp4","created_at":"2026-11-23T08:26:41.517Z"},"error":null}'], printed)).toBe(true);
    expect(outputMatches(['{"data":{"video_id":"vid_…",…},"error":null}'], printed)).toBe(true);
    expect(outputMatches(['{"data":{"video_id":"vid_…",…},"error":{…}}'], printed)).toBe(false);
    expect(outputMatches(['live balance: 935 before, 935 after          (test tasks never touch it)'], 'live balance: 955 before, 955 after\n')).toBe(false);
    expect(outputMatches(['live balance: 955 before, 955 after          (test tasks never touch it)'], 'live balance: 955 before, 955 after\n')).toBe(true);
    // curl's own "   (HTTP 401)" is output, not a note: a note takes four spaces or more.
    expect(outputMatches(['{"error":…}   (HTTP 401)'], '{"error":{}}   (HTTP 401)')).toBe(true);
    expect(outputMatches(['{"error":…}   (HTTP 401)'], '{"error":{}}')).toBe(false);
    expect(outputMatches(['      5 200', '      1 429'], '      4 200\n      2 429\n')).toBe(false);
    // check:readme's own trace lines (bash -x, on the same stderr) are not the command's output.
    expect(outputMatches(['hello'], `+${TRACE_PREFIX}python3 -\nhello\n`)).toBe(true);
  });

  it('normalize what varies from run to run to one placeholder per kind', () => {
    expect(normalize('vg_test_IW1ynQBBOffQwBKqJ3qTFzttTsWbBtqCiOh1cUEJ acc_01M8DMZXTPGQDNGZ5MBAD4TS92 d9f23c3d-3386-4011-a905-bdaf5b3feb00 2026-11-23 08:27Z 1795754640 http://localhost:8000/')).toBe(
      'vg_test_<key> acc_<id> <uuid> <time> <epoch> http://localhost:<port>/',
    );
  });

  it('in README.md: every command it shows output for is compared, except the one check:readme cannot run', () => {
    const commands = readmeCommands(README);
    const { compared } = readmeScript(README, { KEY: 'k', ACCOUNT: 'a', BASE: 'b' }, '/tmp/out');
    const shown = commands.filter((command) => command.expected.length > 0);
    expect(shown.length).toBeGreaterThanOrEqual(15);
    expect(shown.filter((command) => command.skipped).map((command) => command.lines[0])).toEqual([expect.stringMatching(/npx vidgen webhooks listen/)]);
    expect(compared).toHaveLength(shown.length - 1);
  });
});
