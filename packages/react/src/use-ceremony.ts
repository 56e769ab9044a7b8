import { useCallback, useRef, useState } from 'react';

/** Where a ceremony stands: `idle`, one of its own steps, or `error`. */
export interface CeremonyState<S extends string> {
  status: 'idle' | S | 'error';
  /** The last step's failure: a `LatchkeyClientError` for the server's refusals. */
  error: Error | null;
}

const IDLE = { status: 'idle', error: null } as const;

/**
 * The state machine every ceremony hook shares. `run(pending, done, step)` shows `pending`, runs
 * the step and shows `done`, or `error` with the failure. The step's promise never rejects to the
 * caller (an event handler has nobody to catch it): it resolves to the answer, or `undefined` on
 * failure, with the failure in `error`. When steps overlap, the last one started owns the state.
 */
export function useCeremony<S extends string>() {
  const [state, setState] = useState<CeremonyState<S>>(IDLE);
  const latest = useRef(0);
  const run = useCallback(async <T>(pending: S, done: S, step: () => Promise<T>): Promise<T | undefined> => {
    const id = ++latest.current;
    setState({ status: pending, error: null });
    try {
      const answer = await step();
      if (id === latest.current) setState({ status: done, error: null });
      return answer;
    } catch (e) {
      if (id === latest.current)
        setState({ status: 'error', error: e instanceof Error ? e : new Error(String(e)) });
      return undefined;
    }
  }, []);
  const reset = useCallback(() => {
    latest.current++;
    setState(IDLE);
  }, []);
  return { state, run, reset };
}
