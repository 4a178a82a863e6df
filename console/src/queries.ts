import { useMutation, type QueryState, type UseMutationOptions, type UseMutationResult } from '@tanstack/react-query';
import { useRef } from 'react';

/** The longest a poll waits between reads after failures. */
const MAX_POLL_MS = 60_000;

/**
 * How long a poll waits before its next read: `everyMs`; after a failed read (a 429 above all),
 * as long as reads have been failing, at most a minute, so the waits double while they fail
 * instead of spending the holder's rate limit (60 requests a minute) on more refusals.
 */
export function pollDelay(state: { dataUpdatedAt: number; errorUpdatedAt: number }, everyMs: number, now = Date.now()): number {
  if (state.errorUpdatedAt <= state.dataUpdatedAt) return everyMs;
  return Math.min(Math.max(everyMs, now - state.dataUpdatedAt), MAX_POLL_MS);
}

/** A query's `refetchInterval`: read again every `everyMs` while `busy(data)`, backing off after failures. */
export function pollWhile<T>(busy: (data: T | undefined) => boolean, everyMs: number) {
  return (query: { state: Pick<QueryState<T>, 'data' | 'dataUpdatedAt' | 'errorUpdatedAt'> }): number | false =>
    busy(query.state.data) ? pollDelay(query.state, everyMs) : false;
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
