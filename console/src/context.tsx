import { createContext, useContext } from 'react';
import type { VidgenClient } from '#client';
import type { Session } from './auth/session';
import type { ConsoleConfig } from './config';

export type Mode = 'live' | 'test';

export interface ConsoleContext {
  config: ConsoleConfig;
  session: Session;
  /** Live or test: every page reads and writes this mode's data (the API's `Vidgen-Mode`). */
  mode: Mode;
  setMode(mode: Mode): void;
  /** The project's client, signed in as the holder, in the current mode. */
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
