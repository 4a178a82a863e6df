import { useMutation, type QueryState, type UseMutationOptions, type UseMutationResult } from '@tanstack/react-query';
import { useRef } from 'react';

/**
 * How long the console keeps what it read before reading it again when a page shows it (the
 * QueryClient's default `staleTime`): a person going briskly from page to page reads the account,
 * the billing and the ledger's pages once, not once per page. Anything this console changes is
 * invalidated at once by the action that changed it; changes made elsewhere (an API key's runs,
 * another tab) show within this long, or at once after a reload.
 */
export const FRESH_MS = 30_000;

/** The longest a poll waits between reads after failures. */
const MAX_POLL_MS = 60_000;
/** The longest a poll waits between reads of something still busy. */
export const SLOWEST_POLL_MS = 10_000;

/**
 * How long a poll waits before its next read. While reads succeed: `everyMs` at first, then a
 * quarter of the time the thing has been busy (`busyFor`), at most 10 s: a task that takes
 * seconds is followed closely, one that takes minutes (or a delivery retried for hours) costs
 * about 13 reads its first minute and 6 a minute after, against the holder's 60. After a failed
 * read (a 429 above all), as long as reads have been failing, at most a minute, so the waits double
 * while they fail instead of spending the rate limit on more refusals.
 */
export function pollDelay(state: { dataUpdatedAt: number; errorUpdatedAt: number }, everyMs: number, now = Date.now(), busyFor = 0): number {
  if (state.errorUpdatedAt > state.dataUpdatedAt) return Math.min(Math.max(everyMs, now - state.dataUpdatedAt), MAX_POLL_MS);
  return Math.max(everyMs, Math.min(busyFor / 4, SLOWEST_POLL_MS));
}

/** When each polled query was first seen busy (forgotten when it is not). */
const busySince = new WeakMap<object, number>();

/**
 * A query's `refetchInterval`: read again while `busy(data)`, less often the longer it stays busy
 * (pollDelay). TanStack Query already skips the reads while the tab is hidden (the default
 * refetchIntervalInBackground: false), and no query reads again on window focus.
 */
export function pollWhile<T>(busy: (data: T | undefined) => boolean, everyMs: number) {
  return (query: { state: Pick<QueryState<T>, 'data' | 'dataUpdatedAt' | 'errorUpdatedAt'> }): number | false => {
    if (!busy(query.state.data)) {
      busySince.delete(query);
      return false;
    }
    const now = Date.now();
    const since = busySince.get(query) ?? now;
    busySince.set(query, since);
    return pollDelay(query.state, everyMs, now, now - since);
  };
}

export type Action<TData, TVariables> = UseMutationResult<TData, Error, TVariables> & {
  /** Starts the action, unless a run of it is still in flight. */
  run: (variables: TVariables) => void;
};

/**
 * useMutation for a button: `run` does nothing while a run is in flight. `isPending` alone lets a
 * double-click through: TanStack Query tells React of the pending state on a later tick, after
 * the second click has already started the action again. `reset` forgets the run on screen and
 * lets the next one start (the playground's kind switch); the run it forgot still ends.
 */
export function useAction<TData, TVariables = void>(options: UseMutationOptions<TData, Error, TVariables>): Action<TData, TVariables> {
  const mutation = useMutation(options);
  const inFlight = useRef<object | undefined>(undefined);
  const run = (variables: TVariables) => {
    if (inFlight.current) return;
    const thisRun = {};
    inFlight.current = thisRun;
    // The mutation's own promise: mutate()'s onSettled never comes once `reset` has detached the run.
    mutation
      .mutateAsync(variables)
      .catch(() => undefined)
      .finally(() => {
        if (inFlight.current === thisRun) inFlight.current = undefined;
      });
  };
  const reset = () => {
    inFlight.current = undefined;
    mutation.reset();
  };
  return { ...mutation, run, reset };
}
