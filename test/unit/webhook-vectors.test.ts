import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '#client';

/**
 * The webhook verification vectors the Python SDK's tests read too (python/tests/unit), so both
 * clients accept and refuse exactly the same requests.
 */
interface Vector {
  name: string;
  secret: string;
  body: string;
  headers: Record<string, string>;
  now: number;
  valid: boolean;
  error?: string;
}

const file = path.join(__dirname, '..', 'fixtures', 'webhook-vectors.json');
const { vectors } = JSON.parse(readFileSync(file, 'utf8')) as { vectors: Vector[] };

const header = (vector: Vector, name: string) =>
  Object.entries(vector.headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? '';

describe('the shared webhook vectors', () => {
  it('cover acceptance and every kind of refusal', () => {
    expect(vectors.filter((v) => v.valid).length).toBeGreaterThanOrEqual(5);
    expect(new Set(vectors.filter((v) => !v.valid).map((v) => v.error))).toEqual(
      new Set(['No webhook-signature matches', 'more than 5 minutes', 'not a number of seconds', 'Missing']),
    );
  });

  it.each(vectors.filter((v) => v.valid).map((v) => [v.name, v] as const))('are signed as standardwebhooks signs: %s', (_name, vector) => {
    const timestamp = header(vector, 'webhook-timestamp');
    const signature = new Webhook(vector.secret).sign(header(vector, 'webhook-id'), new Date(Number(timestamp) * 1000), vector.body);
    expect(header(vector, 'webhook-signature').split(' ')).toContain(signature);
  });

  it.each(vectors.map((v) => [v.name, v] as const))('verifyWebhook: %s', async (_name, vector) => {
    const outcome = await verifyWebhook(vector.body, vector.headers, vector.secret, new Date(vector.now * 1000)).catch((error: unknown) => error);
    if (vector.valid) {
      expect(outcome).toEqual(JSON.parse(vector.body));
    } else {
      expect(outcome).toBeInstanceOf(WebhookVerificationError);
      expect((outcome as Error).message).toContain(vector.error);
    }
  });
});
