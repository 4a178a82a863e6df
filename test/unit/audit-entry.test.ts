import fc from 'fast-check';
import { actorOf, auditEntry, auditExpiresAt, MAX_USER_AGENT_LENGTH, redactUrl, type AuditStamp } from '#domain/shared/audit';
import { generateApiKey } from '#domain/accounts/api-key';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const stamp = (userAgent: string | null, email: string | null = 'a@example.com'): AuditStamp => ({
  actor: { type: 'holder', id: 'holder-1', email },
  origin: { ip: '127.0.0.1', userAgent },
});

describe('audit entries (domain/shared/audit.ts)', () => {
  it('never carries anything shaped like an API key, a webhook secret or a URL query, wherever a caller put it', () => {
    const secret = fc.oneof(
      fc.constantFrom('live', 'test').map((mode) => generateApiKey(mode as 'live' | 'test')),
      fc.base64String({ minLength: 8, maxLength: 40 }).map((b64) => `whsec_${b64.replace(/=+$/, '')}A`),
    );
    const around = fc.tuple(fc.string({ maxLength: 20 }), secret, fc.string({ maxLength: 20 }));
    fc.assert(
      fc.property(around, around, around, fc.webPath(), ([a, key, b], [c, whsec, d], [e, other, f], path) => {
        const query = `token=${key.slice(8)}`;
        const entry = auditEntry(
          stamp(`${a}${key}${b}`, `${c}${whsec}${d}@example.com`),
          'acc_01HZZZZZZZZZZZZZZZZZZZZZZZ',
          'webhook.created',
          { type: 'webhook', id: 'whk_1' },
          { url: redactUrl(`https://user:${whsec}@hooks.example.com${path}?${query}#frag`), name: `${e}${other}${f}`, events: [key, whsec] },
          NOW,
        );
        const text = JSON.stringify(entry);
        for (const found of [key, whsec, other, query, `user:`]) expect(text).not.toContain(found);
      }),
    );
  });

  it('reduces a URL to its origin and path, and an unparsable one to a mark', () => {
    expect(redactUrl('https://u:p@hooks.slack.com/services/T0/B0/xyz?token=abc#x')).toBe('https://hooks.slack.com/services/T0/B0/xyz');
    expect(redactUrl('http://127.0.0.1:8080/hook')).toBe('http://127.0.0.1:8080/hook');
    expect(redactUrl('not a url')).toBe('[redacted]');
  });

  it('cuts the user agent to 256 characters and drops control characters', () => {
    const entry = auditEntry(stamp(`curl/8\r\n=cmd|${'x'.repeat(400)}`), 'acc_1', 'key.created', { type: 'key', id: 'key_1' }, {}, NOW);
    expect(entry.origin.userAgent).toHaveLength(MAX_USER_AGENT_LENGTH);
    expect(entry.origin.userAgent!.startsWith('curl/8=cmd|')).toBe(true);
    expect(auditEntry(stamp(''), 'acc_1', 'key.created', { type: 'key', id: 'key_1' }, {}, NOW).origin.userAgent).toBeNull();
  });

  it('names the live account for a test partition and marks the change test mode; ids sort by time', () => {
    const first = auditEntry(stamp(null), 'acc_1_test', 'key.created', { type: 'key', id: 'key_1' }, { name: 'k' }, NOW);
    const second = auditEntry(stamp(null), 'acc_1', 'key.revoked', { type: 'key', id: 'key_1' }, {}, NOW);
    expect(first).toMatchObject({ accountId: 'acc_1', at: NOW.toISOString(), details: { name: 'k', mode: 'test' } });
    expect(second.details).toEqual({});
    expect(first.id).toMatch(/^aud_[0-9A-Z]{26}$/);
    expect(first.id < second.id).toBe(true);
  });

  it('keeps an entry a year (the TTL, in epoch seconds)', () => {
    expect(auditExpiresAt('2026-03-01T12:00:00.000Z')).toBe(Date.parse('2027-03-01T12:00:00.000Z') / 1000);
  });

  it('names a session by its holder and a key by its id', () => {
    expect(actorOf({ kind: 'session', holderId: 'h1', email: 'a@b.c' })).toEqual({ type: 'holder', id: 'h1', email: 'a@b.c' });
    expect(actorOf({ kind: 'apiKey', keyId: 'key_1' })).toEqual({ type: 'key', id: 'key_1', email: null });
  });
});
