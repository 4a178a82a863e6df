import { defineFunction } from '#spec/function-spec';

export const spec = defineFunction({
  name: 'authorizer',
  purpose: "looks up the presented API key, or a session's holder; opens a holder's account on their first sign-in",
  area: 'account',
  trigger: { kind: 'authorizer' },
  access: { callers: ['aws'] },
  needs: {
    // The first sign-in: TransactWriteItems [Put holder, Put account, Put ledger (sign-up credits)].
    table: { actions: ['GetItem', 'PutItem'] },
    identity: true,
  },
  sizing: { timeoutSeconds: 10 },
});
