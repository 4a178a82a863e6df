import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SECRET_MAX_AGE_SECONDS, secretReader } from '#adapters/secrets';
import { ProviderUnavailableError, type GenerationProvider } from '#domain/providers/provider';
import { lazyProvider } from '#providers/lazy-provider';

/**
 * The Replicate token as app-context wires it on AWS: read from Secrets Manager through
 * Powertools Parameters (cached SECRET_MAX_AGE_SECONDS) by a lazy provider rebuilt after the
 * same lifetime. Secrets Manager is a mocked client here (this failure/rotation path only).
 */
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:vidgen/dev/replicate-api-token-AbCdEf';
const LIFETIME_MS = SECRET_MAX_AGE_SECONDS * 1000;

/** A provider that answers with the token it was built with, so a test sees which one is in use. */
const providerWith = (token: string): GenerationProvider => ({
  name: 'replicate',
  submit: async () => ({ type: 'accepted', jobId: `job-for-${token}` }),
  fetchResult: async () => ({ type: 'processing' }),
  cancel: async () => undefined,
  readCallback: async () => ({ jobId: 'j1', outcome: { type: 'processing' } }),
  callbackToken: async () => undefined,
});

function wiring(answers: Array<string | Error>) {
  const client = new SecretsManagerClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
  const send = jest.spyOn(client, 'send').mockImplementation(async (command: unknown) => {
    expect(command).toBeInstanceOf(GetSecretValueCommand);
    expect((command as GetSecretValueCommand).input.SecretId).toBe(ARN);
    const answer = answers.shift();
    if (answer === undefined) throw new Error('no more answers scripted');
    if (answer instanceof Error) throw answer;
    return { SecretString: `${answer}\n` };
  });
  const read = secretReader(client);
  const rebuildErrors: unknown[] = [];
  const provider = lazyProvider('replicate', async () => providerWith(await read(ARN)), {
    rebuildAfterMs: LIFETIME_MS,
    onRebuildError: (error) => rebuildErrors.push(error),
  });
  const tokenInUse = async () => ((await provider.submit({} as never)) as { jobId: string }).jobId.replace('job-for-', '');
  return { send, tokenInUse, rebuildErrors };
}

describe('provider token from Secrets Manager (Parameters, 5 minute lifetime)', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-23T10:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  it('is read once per lifetime, and a rotated token is used after it, without a redeploy', async () => {
    const { send, tokenInUse } = wiring(['r8_old', 'r8_new']);
    expect(await tokenInUse()).toBe('r8_old');
    jest.advanceTimersByTime(LIFETIME_MS - 1000);
    expect(await tokenInUse()).toBe('r8_old');
    expect(send).toHaveBeenCalledTimes(1);

    jest.advanceTimersByTime(2000);
    expect(await tokenInUse()).toBe('r8_new');
    expect(await tokenInUse()).toBe('r8_new');
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('keeps the working token when a re-read fails, and picks up the new one a lifetime later', async () => {
    const { send, tokenInUse, rebuildErrors } = wiring(['r8_old', new Error('ThrottlingException'), 'r8_new']);
    expect(await tokenInUse()).toBe('r8_old');

    jest.advanceTimersByTime(LIFETIME_MS + 1000);
    expect(await tokenInUse()).toBe('r8_old');
    expect(rebuildErrors).toHaveLength(1);
    expect(String(rebuildErrors[0])).toContain('ThrottlingException');
    // The failed read is not retried on every call: once per lifetime.
    expect(await tokenInUse()).toBe('r8_old');
    expect(send).toHaveBeenCalledTimes(2);

    jest.advanceTimersByTime(LIFETIME_MS + 1000);
    expect(await tokenInUse()).toBe('r8_new');
    expect(send).toHaveBeenCalledTimes(3);
  });

  it('counts a first read that fails as the provider being unavailable, and reads again on the next call', async () => {
    const { send, tokenInUse } = wiring([new Error('AccessDeniedException'), 'r8_token']);
    await expect(tokenInUse()).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(await tokenInUse()).toBe('r8_token');
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('refuses a secret without a string value', async () => {
    const { tokenInUse } = wiring(['   ']);
    await expect(tokenInUse()).rejects.toThrow(/has no string value/);
  });
});
