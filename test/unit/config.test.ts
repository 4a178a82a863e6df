import { ConfigError, CONFIG_DEFAULTS, loadConfig } from '../../functions/config';

const base = { TABLE_NAME: 'tasks', AWS_REGION: 'eu-west-1' };

describe('loadConfig', () => {
  it('reads the required variables and applies documented defaults', () => {
    expect(loadConfig(base)).toEqual({
      tableName: 'tasks',
      region: 'eu-west-1',
      authCacheTtlSeconds: CONFIG_DEFAULTS.authCacheTtlSeconds,
      defaultRateLimit: 60,
    });
  });

  it.each(['TABLE_NAME', 'AWS_REGION'])('fails loudly, naming %s, when it is missing', (name) => {
    const env: Record<string, string | undefined> = { ...base, [name]: undefined };
    expect(() => loadConfig(env)).toThrow(new ConfigError(`Missing required environment variable ${name}.`));
  });

  it.each([
    ['AUTH_CACHE_TTL_SECONDS', '-1'],
    ['AUTH_CACHE_TTL_SECONDS', 'sixty'],
    ['DEFAULT_RATE_LIMIT', '0'],
    ['DEFAULT_RATE_LIMIT', '1.5'],
  ])('rejects %s=%s', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(name);
  });

  it('takes overrides and the DynamoDB Local endpoint', () => {
    expect(
      loadConfig({ ...base, AUTH_CACHE_TTL_SECONDS: '0', DEFAULT_RATE_LIMIT: '5', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }),
    ).toMatchObject({ authCacheTtlSeconds: 0, defaultRateLimit: 5, dynamodbEndpoint: 'http://127.0.0.1:8000' });
  });
});
