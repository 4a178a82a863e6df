import type { Account } from './account';
import { DomainError } from '../shared/errors';

/**
 * An account holder: a person signed in through the identity provider, known by the provider's
 * stable id (Cognito's `sub`). `accountId` is their home account (the one their first sign-in
 * opened, or an operator attached them to); the accounts they act on are their memberships
 * (roles.ts), of which the home account is one.
 */
export interface Holder {
  holderId: string;
  accountId: string;
  email: string;
  createdAt: string;
  /** When the holder's memberships were first written; absent on a holder from before teams (adopted on their next sign-in). */
  teamsAt?: string;
}

/** Who a verified access token speaks for, as the identity provider sees them now. */
export interface IdentityHolder {
  holderId: string;
  email: string;
  emailVerified: boolean;
}

/** The holder already has an account: another request (a concurrent first sign-in) got there first. */
export class HolderExistsError extends DomainError {
  constructor(holderId: string) {
    super(`Holder ${holderId} already has an account.`);
  }
}

/** What a first sign-in opens: the live balance gets the sign-up credits (the test balance opens itself with its 1000). */
export function newHolderAccount(accountId: string, signupCredits: number, now: string): Account {
  return {
    accountId,
    credits: signupCredits,
    paidAccess: false,
    subscriptionStatus: 'none',
    taskCounts: { video: 0, image: 0 },
    createdAt: now,
    updatedAt: now,
  };
}
