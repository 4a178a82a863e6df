import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkDeploySecrets } from '#bin/deploy/check-secrets';
import { createSecretCommand, deploySecrets, secretName } from '#lib/deploy-secrets';
import { readDeploySettings } from '#lib/deploy-settings';
import { startFakeSecretsManager } from '#test-support/fake-secrets-manager';
import { runScript } from '#test-support/run-script';
import { cdkJsonContext, synthesize } from './support/cdk-app';

/**
 * The secrets a stage needs (lib/deploy-secrets.ts) are every secret its template references,
 * and `-c checkSecrets=true` stops bin/cdk.ts before synthesis when Secrets Manager (a fake on
 * 127.0.0.1) lacks one, naming each with the command that creates it.
 */
jest.setTimeout(180_000);

const PROD = { stage: 'prod', alarmEmail: 'ops@example.com', mailFromAddress: 'invites@example.com' };
const settingsFrom = (context: Record<string, unknown>) => readDeploySettings((key) => ({ ...cdkJsonContext(), ...context })[key], {});
const FAKE_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'AKIAFAKE', AWS_SECRET_ACCESS_KEY: 'fake', AWS_SESSION_TOKEN: '', AWS_PROFILE: '' };

describe('the secrets a stage needs', () => {
  it('are exactly the secrets the prod template references: the Replicate token and webhook secret, Stripe key and signing secret', () => {
    const listed = deploySecrets(settingsFrom(PROD)).map((secret) => secretName(secret.reference));
    expect(listed).toEqual(['vidgen/prod/replicate-api-token', 'vidgen/prod/replicate-webhook-secret', 'vidgen/prod/stripe-secret-key', 'vidgen/prod/stripe-webhook-secret']);

    const { statelessTemplate } = synthesize({ context: PROD });
    const referenced = new Set([...JSON.stringify(statelessTemplate.toJSON()).matchAll(/:secret:(vidgen\/[\w/-]+?)(?:-\?{6})?"/g)].map((match) => match[1]));
    expect([...referenced].sort()).toEqual([...listed].sort());
  });

  it('follow the context: a named fal key adds it; an ARN keeps its name and region', () => {
    const arn = 'arn:aws:secretsmanager:us-east-2:123456789012:secret:ops/replicate-token-AbCdEf';
    const secrets = deploySecrets(settingsFrom({ ...PROD, falSecretName: 'vidgen/prod/fal-api-key', replicateSecretArn: arn }));
    expect(secrets.map((secret) => createSecretCommand(secret))).toEqual([
      "aws secretsmanager create-secret --name ops/replicate-token --secret-string 'r8_…' --region us-east-2",
      "aws secretsmanager create-secret --name vidgen/prod/replicate-webhook-secret --secret-string 'whsec_…'",
      "aws secretsmanager create-secret --name vidgen/prod/fal-api-key --secret-string '<fal key>'",
      "aws secretsmanager create-secret --name vidgen/prod/stripe-secret-key --secret-string 'sk_live_…'",
      "aws secretsmanager create-secret --name vidgen/prod/stripe-webhook-secret --secret-string 'whsec_…'",
    ]);
  });
});

describe('-c checkSecrets=true', () => {
  it('stops bin/cdk.ts before synthesizing, naming each missing secret with its create command', async () => {
    const fake = await startFakeSecretsManager([{ name: 'vidgen/prod/replicate-api-token' }]);
    const outdir = mkdtempSync(path.join(os.tmpdir(), 'vidgen-check-secrets-'));
    try {
      const result = await runScript('bin/cdk.ts', [], {
        ...FAKE_CREDENTIALS,
        CDK_CONTEXT_JSON: JSON.stringify({ ...cdkJsonContext(), ...PROD, checkSecrets: 'true' }),
        CDK_OUTDIR: outdir,
        AWS_REGION: 'eu-west-1',
        AWS_ENDPOINT_URL_SECRETS_MANAGER: fake.endpoint,
      });
      expect([result.code, result.stdout]).toEqual([1, '']);
      expect(result.stderr).toContain('The prod stage needs secrets Secrets Manager does not have ready:');
      for (const name of ['replicate-webhook-secret', 'stripe-secret-key', 'stripe-webhook-secret']) {
        expect(result.stderr).toMatch(new RegExp(`^  vidgen/prod/${name} \\(.+\\): missing\\n    aws secretsmanager create-secret --name vidgen/prod/${name} --secret-string '.+'$`, 'm'));
      }
      expect(result.stderr).not.toMatch(/replicate-api-token \(/);
      expect(result.stderr).not.toMatch(/^\s+at /m);
      expect(fake.asked.sort()).toEqual(deploySecrets(settingsFrom(PROD)).map((secret) => secretName(secret.reference)).sort());
      expect(existsSync(path.join(outdir, 'manifest.json'))).toBe(false);
    } finally {
      await fake.close();
    }
  });

  it('passes when every secret is ready, and names one scheduled for deletion or without a value with its fix', async () => {
    const names = deploySecrets(settingsFrom(PROD)).map((secret) => secretName(secret.reference));
    const ready = await startFakeSecretsManager(names.map((name) => ({ name })));
    const half = await startFakeSecretsManager([{ name: names[0]!, deleted: true }, { name: names[1]!, empty: true }, { name: names[2]! }, { name: names[3]! }]);
    const saved = { ...process.env };
    Object.assign(process.env, FAKE_CREDENTIALS);
    try {
      const secrets = deploySecrets(settingsFrom(PROD));
      expect(await checkDeploySecrets(secrets, { region: 'eu-west-1', endpoint: ready.endpoint })).toEqual([]);
      const problems = await checkDeploySecrets(secrets, { region: 'eu-west-1', endpoint: half.endpoint });
      expect(problems.map(({ secret, problem }) => [secretName(secret.reference), problem])).toEqual([
        [names[0], 'scheduled for deletion'],
        [names[1], 'has no value'],
      ]);
    } finally {
      process.env = saved;
      await Promise.all([ready.close(), half.close()]);
    }
  });

  it('stops with the reason when Secrets Manager cannot be asked', async () => {
    const closed = await startFakeSecretsManager([]);
    await closed.close();
    const saved = { ...process.env };
    Object.assign(process.env, FAKE_CREDENTIALS);
    try {
      await expect(checkDeploySecrets(deploySecrets(settingsFrom(PROD)).slice(0, 1), { region: 'eu-west-1', endpoint: closed.endpoint })).rejects.toThrow(
        /^checkSecrets: could not check the secret vidgen\/prod\/replicate-api-token in Secrets Manager: /,
      );
    } finally {
      process.env = saved;
    }
  });
});
