import { createContext, useContext } from 'react';
import type { AccountMembership, MemberRole, VidgenClient } from '#client';
import type { Session } from './auth/session';
import type { ConsoleConfig } from './config';

export type Mode = 'live' | 'test';

export interface ConsoleContext {
  config: ConsoleConfig;
  session: Session;
  /** Live or test: every page reads and writes this mode's data (the API's `Vidgen-Mode`). Kept per account. */
  mode: Mode;
  setMode(mode: Mode): void;
  /**
   * The account every page acts on (the API's `Vidgen-Account`): the one chosen in the header's
   * switcher, else the holder's default (the first of GET /accounts). Undefined until known, or
   * when the holder belongs to no account.
   */
  account: string | undefined;
  /** The holder's accounts with their role in each (GET /accounts, the default first); undefined until read. */
  accounts: readonly AccountMembership[] | undefined;
  /**
   * The holder's role in `account`: undefined while unknown (every page is offered), null when they
   * belong to no account. It only decides what the navigation offers: the API decides what is allowed.
   */
  role: MemberRole | null | undefined;
  /** Acts on another account from now on: a new page, as a mode switch is. */
  setAccount(accountId: string): void;
  /** The project's client, signed in as the holder, on the current account, in the current mode. */
  client(): Promise<VidgenClient>;
  /** The same in a given mode (the overview shows both balances). */
  clientIn(mode: Mode): Promise<VidgenClient>;
}

export const Console = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const value = useContext(Console);
  if (!value) throw new Error('useConsole outside the console');
  return value;
}
