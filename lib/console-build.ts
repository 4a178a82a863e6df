import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
/** The repository (this file is lib/console-build.ts). */
const REPO_ROOT = path.resolve(__dirname, '..');

/**
 * The built console, for the local stack and for the CDK app's deployment. A build is kept under console/dist/<hash of its
 * sources>: `npm start` hashes the sources (a few milliseconds) and builds only when no build of
 * that hash exists, so a warm start costs no build. Builds land in a temporary folder renamed
 * into place, so two processes starting at once (tests) never serve a half-written one.
 */
export const CONSOLE_DIR = path.join(REPO_ROOT, 'console');
export const CONSOLE_DIST = path.join(CONSOLE_DIR, 'dist');

/** What the build reads: the console, the client it bundles, the request schemas, the dependencies. */
const SOURCES = [CONSOLE_DIR, path.join(REPO_ROOT, 'client', 'src'), path.join(REPO_ROOT, 'docs', 'openapi.json'), path.join(REPO_ROOT, 'package-lock.json')];
/** Builds kept besides the current one (another worktree's process may still serve one). */
const KEEP = 3;

const BUILD_RECIPE = 'vite build, NODE_ENV=production';

export function consoleSourceHash(): string {
  const hash = createHash('sha256');
  const add = (file: string) => {
    const stat = statSync(file);
    if (stat.isDirectory()) {
      for (const name of readdirSync(file).sort()) {
        if (name === 'dist' || name === 'node_modules') continue;
        add(path.join(file, name));
      }
      return;
    }
    hash.update(path.relative(REPO_ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  };
  // How a build is made is part of what it is: a change of recipe (NODE_ENV forced to production)
  // must not reuse builds made the old way.
  hash.update(BUILD_RECIPE).update('\0');
  for (const source of SOURCES) add(source);
  return hash.digest('hex').slice(0, 16);
}

export interface ConsoleBuild {
  dir: string;
  /** Whether this call ran Vite (false: an existing build of these sources). */
  built: boolean;
}

/** The build of the current sources, made now if there is none (the local stack: without blocking). */
export async function ensureConsoleBuilt(): Promise<ConsoleBuild> {
  const { hash, dir } = target();
  if (existsSync(path.join(dir, 'index.html'))) return { dir, built: false };
  const temporary = temporaryDir();
  try {
    await promisify(execFile)(process.execPath, viteArgs(temporary), viteOptions());
    settle(temporary, dir, hash);
  } finally {
    rmSync(temporary, { recursive: true, force: true });
  }
  return { dir, built: true };
}

/** The same, synchronously: CDK's asset bundling cannot wait for a promise. */
export function ensureConsoleBuiltSync(): ConsoleBuild {
  const { hash, dir } = target();
  if (existsSync(path.join(dir, 'index.html'))) return { dir, built: false };
  const temporary = temporaryDir();
  try {
    execFileSync(process.execPath, viteArgs(temporary), { ...viteOptions(), stdio: 'pipe' });
    settle(temporary, dir, hash);
  } finally {
    rmSync(temporary, { recursive: true, force: true });
  }
  return { dir, built: true };
}

function target(): { hash: string; dir: string } {
  const hash = consoleSourceHash();
  return { hash, dir: path.join(CONSOLE_DIST, hash) };
}

const temporaryDir = () => path.join(CONSOLE_DIST, `.tmp-${process.pid}-${Date.now()}`);

const viteArgs = (outDir: string) => [
  path.join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
  'build',
  '--config',
  path.join(CONSOLE_DIR, 'vite.config.mts'),
  '--outDir',
  outDir,
  '--logLevel',
  'warn',
];

// NODE_ENV is the build's, whoever asks: jest sets it to `test`, which gave React's development
// build (454 KB against 256 KB), then cached under the same hash for npm start and cdk deploy.
const viteOptions = () => ({
  cwd: REPO_ROOT,
  env: { ...process.env, NODE_ENV: 'production', VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' },
  maxBuffer: 16 * 1024 * 1024,
});

/** Moves a finished build into place; another process may have finished the same build first. */
function settle(temporary: string, dir: string, hash: string): void {
  try {
    renameSync(temporary, dir);
  } catch (error) {
    if (!existsSync(path.join(dir, 'index.html'))) throw error;
  }
  pruneOldBuilds(hash);
}

function pruneOldBuilds(current: string): void {
  const builds = readdirSync(CONSOLE_DIST)
    .filter((name) => name !== current && /^[0-9a-f]{16}$/.test(name))
    .map((name) => ({ name, mtime: statSync(path.join(CONSOLE_DIST, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of builds.slice(KEEP)) rmSync(path.join(CONSOLE_DIST, old.name), { recursive: true, force: true });
}
