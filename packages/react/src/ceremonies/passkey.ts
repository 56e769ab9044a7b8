import type { LatchkeyClient } from '@latchkey/client';
import { useCallback, useMemo } from 'react';
import { useStepClient } from '../context.js';
import { useCeremony } from '../use-ceremony.js';

export type PasskeyStep = 'registering' | 'registered' | 'signing-in' | 'signed-in';

type RegisterInput = Parameters<LatchkeyClient['passkeys']['register']>[0];
type SignInInput = Parameters<LatchkeyClient['passkeys']['signIn']>[0];

/**
 * Passkeys through the browser's WebAuthn prompt: `register()` adds one to the signed-in user,
 * `signIn()` signs in with any passkey of this domain. A dismissed prompt is an `error` too.
 */
export function usePasskey() {
  const client = useStepClient('usePasskey');
  const { state, run, reset } = useCeremony<PasskeyStep>();
  const register = useCallback(
    (input?: RegisterInput) => run('registering', 'registered', () => client().passkeys.register(input)),
    [client, run],
  );
  const signIn = useCallback(
    (input?: SignInInput) => run('signing-in', 'signed-in', () => client().passkeys.signIn(input)),
    [client, run],
  );
  return useMemo(() => ({ ...state, register, signIn, reset }), [state, register, signIn, reset]);
}
