import { UnauthorizedError } from '../shared/errors';
import { HolderExistsError, newHolderAccount, type Holder, type IdentityHolder } from './holder';
import { newAccountId, newLedgerEntryId } from '../shared/ids';
import type { LedgerEntry } from './ledger';
import type { SessionPrincipal } from './principal';
import { defaultFirst, type Membership } from './roles';
import { sessionActingOn } from './session-account';
import type { HolderStore, IdentityProvider } from './ports';

export interface SessionDependencies {
  identity: IdentityProvider;
  holders: HolderStore;
  /** The live balance a first sign-in opens with (SIGNUP_CREDITS). */
  signupCredits: number;
  defaultRateLimit: number;
  /** Time, from the caller (the domain never reads the system clock). */
  clock: () => Date;
}

const SIGNUP_REASON = 'sign-up credits';

/**
 * Resolves an access token to the holder and every account they belong to, acting on the
 * default one in live mode (the HTTP layer applies the request's account and mode). The token must pass the verifier, and the identity provider must still know
 * its holder (a deleted, disabled or signed-out holder's token still has a valid signature).
 * The first sign-in of a verified holder opens their account; of two first requests at once,
 * one creates it and the other reads it. Every refusal is the same 401, and nothing is created.
 */
export async function authenticateSession(deps: SessionDependencies, token: string): Promise<SessionPrincipal> {
  const verified = await deps.identity.verifyAccessToken(token);
  if (!verified) throw new UnauthorizedError();
  const current = await deps.identity.currentHolder(token);
  if (!current || current.holderId !== verified.holderId) throw new UnauthorizedError();

  const { memberships } = await holderWithMemberships(deps, current);
  const caller = {
    holderId: current.holderId,
    email: current.email,
    rateLimit: deps.defaultRateLimit,
    memberships: defaultFirst(memberships).map(({ accountId, role }) => ({ accountId, role })),
  };
  return sessionActingOn(caller, undefined, 'live');
}

/**
 * The holder and the accounts they belong to (one consistent read): a first sign-in opens their
 * account first, and a holder from before teams is adopted as the owner of their home account.
 */
async function holderWithMemberships(deps: SessionDependencies, current: IdentityHolder): Promise<{ holder: Holder; memberships: Membership[] }> {
  let found = await deps.holders.withMemberships(current.holderId);
  if (!found) {
    await openHolderAccount(deps, current);
    found = await deps.holders.withMemberships(current.holderId);
  } else if (!found.holder.teamsAt) {
    await deps.holders.adoptLegacy(found.holder, deps.clock().toISOString());
    found = await deps.holders.withMemberships(current.holderId);
  }
  // Written in the same transaction as the holder item: only a concurrent removal can get here.
  if (!found) throw new UnauthorizedError();
  return found;
}

/**
 * Opens a new account for a verified holder (their first sign-in, or an operator's `user
 * create`); of two at once, one creates it and both answer the same holder.
 */
export async function openHolderAccount(
  deps: Pick<SessionDependencies, 'holders' | 'signupCredits' | 'clock'>,
  current: IdentityHolder,
): Promise<Holder> {
  // Only a verified email opens an account (the pool lets no unverified holder sign in; an
  // operator could still make one).
  if (!current.emailVerified) throw new UnauthorizedError('Verify your email address before signing in.');
  const now = deps.clock().toISOString();
  const account = newHolderAccount(newAccountId(), deps.signupCredits, now);
  const holder: Holder = { holderId: current.holderId, accountId: account.accountId, email: current.email, createdAt: now };
  const grant: LedgerEntry | undefined =
    deps.signupCredits > 0
      ? { entryId: newLedgerEntryId(), accountId: account.accountId, kind: 'grant', amount: deps.signupCredits, reason: SIGNUP_REASON, createdAt: now }
      : undefined;
  try {
    await deps.holders.createWithAccount(holder, account, grant);
    return holder;
  } catch (error) {
    if (!(error instanceof HolderExistsError)) throw error;
    // A concurrent first sign-in won: its account is the holder's (written before it failed ours).
    const winner = await deps.holders.get(current.holderId);
    if (!winner) throw error;
    return winner;
  }
}
