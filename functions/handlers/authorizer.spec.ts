import { defineFunction } from '#spec/function-spec';

export const spec = defineFunction({
  name: 'authorizer',
  purpose: "looks up the presented API key, or a session's holder; opens a holder's account on their first sign-in",
  area: 'account',
  trigger: { kind: 'authorizer' },
  access: { callers: ['aws'] },
  needs: {
    // A session: Query HOLDER#h (the holder and their memberships, issue 36). The first sign-in:
    // TransactWriteItems [Put holder, Put account, Put ledger (sign-up credits), Put member, Put
    // membership, Update team]; a holder from before teams: the same with Update holder.
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'Query'], query: ['table'] },
    identity: true,
  },
  sizing: { timeoutSeconds: 10 },
});
