import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { renderOpenApiFile } from '#bin/openapi';

/**
 * The generated document passes Redocly's linter (its recommended rules, less the few that
 * functions/openapi/redocly.yaml turns off and explains): no errors and no warnings. Runs
 * offline; telemetry and the update notice are off.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const CONFIG = path.join(ROOT, 'functions', 'openapi', 'redocly.yaml');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
}

function lint(file: string) {
  const run = spawnSync(process.execPath, [CLI, 'lint', file, '--config', CONFIG, '--format=json'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  });
  if (run.error) throw run.error;
  return { status: run.status, report: JSON.parse(run.stdout) as LintReport, stderr: run.stderr };
}

describe('OpenAPI lint (@redocly/cli)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds no errors and no warnings in the generated document', () => {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, renderOpenApiFile());
    const { status, report, stderr } = lint(file);
    const summary = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    expect(summary).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect([status, stderr.includes('Your API description is valid')]).toEqual([0, true]);
  });

  it('does report a broken document (the linter really runs)', () => {
    const file = path.join(dir, 'broken.json');
    const broken = JSON.parse(renderOpenApiFile());
    delete broken.paths['/credits'].get.responses;
    broken.paths['/credits'].get.parameters = [{ name: 'x', in: 'nowhere' }];
    writeFileSync(file, JSON.stringify(broken));
    const { status, report } = lint(file);
    expect(status).not.toBe(0);
    expect(report.totals.errors).toBeGreaterThan(0);
  });
});
