import { createLatchkeyClient, type LatchkeyClient, type LatchkeyClientOptions } from '@latchkey/client';
import { createContext, createElement, type ReactNode, useCallback, useContext, useState } from 'react';
import { type SessionSource, serverSessionSource, sessionSource } from './session-source.js';

interface LatchkeyContextValue {
  /** Null while rendering on the server when the provider was given options: no client is made there. */
  client: LatchkeyClient | null;
  session: SessionSource;
}

const LatchkeyContext = createContext<LatchkeyContextValue | null>(null);

export type LatchkeyProviderProps = {
  children?: ReactNode;
  /**
   * Whether the provider asks the server once, on mount, whether the session is live
   * (`session.refresh()`); default true. Off, a held session is taken as it is and nothing held
   * is `signed-out` at once.
   */
  checkSession?: boolean;
} & (
  | { /** A client made by `createLatchkeyClient`. */ client: LatchkeyClient; options?: never }
  | {
      /** Options for a client the provider makes, once, in the browser. */
      options: LatchkeyClientOptions & { totpPath?: string };
      client?: never;
    }
);

/**
 * Makes the Latchkey client and its session available to the hooks below it. Given options, it
 * makes the client in the browser only (none during server rendering, where the hooks report
 * `loading`); a client made so lives as long as the page.
 */
export function LatchkeyProvider(props: LatchkeyProviderProps) {
  const [value] = useState<LatchkeyContextValue>(() => {
    const client =
      props.client ?? (typeof window === 'undefined' ? null : createLatchkeyClient(props.options));
    if (!client || typeof window === 'undefined') return { client, session: serverSessionSource };
    return { client, session: sessionSource(client, { check: props.checkSession ?? true }) };
  });
  return createElement(LatchkeyContext.Provider, { value }, props.children);
}

function useLatchkeyContext(hook: string): LatchkeyContextValue {
  const value = useContext(LatchkeyContext);
  if (!value) throw new Error(`${hook} needs a <LatchkeyProvider> above it.`);
  return value;
}

/** The session store of the nearest provider. */
export const useSessionSource = (hook: string) => useLatchkeyContext(hook).session;

/**
 * The client of the nearest provider, for what the hooks do not cover (`client.call(…)`). Throws
 * when called during server rendering of a provider given options, where there is no client.
 */
export function useLatchkeyClient(): LatchkeyClient {
  const { client } = useLatchkeyContext('useLatchkeyClient');
  if (!client)
    throw new Error('The Latchkey client exists in the browser only: call it from an event or an effect.');
  return client;
}

/** The client, or null during server rendering: for hooks whose functions only run in the browser. */
export const useOptionalClient = (hook: string): LatchkeyClient | null => useLatchkeyContext(hook).client;

/**
 * For the ceremony hooks, which render on the server too: the client, asked for when a step runs
 * (always in the browser, from an event or an effect).
 */
export function useStepClient(hook: string): () => LatchkeyClient {
  const client = useOptionalClient(hook);
  return useCallback(() => {
    if (!client) throw new Error(`${hook}: the Latchkey client exists in the browser only.`);
    return client;
  }, [client, hook]);
}
