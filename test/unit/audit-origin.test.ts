import type { APIGatewayProxyEvent } from 'aws-lambda';
import { originOf, stampOf } from '#http/audit-origin';
import { operatorStamp, stripeActor } from '#domain/shared/audit';

const eventWith = (headers: Record<string, string>, sourceIp?: string) =>
  ({ headers, requestContext: { identity: { sourceIp } } }) as unknown as APIGatewayProxyEvent;

describe('the origin of an audit entry (http/audit-origin.ts)', () => {
  it("takes the gateway's source address and the User-Agent header, whatever its casing", () => {
    expect(originOf(eventWith({ 'USER-AGENT': 'vidgen-python/1.2' }, '203.0.113.9'))).toEqual({ ip: '203.0.113.9', userAgent: 'vidgen-python/1.2' });
  });

  it('answers null for what the request does not carry, and cleans the rest', () => {
    expect(originOf(eventWith({}))).toEqual({ ip: null, userAgent: null });
    expect(originOf({ headers: {}, requestContext: undefined } as unknown as APIGatewayProxyEvent)).toEqual({ ip: null, userAgent: null });
    const agent = originOf(eventWith({ 'user-agent': `x\u0007y ${'z'.repeat(300)}` }, '127.0.0.1')).userAgent!;
    expect(agent).toHaveLength(256);
    expect(agent.startsWith('xy z')).toBe(true);
  });

  it('stamps a session with its holder, a key with its id; the operator and Stripe have their own actors', () => {
    const event = eventWith({ 'user-agent': 'curl/8' }, '127.0.0.1');
    expect(stampOf({ kind: 'session', partitionId: 'acc_1', mode: 'live', holderId: 'h1', email: 'a@example.com', rateLimit: 60, accountId: 'acc_1', role: 'owner', memberships: [{ accountId: 'acc_1', role: 'owner' }] }, event)).toEqual({
      actor: { type: 'holder', id: 'h1', email: 'a@example.com' },
      origin: { ip: '127.0.0.1', userAgent: 'curl/8' },
    });
    expect(
      stampOf({ kind: 'apiKey', partitionId: 'acc_1', mode: 'live', keyId: 'key_1', rateLimit: 60, scopes: ['read'] }, event).actor,
    ).toEqual({ type: 'key', id: 'key_1', email: null });
    expect(operatorStamp('1.4.0')).toEqual({ actor: { type: 'operator', id: 'operator', email: null }, origin: { ip: null, userAgent: 'vidgen-admin/1.4.0' } });
    expect(stripeActor('evt_123')).toEqual({ type: 'stripe', id: 'evt_123', email: null });
  });
});
