import type { TokenFacts } from '../chains/evm-token-calls.js';

/**
 * The wallet a signing call is for: wallets/repo.ts makes it its `WalletRecord` by augmentation,
 * so shared/ names no capability.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by wallets/repo.ts
export interface SigningWallet {}

/**
 * What a signing call asks for, reduced to facts a policy can judge before any key is opened.
 * Built by the signing code from the parsed payload; never holds the payload itself, only its digest.
 */
export type SigningRequest = {
  app_id: string;
  wallet: SigningWallet;
  chain: SigningWallet['wallet_type'];
  method: 'sign_message' | 'sign_typed_data' | 'sign_transaction';
  /** Hex SHA-256 of the payload as received (the audit trail keeps this, not the payload). */
  payload_digest: string;
  /** Which key asked: the App's secret key, or a user's session through the public token. */
  key_kind: 'secret' | 'public';
  /** EVM transactions and typed data: what a policy on recipients, methods and value reads. */
  evm?: { chain_id: bigint; to?: string; value: bigint; selector?: string; tokens?: TokenFacts };
  /** Solana transactions: the programs invoked and the lamports moved out of this wallet. */
  solana?: { programs: string[]; lamports: bigint };
  /** Bitcoin PSBTs: the outputs paid (address when standard, value in satoshis). */
  bitcoin?: { outputs: { address?: string; value: bigint }[] };
};

/**
 * Runs `sign` only if the App's policies allow `request`, and records the decision. The wallet
 * policies capability provides the real one; without it every request is signed.
 */
export type SignUnder = <T>(request: SigningRequest, sign: () => Promise<T>) => Promise<T>;

export const signWithoutPolicies: SignUnder = (_request, sign) => sign();
