import { SECRET_MAX_AGE_SECONDS } from '#adapters/secrets';
import { buildProvider } from '#app-context/provider';
import { loadConfig } from '#config';
import type { CallbackRequest } from '#domain/providers/provider';
import { signCallback } from '#providers/signed-callback';
import { refusal } from '#test-support/callback-receiver';

/**
 * The callback secrets as app-context wires them: Replicate's webhook secret from Secrets
 * Manager (refreshed with the token, so a rotation is picked up), or given as a value; the
 * simulated provider's from SIM_CALLBACK_SECRET. No network: readCallback only verifies.
 */
const base = {
  TABLE_NAME: 'tasks',
  AWS_REGION: 'eu-west-1',
  MEDIA_BUCKET: 'media',
  PUBLIC_MEDIA_BASE_URL: 'https://cdn.example.com',
};
const TOKEN_ARN = 'arn:aws:secretsmanager:eu-west-1:1:secret:replicate-token';
const WEBHOOK_ARN = 'arn:aws:secretsmanager:eu-west-1:1:secret:replicate-webhook';
const secret = (seed: string) => `whsec_${Buffer.from(`webhook secret ${seed}`).toString('base64')}`;
const OLD = secret('old');
const NEW = secret('new');
const noStorage = {} as never;

function callback(signedWith: string, body: string): CallbackRequest {
  return { body, headers: signCallback(signedWith, 'msg_1', new Date(), body) };
}

const prediction = JSON.stringify({ id: 'p1', status: 'processing' });

describe('Replicate webhook secret', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-23T10:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  it('is read from Secrets Manager with the token, and a rotated one is used a lifetime later', async () => {
    const values: Record<string, string[]> = { [TOKEN_ARN]: ['r8_token', 'r8_token'], [WEBHOOK_ARN]: [OLD, NEW] };
    const reads: string[] = [];
    const readSecretValue = async (arn: string) => {
      reads.push(arn);
      const value = values[arn]?.shift();
      if (value === undefined) throw new Error(`nothing scripted for ${arn}`);
      return value;
    };
    const config = loadConfig({
      ...base,
      PROVIDER: 'replicate',
      REPLICATE_API_TOKEN_SECRET_ARN: TOKEN_ARN,
      REPLICATE_WEBHOOK_SECRET_ARN: WEBHOOK_ARN,
    });
    const provider = buildProvider(config, noStorage, noStorage, readSecretValue);
    expect(reads).toEqual([]); // nothing is read before the first use

    expect(await provider.readCallback(callback(OLD, prediction), new Date())).toEqual({ jobId: 'p1', outcome: { type: 'processing', queuePosition: 0 }, messageId: 'msg_1' });
    expect(reads.sort()).toEqual([TOKEN_ARN, WEBHOOK_ARN]);

    jest.advanceTimersByTime(SECRET_MAX_AGE_SECONDS * 1000 + 1000);
    expect(await provider.readCallback(callback(NEW, prediction), new Date())).toEqual({ jobId: 'p1', outcome: { type: 'processing', queuePosition: 0 }, messageId: 'msg_1' });
    expect(await refusal(provider.readCallback(callback(OLD, prediction), new Date()))).toBe('signature');
    expect(reads).toHaveLength(4);
  });

  it('is taken as a value (local use), or left out: then every callback is refused', async () => {
    const withValue = buildProvider(
      loadConfig({ ...base, PROVIDER: 'replicate', REPLICATE_API_TOKEN: 'r8_x', REPLICATE_WEBHOOK_SECRET: OLD }),
      noStorage,
      noStorage,
    );
    expect((await withValue.readCallback(callback(OLD, prediction), new Date())).jobId).toBe('p1');

    const without = buildProvider(loadConfig({ ...base, PROVIDER: 'replicate', REPLICATE_API_TOKEN: 'r8_x' }), noStorage, noStorage);
    expect(await refusal(without.readCallback(callback(OLD, prediction), new Date()))).toBe('signature');
  });

  it('never shows a stored secret that is not a Standard Webhooks secret', async () => {
    const stored = 'plain-text-webhook-secret-value';
    const config = loadConfig({ ...base, PROVIDER: 'replicate', REPLICATE_API_TOKEN: 'r8_x', REPLICATE_WEBHOOK_SECRET_ARN: WEBHOOK_ARN });
    const provider = buildProvider(config, noStorage, noStorage, async () => stored);
    const error = await provider.readCallback(callback(OLD, prediction), new Date()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('not a Standard Webhooks secret');
    expect((error as Error).message).not.toContain(stored);
  });
});

describe('simulated provider callback secret', () => {
  it('verifies callbacks with SIM_CALLBACK_SECRET, and refuses them without it', async () => {
    const body = JSON.stringify({ id: 'sim_01J00000000000000000000000', status: 'processing', progress: 40 });
    const simulated = buildProvider(loadConfig({ ...base, PROVIDER: 'simulated', SIM_CALLBACK_SECRET: OLD }), noStorage, noStorage);
    expect(await simulated.readCallback(callback(OLD, body), new Date())).toEqual({
      jobId: 'sim_01J00000000000000000000000',
      outcome: { type: 'processing', progress: 40 },
      messageId: 'msg_1',
    });
    expect(await refusal(simulated.readCallback(callback(NEW, body), new Date()))).toBe('signature');

    const silent = buildProvider(loadConfig({ ...base, PROVIDER: 'simulated' }), noStorage, noStorage);
    expect(await refusal(silent.readCallback(callback(OLD, body), new Date()))).toBe('signature');
  });
});
