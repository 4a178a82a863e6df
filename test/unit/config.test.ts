import { ConfigError, CONFIG_DEFAULTS, loadConfig } from '#config';
import { lifecycleConfig, loadServiceConfig, thumbnailsConfig } from '#config/service';
import { retentionDayMs } from '#app-context/retention';

const base = {
  TABLE_NAME: 'tasks',
  AWS_REGION: 'eu-west-1',
  MEDIA_BUCKET: 'media',
  PUBLIC_MEDIA_BASE_URL: 'https://cdn.example.com/',
  PROVIDER: 'simulated',
};

describe('loadConfig', () => {
  it('reads the required variables and applies documented defaults', () => {
    expect(loadConfig(base)).toEqual({
      tableName: 'tasks',
      region: 'eu-west-1',
      authCacheTtlSeconds: CONFIG_DEFAULTS.authCacheTtlSeconds,
      defaultRateLimit: 60,
      mediaBucket: 'media',
      publicMediaBaseUrl: 'https://cdn.example.com',
      provider: { name: 'simulated', delaySeconds: 10, concurrency: 0 },
      testModeDelaySeconds: 10,
      testModeConcurrency: 0,
      // Locally the simulated provider renders; the stack sets SIM_OUTPUTS=samples on AWS.
      simulatedOutputs: 'rendered',
      taskTimeoutSeconds: 1800,
      // Deployed defaults: no loopback, more than 24 h of retries.
      webhooks: { allowLoopback: false, retrySchedule: [...CONFIG_DEFAULTS.webhookRetrySchedule] },
      outputOrigins: [],
      // The simulated provider is not paced, and without a callback base URL nothing calls back.
      submissions: { callbackSilenceSeconds: 120, graceSeconds: 600 },
      circuit: { failureThreshold: 5, coolDownSeconds: 30 },
      // A new holder's live balance; no identity provider: sessions are refused.
      signupCredits: 0,
    });
    const retried = CONFIG_DEFAULTS.webhookRetrySchedule.reduce((sum, seconds) => sum + seconds, 0);
    expect(retried).toBeGreaterThan(24 * 3600);
  });

  it('reads the providers apart: what every function reads needs no provider setting', () => {
    const { PROVIDER: _unused, ...withoutProvider } = base;
    expect(() => loadConfig(withoutProvider)).toThrow('Missing required environment variable PROVIDER.');
    expect(() => loadConfig({ ...base, PROVIDER: 'replicate' })).toThrow('REPLICATE_API_TOKEN');
    const service = loadServiceConfig(withoutProvider);
    expect(service).toEqual(loadServiceConfig({ ...base, PROVIDER: 'replicate' }));
    expect(service).not.toHaveProperty('provider');
    const { provider: _provider, ...rest } = loadConfig(base);
    expect(rest).toEqual(service);
  });

  it("reads the task lifecycle's groups alone: no table, bucket or identity setting is required there", () => {
    // What app-context/lifecycle.ts reads: the stores and the media part read their own groups.
    const lifecycle = lifecycleConfig({ AWS_REGION: 'eu-west-1', IDENTITY_ISSUER: 'not read here' });
    expect(lifecycle).toEqual({
      region: 'eu-west-1',
      taskTimeoutSeconds: 1800,
      testModeDelaySeconds: 10,
      testModeConcurrency: 0,
      simulatedOutputs: 'rendered',
      submissions: { callbackSilenceSeconds: 120, graceSeconds: 600 },
      circuit: { failureThreshold: 5, coolDownSeconds: 30 },
    });
    expect(lifecycleConfig({ AWS_REGION: 'r', COPY_WORKER_FUNCTION: 'copy', SUBMISSION_QUEUE_URL: 'https://sqs.test/q' })).toMatchObject({
      copyWorkerFunction: 'copy',
      submissions: { queueUrl: 'https://sqs.test/q' },
    });
    expect(() => lifecycleConfig({ AWS_REGION: 'r', TASK_TIMEOUT_SECONDS: '59' })).toThrow(/TASK_TIMEOUT_SECONDS/);
    // ffmpeg is the copy worker's alone.
    expect(thumbnailsConfig({ FFMPEG_PATH: '/opt/bin/ffmpeg' })).toEqual({ ffmpegPath: '/opt/bin/ffmpeg' });
    expect(loadServiceConfig(base)).toMatchObject(lifecycle);
  });

  it('reads the identity provider (issuer and client together) and the sign-up credits', () => {
    const issuer = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool';
    expect(loadConfig({ ...base, IDENTITY_ISSUER: `${issuer}/`, IDENTITY_CLIENT_ID: 'client1', SIGNUP_CREDITS: '25' })).toMatchObject({
      identity: { issuer, clientId: 'client1' },
      signupCredits: 25,
    });
    expect(() => loadConfig({ ...base, IDENTITY_ISSUER: issuer })).toThrow(/IDENTITY_ISSUER and IDENTITY_CLIENT_ID go together/);
    expect(() => loadConfig({ ...base, IDENTITY_CLIENT_ID: 'client1' })).toThrow(/IDENTITY_ISSUER and IDENTITY_CLIENT_ID go together/);
    expect(() => loadConfig({ ...base, IDENTITY_ISSUER: 'cognito', IDENTITY_CLIENT_ID: 'c' })).toThrow(/IDENTITY_ISSUER must be an http\(s\) URL/);
    expect(() => loadConfig({ ...base, SIGNUP_CREDITS: '-1' })).toThrow(/SIGNUP_CREDITS must be a whole number from 0 to 1000000/);
  });

  it('reads the webhook queue, retry schedule and loopback setting', () => {
    expect(
      loadConfig({ ...base, WEBHOOK_QUEUE_URL: 'https://sqs.test/q', WEBHOOK_RETRY_SCHEDULE: '2, 10,30', WEBHOOK_ALLOW_LOOPBACK: 'true' }).webhooks,
    ).toEqual({ queueUrl: 'https://sqs.test/q', retrySchedule: [2, 10, 30], allowLoopback: true });
    expect(() => loadConfig({ ...base, WEBHOOK_RETRY_SCHEDULE: '2,soon' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => loadConfig({ ...base, WEBHOOK_RETRY_SCHEDULE: '-1' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => loadConfig({ ...base, WEBHOOK_ALLOW_LOOPBACK: 'yes' })).toThrow(/WEBHOOK_ALLOW_LOOPBACK/);
  });

  it.each(['TABLE_NAME', 'AWS_REGION', 'MEDIA_BUCKET', 'PUBLIC_MEDIA_BASE_URL', 'PROVIDER'])('fails loudly, naming %s, when it is missing', (name) => {
    const env: Record<string, string | undefined> = { ...base, [name]: undefined };
    expect(() => loadConfig(env)).toThrow(new ConfigError(`Missing required environment variable ${name}.`));
  });

  it.each([
    ['AUTH_CACHE_TTL_SECONDS', '-1'],
    ['AUTH_CACHE_TTL_SECONDS', 'sixty'],
    ['DEFAULT_RATE_LIMIT', '0'],
    ['DEFAULT_RATE_LIMIT', '1.5'],
    ['PROVIDER', 'openai'],
    ['PUBLIC_MEDIA_BASE_URL', 'ftp://cdn'],
    ['SIM_DELAY_SECONDS', '-2'],
    ['SIM_OUTPUTS', 'drawn'],
    ['TASK_TIMEOUT_SECONDS', '5'],
  ])('rejects %s=%s', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(name);
  });

  it('reads SIM_OUTPUTS for the simulated provider, whatever PROVIDER is (test mode uses it everywhere)', () => {
    expect(loadConfig({ ...base, SIM_OUTPUTS: 'samples' }).simulatedOutputs).toBe('samples');
    expect(loadConfig({ ...base, SIM_OUTPUTS: 'rendered' }).simulatedOutputs).toBe('rendered');
    const replicate = { ...base, PROVIDER: 'replicate', REPLICATE_API_TOKEN: 'r8_x', SIM_OUTPUTS: 'samples' };
    expect(loadConfig(replicate).simulatedOutputs).toBe('samples');
    expect(() => loadConfig({ ...base, SIM_OUTPUTS: 'drawn' })).toThrow('SIM_OUTPUTS must be one of "rendered", "samples"; got "drawn".');
  });

  it('takes overrides and the DynamoDB Local endpoint', () => {
    expect(
      loadConfig({ ...base, AUTH_CACHE_TTL_SECONDS: '0', DEFAULT_RATE_LIMIT: '5', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }),
    ).toMatchObject({ authCacheTtlSeconds: 0, defaultRateLimit: 5, dynamodbEndpoint: 'http://127.0.0.1:8000' });
  });
});

describe('replicate provider configuration', () => {
  it('needs the API token and takes the base URL, timeout and model map', () => {
    expect(() => loadConfig({ ...base, PROVIDER: 'replicate' })).toThrow('REPLICATE_API_TOKEN or REPLICATE_API_TOKEN_SECRET_ARN');
    expect(
      loadConfig({ ...base, PROVIDER: 'replicate', REPLICATE_API_TOKEN_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:r' }).provider,
    ).toMatchObject({ apiToken: { secretArn: 'arn:aws:secretsmanager:eu-west-1:1:secret:r' } });
    expect(
      loadConfig({ ...base, PROVIDER: 'replicate', REPLICATE_API_TOKEN: 'r8_x', REPLICATE_TIMEOUT_MS: '2500', REPLICATE_MODELS: '{}' })
        .provider,
    ).toEqual({ name: 'replicate', baseUrl: 'https://api.replicate.com', apiToken: { value: 'r8_x' }, timeoutMs: 2500, modelsJson: '{}' });
  });
});

describe('other configured providers', () => {
  it('keeps every provider whose settings are given, so tasks that recorded one are still followed after PROVIDER changed', () => {
    const replicateSettings = { REPLICATE_API_TOKEN: 'r8_x', REPLICATE_BASE_URL: 'http://127.0.0.1:4010' };
    expect(loadConfig({ ...base, ...replicateSettings })).toMatchObject({
      provider: { name: 'simulated' },
      otherProviders: [{ name: 'replicate', baseUrl: 'http://127.0.0.1:4010', apiToken: { value: 'r8_x' } }],
    });
    // The simulated provider needs no settings: it is always there (test mode runs on it anyway).
    expect(loadConfig({ ...base, ...replicateSettings, PROVIDER: 'replicate' }).otherProviders).toEqual([{ name: 'simulated', delaySeconds: 10, concurrency: 0 }]);
    // Without Replicate's token, Replicate is not configured here at all.
    expect(loadConfig(base).otherProviders).toBeUndefined();
    // A provider configured but not chosen is still checked at start-up.
    expect(() => loadConfig({ ...base, ...replicateSettings, REPLICATE_TIMEOUT_MS: 'soon' })).toThrow('REPLICATE_TIMEOUT_MS');
  });
});

describe('submission settings', () => {
  const base = {
    TABLE_NAME: 't',
    AWS_REGION: 'eu-west-1',
    MEDIA_BUCKET: 'b',
    PUBLIC_MEDIA_BASE_URL: 'https://cdn.example.com',
  };
  const replicate = { ...base, PROVIDER: 'replicate', REPLICATE_API_TOKEN: 'r8_x' };

  it('paces Replicate at 10 creates a second unless told otherwise; the simulated provider not at all', () => {
    expect(loadConfig(replicate).budgetPerSecond).toBe(10);
    expect(loadConfig({ ...replicate, PROVIDER_BUDGET_PER_SECOND: '5' }).budgetPerSecond).toBe(5);
    expect(loadConfig({ ...base, PROVIDER: 'simulated' }).budgetPerSecond).toBeUndefined();
  });

  it('reads the queue, callback base URL, silence and grace', () => {
    expect(
      loadConfig({
        ...replicate,
        SUBMISSION_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/submissions',
        CALLBACK_BASE_URL: 'https://api.example.com/api/v1/',
        CALLBACK_SILENCE_SECONDS: '30',
        SUBMISSION_GRACE_SECONDS: '90',
      }).submissions,
    ).toEqual({
      queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/submissions',
      callbackBaseUrl: 'https://api.example.com/api/v1',
      callbackSilenceSeconds: 30,
      graceSeconds: 90,
    });
  });

  it('reads the extra origins provider outputs may be copied from (a provider on this machine)', () => {
    expect(loadConfig({ ...replicate, OUTPUT_ALLOWED_ORIGINS: 'http://127.0.0.1:4010/files, https://x.test' }).outputOrigins).toEqual([
      'http://127.0.0.1:4010',
      'https://x.test',
    ]);
    expect(() => loadConfig({ ...replicate, OUTPUT_ALLOWED_ORIGINS: 'nope' })).toThrow('OUTPUT_ALLOWED_ORIGINS');
  });

  it('refuses a budget below 1 and a callback base URL that is not http(s)', () => {
    expect(() => loadConfig({ ...replicate, PROVIDER_BUDGET_PER_SECOND: '0' })).toThrow('PROVIDER_BUDGET_PER_SECOND');
    expect(() => loadConfig({ ...replicate, CALLBACK_BASE_URL: 'ftp://x' })).toThrow('CALLBACK_BASE_URL');
  });
});

describe('provider callback secrets', () => {
  const secret = `whsec_${Buffer.from('a callback signing secret').toString('base64')}`;
  const replicate = { ...base, PROVIDER: 'replicate', REPLICATE_API_TOKEN: 'r8_x' };

  it('gives the simulated provider SIM_CALLBACK_SECRET, or none', () => {
    expect(loadConfig({ ...base, SIM_CALLBACK_SECRET: secret }).provider).toEqual({ name: 'simulated', delaySeconds: 10, concurrency: 0, callbackSecret: { value: secret } });
    expect(loadConfig(base).provider).not.toHaveProperty('callbackSecret');
  });

  it('gives Replicate its webhook secret as a value or as a Secrets Manager ARN, or none', () => {
    expect(loadConfig({ ...replicate, REPLICATE_WEBHOOK_SECRET: secret }).provider).toMatchObject({ webhookSecret: { value: secret } });
    const arn = 'arn:aws:secretsmanager:eu-west-1:1:secret:replicate-webhook';
    expect(loadConfig({ ...replicate, REPLICATE_WEBHOOK_SECRET_ARN: arn }).provider).toMatchObject({ webhookSecret: { secretArn: arn } });
    expect(loadConfig(replicate).provider).not.toHaveProperty('webhookSecret');
  });

  it.each([
    ['SIM_CALLBACK_SECRET', base],
    ['REPLICATE_WEBHOOK_SECRET', replicate],
  ])('refuses a %s that is not a Standard Webhooks secret, without showing it', (name, env) => {
    expect(() => loadConfig({ ...env, [name]: 'whsec_' })).toThrow(ConfigError);
    for (const value of ['hunter2-not-a-secret', 'whsec_not base64!', `${secret.slice('whsec_'.length)}`]) {
      let message = '';
      try {
        loadConfig({ ...env, [name]: value });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        message = (error as Error).message;
      }
      expect(message).toContain(name);
      expect(message).not.toContain(value);
    }
  });
});

describe('provider routes (PROVIDER_ROUTES)', () => {
  it('reads routes per model and configures every provider they name', () => {
    const config = loadConfig({ ...base, PROVIDER_ROUTES: '{"vid-2-0":["simulated","simulated-b"]}' });
    expect(config.routes).toEqual({ 'vid-2-0': ['simulated', 'simulated-b'] });
    expect(config.otherProviders?.map((provider) => provider.name)).toEqual(['simulated-b']);
    // Unrouted, the second simulated provider is not configured at all.
    expect(loadConfig(base).otherProviders).toBeUndefined();
  });

  it.each([
    ['not JSON', 'vid-2-0=fal', /PROVIDER_ROUTES must be JSON/],
    ['an unknown model', '{"vid-9":["simulated"]}', /PROVIDER_ROUTES vid-9: "vid-9" is not a model id/],
    ['an unknown provider', '{"vid-2-0":["acme"]}', /PROVIDER_ROUTES vid-2-0.0: "acme" is not a provider/],
    ['an empty list', '{"vid-2-0":[]}', /PROVIDER_ROUTES vid-2-0: needs at least one provider/],
    ['a provider twice', '{"vid-2-0":["simulated","simulated"]}', /names a provider twice/],
    ['a list that is not one', '["simulated"]', /must be an object of model id/],
  ])('refuses %s at start-up, naming the spot', (_, value, message) => {
    expect(() => loadConfig({ ...base, PROVIDER_ROUTES: value })).toThrow(message);
  });

  it('refuses a route to a provider whose secrets are missing', () => {
    expect(() => loadConfig({ ...base, PROVIDER_ROUTES: '{"vid-2-0":["simulated","replicate"]}' })).toThrow(/REPLICATE_API_TOKEN/);
  });

  it('names the route, not PROVIDER, when a routed provider\'s secret is missing (issue 31)', () => {
    let message = '';
    try {
      loadConfig({ ...base, PROVIDER_ROUTES: '{"vid-2-0":["simulated","fal"],"image-2":["fal"]}' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('Missing FAL_KEY or FAL_KEY_SECRET_ARN (PROVIDER_ROUTES routes vid-2-0, image-2 to fal; PROVIDER=simulated).');
    // The chosen provider's own secret is still reported against PROVIDER.
    expect(() => loadConfig({ ...base, PROVIDER: 'fal' })).toThrow('Missing FAL_KEY or FAL_KEY_SECRET_ARN (PROVIDER=fal).');
  });

  it('reads the circuit breaker settings', () => {
    expect(loadConfig({ ...base, CIRCUIT_FAILURE_THRESHOLD: '3', CIRCUIT_COOL_DOWN_SECONDS: '60' }).circuit).toEqual({ failureThreshold: 3, coolDownSeconds: 60 });
    expect(() => loadConfig({ ...base, CIRCUIT_FAILURE_THRESHOLD: '0' })).toThrow(/CIRCUIT_FAILURE_THRESHOLD/);
  });
});

describe('retention day (RETENTION_DAY_SECONDS)', () => {
  it('is a day unless the local tests shorten it, and a bad value names the variable', () => {
    expect(retentionDayMs({})).toBe(86_400_000);
    expect(retentionDayMs({ RETENTION_DAY_SECONDS: '2' })).toBe(2_000);
    for (const bad of ['0', '-5', '1.5', 'a day']) {
      expect(() => retentionDayMs({ RETENTION_DAY_SECONDS: bad })).toThrow(ConfigError);
      expect(() => retentionDayMs({ RETENTION_DAY_SECONDS: bad })).toThrow(/^RETENTION_DAY_SECONDS must be/);
    }
  });
});
