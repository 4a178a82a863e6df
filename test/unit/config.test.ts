import { ConfigError, CONFIG_DEFAULTS, loadConfig } from '../../functions/config';

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
      provider: { name: 'simulated', delaySeconds: 10 },
      taskTimeoutSeconds: 1800,
      // Deployed defaults: no loopback, more than 24 h of retries.
      webhooks: { allowLoopback: false, retrySchedule: [...CONFIG_DEFAULTS.webhookRetrySchedule] },
    });
    const retried = CONFIG_DEFAULTS.webhookRetrySchedule.reduce((sum, seconds) => sum + seconds, 0);
    expect(retried).toBeGreaterThan(24 * 3600);
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
    ['TASK_TIMEOUT_SECONDS', '5'],
  ])('rejects %s=%s', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(name);
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
