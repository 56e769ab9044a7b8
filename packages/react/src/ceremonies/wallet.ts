import type { Eip1193Provider, SolanaMessageSigner } from '@latchkey/client';
import { useCallback, useMemo } from 'react';
import { useStepClient } from '../context.js';
import { useCeremony } from '../use-ceremony.js';

export type WalletStep = 'signing-in' | 'signed-in';

/**
 * Sign-in with a wallet: the server's challenge, signed in the wallet, verified. Ethereum takes an
 * EIP-1193 provider (`window.ethereum`), Solana a wallet with `publicKey` and `signMessage`.
 */
export function useWalletSignIn() {
  const client = useStepClient('useWalletSignIn');
  const { state, run, reset } = useCeremony<WalletStep>();
  const signInWithEthereum = useCallback(
    (provider: Eip1193Provider, input?: { address?: string }) =>
      run('signing-in', 'signed-in', () => client().wallets.ethereum.signIn(provider, input)),
    [client, run],
  );
  const signInWithSolana = useCallback(
    (wallet: SolanaMessageSigner) =>
      run('signing-in', 'signed-in', () => client().wallets.solana.signIn(wallet)),
    [client, run],
  );
  return useMemo(
    () => ({ ...state, signInWithEthereum, signInWithSolana, reset }),
    [state, signInWithEthereum, signInWithSolana, reset],
  );
}
