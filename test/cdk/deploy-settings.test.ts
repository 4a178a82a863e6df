import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AssemblyError, findBundledFunction } from '#bin/invoke/assembly';
import { fillPlaceholders, invokeEnvironment } from '#bin/invoke/local-env';
import { CONFIG_DEFAULTS, loadConfig } from '#config';
import { DeploySettingsError, readDeploySettings } from '#lib/deploy-settings';
import type { DeploySettings } from '#lib/deploy-settings';
import { mediaEnvironment, providerBundledSettings, providerEnvironment, tableEnvironment } from '#lib/function-environment';
import { cdkJsonContext } from './support/cdk-app';

const settingsFrom = (context: Record<string, unknown>, env: Record<string, string> = {}) =>
  readDeploySettings((key) => context[key], env);

describe('deploy settings from CDK context', () => {
  it('defaults to a dev stage on Replicate, the token secret found by name', () => {
    const settings = settingsFrom(cdkJsonContext());
    expect(settings).toMatchObject({
      stage: 'dev',
      production: false,
      env: {},
      provider: {
        name: 'replicate',
        settings: { baseUrl: 'https://api.replicate.com', timeoutMs: 10_000 },
        secrets: { apiToken: { name: 'vidgen/dev/replicate-api-token' }, webhookSecret: { name: 'vidgen/dev/replicate-webhook-secret' } },
      },
      otherProviders: [],
      runtime: {
        authCacheTtlSeconds: CONFIG_DEFAULTS.authCacheTtlSeconds,
        defaultRateLimit: CONFIG_DEFAULTS.defaultRateLimit,
        taskTimeoutSeconds: CONFIG_DEFAULTS.taskTimeoutSeconds,
        simDelaySeconds: CONFIG_DEFAULTS.simDelaySeconds,
      },
      logRetentionDays: 14,
      bundleAwsSdk: false,
      samLocal: false,
    });
  });

  it('reads -c values (strings) and cdk.json values (JSON) alike', () => {
    const settings = settingsFrom(
      {
        stage: 'prod',
        replicateSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:x-AbCdEf',
        alarmEmail: 'ops@example.com',
        mailFromAddress: 'invites@example.com',
        replicateModels: { 'vid-1-5-pro': { model: 'owner/name' } },
        replicateTimeoutMs: '15000',
        apiThrottleRateLimit: 50,
        bundleAwsSdk: 'true',
      },
      { CDK_DEFAULT_ACCOUNT: '123456789012', CDK_DEFAULT_REGION: 'eu-west-1' },
    );
    expect(settings).toMatchObject({
      stage: 'prod',
      production: true,
      env: { account: '123456789012', region: 'eu-west-1' },
      provider: {
        name: 'replicate',
        secrets: { apiToken: { arn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:x-AbCdEf' } },
        settings: { timeoutMs: 15000, modelsJson: '{"vid-1-5-pro":{"model":"owner/name"}}' },
      },
      api: { throttle: { rateLimit: 50, burstLimit: 200 } },
      logRetentionDays: 90,
      bundleAwsSdk: true,
    });
  });

  it.each([
    [{ stage: 'staging' }, 'Context "stage" must be one of "dev", "prod"; got "staging".'],
    [{ provider: 'openai' }, /"provider" must be one of "replicate", "fal", "simulated"/],
    [{ replicateSecretArn: 'arn:aws:s3:::bucket' }, /Secrets Manager secret ARN/],
    [{ apiDomainName: 'api.example.com' }, /apiDomainName and apiCertificateArn go together/],
    [{ cdnDomainName: 'm.example.com', cdnCertificateArn: 'arn:aws:acm:eu-west-1:1:certificate/x' }, /us-east-1/],
    [{ logRetentionDays: '10' }, /"logRetentionDays" must be one of 1, 3, 5/],
    [{ authCacheTtlSeconds: '7200' }, /"authCacheTtlSeconds" must be a whole number from 0 to 300 \(a revoked key, or a member removed from an account, keeps working this long\)/],
    [{ authCacheTtlSeconds: '301' }, /"authCacheTtlSeconds" must be a whole number from 0 to 300/],
    [{ replicateModels: '{not json' }, /"replicateModels" must be JSON text/],
    [{ bundleAwsSdk: 'yes' }, /"bundleAwsSdk" must be true or false/],
    [{ alarmTopicArn: 'my-topic' }, /"alarmTopicArn" must be an ARN/],
    // Issue 36: prod mails its invitations through SES, from an identity the stack creates.
    [{ stage: 'prod', alarmEmail: 'ops@example.com' }, /stage=prod needs a sender for invitation mail: pass -c mailFromAddress=/],
    [{ mailFromAddress: 'invites' }, /"mailFromAddress" must be an email address/],
    [{ mailFromAddress: 'invites@example.com', mailIdentity: 'other.example' }, /"mailIdentity" must be "mailFromAddress" itself or its domain \(example.com\)/],
    [{ mailIdentity: 'example.com' }, /"mailIdentity" needs "mailFromAddress"/],
  ])('refuses %j', (context, message) => {
    expect(() => settingsFrom(context)).toThrow(DeploySettingsError);
    expect(() => settingsFrom(context)).toThrow(message);
  });
});

describe('invitation mail', () => {
  it("sends from the address, through its domain's identity unless another is named; dev without a sender logs the mail", () => {
    expect(settingsFrom({ mailFromAddress: 'Invites@Example.com' }).mail).toEqual({ fromAddress: 'Invites@Example.com', identity: 'example.com' });
    expect(settingsFrom({ mailFromAddress: 'invites@example.com', mailIdentity: 'invites@example.com' }).mail).toEqual({ fromAddress: 'invites@example.com', identity: 'invites@example.com' });
    expect(settingsFrom({}).mail).toBeUndefined();
  });
});

describe('function environment', () => {
  const providerSecretArns = { REPLICATE_API_TOKEN_SECRET_ARN: 'arn:secret', REPLICATE_WEBHOOK_SECRET_ARN: 'arn:webhook-secret' };
  /** What a function that runs the task lifecycle gets (lib/binders.ts): the table, the bucket, the providers. */
  const lifecycleEnvironment = (settings: DeploySettings): Record<string, string> =>
    ({
      ...tableEnvironment(settings, 't'),
      ...mediaEnvironment(settings, { bucketName: 'b', publicMediaBaseUrl: 'https://cdn' }),
      ...providerEnvironment(settings, providerSecretArns),
    }) as Record<string, string>;

  it('declares the local endpoints (empty) only in a samLocal synth, for sam local invoke --env-vars', () => {
    expect(lifecycleEnvironment(settingsFrom({ provider: 'simulated', samLocal: 'true' }))).toMatchObject({
      DYNAMODB_ENDPOINT: '',
      S3_ENDPOINT: '',
      PROVIDER: 'simulated',
      SIM_DELAY_SECONDS: '10',
    });
    expect(lifecycleEnvironment(settingsFrom({})).DYNAMODB_ENDPOINT).toBeUndefined();
  });

  it('hands Replicate settings and the token secret ARN, never the token; the model map as a file beside the bundle', () => {
    const settings = settingsFrom({ replicateModels: '{"a":1}' });
    const env = lifecycleEnvironment(settings);
    expect(env).toMatchObject({ PROVIDER: 'replicate', REPLICATE_API_TOKEN_SECRET_ARN: 'arn:secret' });
    expect(Object.keys(env)).not.toContain('REPLICATE_API_TOKEN');
    expect(Object.keys(env)).not.toContain('REPLICATE_MODELS');
    expect(providerBundledSettings(settings)).toEqual([{ name: 'REPLICATE_MODELS.json', text: '{"a":1}' }]);
    // Unset: no file, the function reads its shipped default-models.json.
    expect(providerBundledSettings(settingsFrom({}))).toEqual([]);
  });

  it('keeps a provider switched away from when its secret is still named, so its running tasks finish there', () => {
    const switched = settingsFrom({ provider: 'simulated', replicateSecretName: 'vidgen/dev/replicate-api-token', replicateTimeoutMs: 4000 });
    expect(switched.provider.name).toBe('simulated');
    expect(switched.otherProviders).toMatchObject([{ name: 'replicate', settings: { timeoutMs: 4000 } }]);
    const env = lifecycleEnvironment(switched);
    expect(env).toMatchObject({ PROVIDER: 'simulated', REPLICATE_API_TOKEN_SECRET_ARN: 'arn:secret', REPLICATE_TIMEOUT_MS: '4000' });
    // Read back by the functions: simulated for new tasks, Replicate for the tasks that recorded it.
    const config = loadConfig({ ...env, AWS_REGION: 'eu-west-1' } as Record<string, string>);
    expect(config.provider.name).toBe('simulated');
    expect(config.otherProviders).toEqual([
      expect.objectContaining({ name: 'replicate', timeoutMs: 4000, apiToken: { secretArn: 'arn:secret' }, webhookSecret: { secretArn: 'arn:webhook-secret' } }),
    ]);
    // Without its secret named, a provider not chosen is not deployed at all.
    expect(settingsFrom({ provider: 'simulated' }).otherProviders).toEqual([]);
    expect(Object.keys(lifecycleEnvironment(settingsFrom({ provider: 'simulated' }))).filter((name) => name.startsWith('REPLICATE_'))).toEqual([]);
  });

  it('reads a provider setting with the one schema the functions use: same defaults, same limits', () => {
    const deployed = lifecycleEnvironment(settingsFrom({}));
    const config = loadConfig({ ...deployed, AWS_REGION: 'eu-west-1', REPLICATE_TIMEOUT_MS: undefined, REPLICATE_BASE_URL: undefined });
    expect(config.provider).toMatchObject({ timeoutMs: Number(deployed.REPLICATE_TIMEOUT_MS), baseUrl: deployed.REPLICATE_BASE_URL });
    expect(() => settingsFrom({ replicateTimeoutMs: '20000' })).toThrow('Context "replicateTimeoutMs" must be a whole number from 1 to 15000; got "20000".');
    expect(() => loadConfig({ ...deployed, AWS_REGION: 'eu-west-1', REPLICATE_TIMEOUT_MS: '20000' })).toThrow(
      'REPLICATE_TIMEOUT_MS must be a whole number from 1 to 15000; got "20000".',
    );
    expect(() => settingsFrom({ replicateBaseUrl: 'ftp://x' })).toThrow('Context "replicateBaseUrl" must be an http(s) URL');
    expect(() => loadConfig({ ...deployed, AWS_REGION: 'eu-west-1', REPLICATE_BASE_URL: 'ftp://x' })).toThrow('REPLICATE_BASE_URL must be an http(s) URL');
  });

  it('sets the circuit breakers from context (circuitFailureThreshold, circuitCoolDownSeconds), defaults otherwise (issue 31)', () => {
    expect(lifecycleEnvironment(settingsFrom({ circuitFailureThreshold: '3', circuitCoolDownSeconds: 60 }))).toMatchObject({
      CIRCUIT_FAILURE_THRESHOLD: '3',
      CIRCUIT_COOL_DOWN_SECONDS: '60',
    });
    const deployed = lifecycleEnvironment(settingsFrom({}));
    expect(loadConfig({ ...deployed, AWS_REGION: 'eu-west-1' }).circuit).toEqual({
      failureThreshold: CONFIG_DEFAULTS.circuitFailureThreshold,
      coolDownSeconds: CONFIG_DEFAULTS.circuitCoolDownSeconds,
    });
    expect(() => settingsFrom({ circuitFailureThreshold: '0' })).toThrow('Context "circuitFailureThreshold" must be a whole number from 1 to');
    expect(() => settingsFrom({ circuitCoolDownSeconds: 'soon' })).toThrow('Context "circuitCoolDownSeconds" must be a whole number from 1 to');
  });

  it("sets the simulated provider's speed and samples on every stage: it runs test mode everywhere", () => {
    expect(lifecycleEnvironment(settingsFrom({ simDelaySeconds: '3' }))).toMatchObject({
      PROVIDER: 'replicate',
      SIM_DELAY_SECONDS: '3',
      SIM_OUTPUTS: 'samples',
    });
    expect(lifecycleEnvironment(settingsFrom({ provider: 'simulated' }))).toMatchObject({ SIM_DELAY_SECONDS: '10', SIM_OUTPUTS: 'samples' });
  });
});

describe('npm run invoke helpers', () => {
  it('fills {{PLACEHOLDERS}} everywhere in an event and names the missing ones', () => {
    const event = { headers: { Authorization: 'Bearer {{DEMO_API_KEY}}' }, list: ['{{A}}-{{A}}'] };
    expect(fillPlaceholders(event, { DEMO_API_KEY: 'k', A: 'x' })).toEqual({ headers: { Authorization: 'Bearer k' }, list: ['x-x'] });
    expect(() => fillPlaceholders(event, {})).toThrow(/\{\{A\}\}, \{\{DEMO_API_KEY\}\}.*npm start/);
  });

  it('configures a bundle like the local stack, keeping the template settings and your overrides', () => {
    const fn = {
      handler: 'get-video',
      stack: 'S',
      logicalId: 'F',
      assetDir: '/x',
      file: 'index.js',
      exportName: 'handler',
      literalEnvironment: { PROVIDER: 'replicate', REPLICATE_BASE_URL: 'https://api.replicate.com', DEFAULT_RATE_LIMIT: '60', NODE_OPTIONS: '--enable-source-maps' },
      timeoutSeconds: 28,
    };
    const env = invokeEnvironment(fn, { TABLE_NAME: 'vidgen-local', PROVIDER: 'simulated' }, { DEFAULT_RATE_LIMIT: '5' });
    expect(env).toMatchObject({ TABLE_NAME: 'vidgen-local', PROVIDER: 'simulated', DEFAULT_RATE_LIMIT: '5', NODE_OPTIONS: '--enable-source-maps' });
    expect(env.REPLICATE_BASE_URL).toBeUndefined();
    expect(env.COPY_WORKER_FUNCTION).toBeUndefined();
  });

  it('finds a bundle through the asset manifest when asset metadata is off', () => {
    const cdkOut = mkdtempSync(path.join(os.tmpdir(), 'vidgen-assembly-'));
    mkdirSync(path.join(cdkOut, 'asset.abc'));
    writeFileSync(path.join(cdkOut, 'asset.abc', 'index.js'), 'exports.handler = async () => 1;');
    writeFileSync(
      path.join(cdkOut, 'manifest.json'),
      JSON.stringify({ artifacts: { S: { type: 'aws:cloudformation:stack', properties: { templateFile: 'S.template.json' } } } }),
    );
    writeFileSync(path.join(cdkOut, 'S.assets.json'), JSON.stringify({ files: { abc: { source: { path: 'asset.abc' } } } }));
    writeFileSync(
      path.join(cdkOut, 'S.template.json'),
      JSON.stringify({
        Resources: {
          Fn1: { Type: 'AWS::Lambda::Function', Metadata: { 'vidgen:handler': 'sweeper' }, Properties: { Handler: 'index.handler', Code: { S3Key: 'abc.zip' } } },
        },
      }),
    );
    expect(findBundledFunction(cdkOut, 'sweeper')).toMatchObject({ assetDir: path.join(cdkOut, 'asset.abc'), file: 'index.js', exportName: 'handler' });
    expect(findBundledFunction(cdkOut, 'Fn1').handler).toBe('sweeper');
    expect(() => findBundledFunction(cdkOut, 'nope')).toThrow(AssemblyError);
    expect(() => findBundledFunction(path.join(cdkOut, 'missing'), 'sweeper')).toThrow(/npm run synth/);
    rmSync(cdkOut, { recursive: true, force: true });
  });
});

describe('billing deploy settings', () => {
  const packs = [{ pack_id: 'starter', price_id: 'price_1', credits: 500, amount: 500, currency: 'usd' }];

  it("take packs and the plan as JSON (inline or text), and find Stripe's secrets by name unless given by ARN", () => {
    const settings = settingsFrom({ billingPacks: packs, billingPlan: JSON.stringify({ price_id: 'price_2', amount: 2000, currency: 'usd', interval: 'month' }) });
    expect(settings.billing).toEqual({
      packsJson: JSON.stringify(packs),
      planJson: '{"price_id":"price_2","amount":2000,"currency":"usd","interval":"month"}',
      secrets: { secretKey: { name: 'vidgen/dev/stripe-secret-key' }, webhookSecret: { name: 'vidgen/dev/stripe-webhook-secret' } },
    });
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:vidgen/prod/stripe-secret-key-AbCdEf';
    expect(settingsFrom({ stripeSecretKeySecretArn: arn }).billing.secrets.secretKey).toEqual({ arn });
  });

  it.each([
    [{ billingPacks: '[{"pack_id":"x"}' }, /Context "billingPacks" must be JSON text/],
    [{ billingPacks: [{ ...packs[0], price_id: 'prod_1' }] }, /Context "billingPacks" \(at 0.price_id\) must be a Stripe price id/],
    [{ billingPacks: [packs[0], packs[0]] }, /Context "billingPacks" must not repeat a pack_id/],
    [{ billingPlan: { price_id: 'price_2', amount: 2000, currency: 'usd', interval: 'fortnight' } }, /Context "billingPlan" \(at interval\)/],
    [{ billingReturnUrl: 'http://console.example.com/billing' }, /billingReturnUrl" must be an https URL/],
  ])('stop the synth on %j, naming the key', (context, message) => {
    expect(() => settingsFrom(context)).toThrow(DeploySettingsError);
    expect(() => settingsFrom(context)).toThrow(message);
  });
});
