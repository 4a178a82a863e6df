import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { SessionPrincipal } from '#domain/accounts/principal';
import { UnauthorizedError, ValidationError } from '#domain/shared/errors';
import { checkAccess } from '#http/access';
import { authorizerContext, principalFrom } from '#http/principal';
import { specOf } from '#spec/registry';

/**
 * A session's account (issue 36, CONTRACT.md "Teams"): the authorizer's cached answer lists
 * every account the holder belongs to; each request picks one with `Vidgen-Account` (default:
 * the first, the one they own), only from that list.
 */
const A = 'acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX';
const B = 'acc_01M8EM0Y8W2T6QK4C9J1H5F3BA';
const C = 'acc_01M8EM1P3R5T7V9X1Z3B5D7F9H';

const session: SessionPrincipal = {
  kind: 'session',
  partitionId: A,
  mode: 'live',
  accountId: A,
  role: 'owner',
  holderId: 'sub-1',
  email: 'a@example.com',
  rateLimit: 60,
  memberships: [
    { accountId: A, role: 'owner' },
    { accountId: B, role: 'viewer' },
  ],
};

const eventWith = (context: Record<string, string>, headers: Record<string, string> = {}) =>
  ({ headers, requestContext: { authorizer: { principalId: 'sub-1', ...context } } }) as unknown as APIGatewayProxyEvent;

describe('a session principal', () => {
  it('carries every membership, default first, through the context, and acts on the default without a header', () => {
    const context = authorizerContext(session);
    expect(context).toEqual({ kind: 'session', holderId: 'sub-1', email: 'a@example.com', rateLimit: '60', memberships: `${A}=owner ${B}=viewer` });
    expect(principalFrom(eventWith(context))).toEqual(session);
  });

  it('acts on the account Vidgen-Account names, with the role there, in the mode Vidgen-Mode names', () => {
    const context = authorizerContext(session);
    expect(principalFrom(eventWith(context, { 'vidgen-account': B }))).toMatchObject({ accountId: B, partitionId: B, role: 'viewer' });
    expect(principalFrom(eventWith(context, { 'Vidgen-Account': B, 'Vidgen-Mode': 'test' }))).toMatchObject({ accountId: B, partitionId: `${B}_test`, role: 'viewer', mode: 'test' });
    expect(principalFrom(eventWith(context, { 'Vidgen-Account': A }))).toMatchObject({ accountId: A, role: 'owner' });
  });

  it("names no partition for an account the holder does not belong to, and the access check refuses every route but the holder's own", () => {
    const outsider = principalFrom(eventWith(authorizerContext(session), { 'Vidgen-Account': C }));
    expect(outsider).toMatchObject({ kind: 'session', accountId: C, role: null, partitionId: '', refusal: `You are not a member of ${C}.` });
    for (const name of ['get-account', 'list-videos', 'generate', 'list-keys', 'list-audit-events']) {
      expect(() => checkAccess(outsider, specOf(name).access)).toThrow(`You are not a member of ${C}.`);
    }
    expect(() => checkAccess(outsider, specOf('list-accounts').access)).not.toThrow();
  });

  it('refuses a Vidgen-Account that is not an account id with 400 naming the header', () => {
    for (const bad of ['acc_1', 'acc_01M8EKZ4Q9V2H7T3R6N0B5C1DX_test', 'ACC_01M8EKZ4Q9V2H7T3R6N0B5C1DX', '']) {
      let error: unknown;
      try {
        principalFrom(eventWith(authorizerContext(session), { 'Vidgen-Account': bad }));
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).message).toMatch(/^Vidgen-Account: must be an account id/);
    }
  });

  it('a holder of no account acts on none, refused with why, until they join one', () => {
    const none = principalFrom(eventWith(authorizerContext({ ...session, memberships: [] })));
    expect(none).toMatchObject({ accountId: null, role: null, partitionId: '', memberships: [] });
    expect(() => checkAccess(none, specOf('get-account').access)).toThrow('You are not a member of any account');
  });

  it('reads a context cached before teams as the owner of its one account; a malformed list is 401', () => {
    expect(principalFrom(eventWith({ kind: 'session', accountId: A, holderId: 'sub-1', email: 'a@example.com', rateLimit: '60' }))).toEqual({
      ...session,
      memberships: [{ accountId: A, role: 'owner' }],
    });
    const base = authorizerContext(session);
    for (const memberships of [`${A}=superuser`, `${A}`, `${A}=owner=x`, `${A}_test=owner`, `${A}=owner  ${B}=viewer`, 'x=owner']) {
      expect(() => principalFrom(eventWith({ ...base, memberships }))).toThrow(UnauthorizedError);
    }
  });

  it('an API key ignores Vidgen-Account, as it ignores Vidgen-Mode', () => {
    const key = { kind: 'apiKey', accountId: A, mode: 'live', keyId: 'key_1', rateLimit: '60', scopes: 'read' };
    expect(principalFrom(eventWith(key, { 'Vidgen-Account': B }))).toMatchObject({ kind: 'apiKey', partitionId: A });
    expect(principalFrom(eventWith(key, { 'Vidgen-Account': 'nonsense' }))).toMatchObject({ kind: 'apiKey', partitionId: A });
  });
});
