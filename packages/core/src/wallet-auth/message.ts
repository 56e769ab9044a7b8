import type { SignInWalletType } from './repo.js';

/** What a sign-in message says, whichever the chain. */
export interface SignInMessageFields {
  /** host[:port] of the site asking; wallets warn when it is not the page's own. */
  domain: string;
  address: string;
  /** One line of text; omitted when empty. */
  statement: string;
  uri: string;
  /** EIP-155 chain id for ethereum (1 is mainnet); `mainnet`, `devnet` or `testnet` for solana. */
  chainId: number | string;
  nonce: string;
  issuedAt: number;
  expiresAt: number;
}

/** RFC 3339 in UTC, whole seconds: what EIP-4361 asks for its time fields. */
export const rfc3339 = (unixSeconds: number): string =>
  new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The EIP-4361 (Sign-In with Ethereum) message. The statement block keeps its blank lines even
 * when empty, as the EIP's grammar has it.
 */
export function ethereumSignInMessage(f: SignInMessageFields): string {
  return [
    `${f.domain} wants you to sign in with your Ethereum account:`,
    f.address,
    '',
    ...(f.statement ? [f.statement] : []),
    '',
    `URI: ${f.uri}`,
    'Version: 1',
    `Chain ID: ${f.chainId}`,
    `Nonce: ${f.nonce}`,
    `Issued At: ${rfc3339(f.issuedAt)}`,
    `Expiration Time: ${rfc3339(f.expiresAt)}`,
  ].join('\n');
}

/**
 * The Sign In With Solana message (the Solana wallet-standard `signIn` feature's text, which
 * Phantom and Solflare show as a sign-in request): EIP-4361's shape for a Solana account, with no
 * blank statement block when the statement is empty.
 */
export function solanaSignInMessage(f: SignInMessageFields): string {
  return [
    `${f.domain} wants you to sign in with your Solana account:`,
    f.address,
    ...(f.statement ? ['', f.statement] : []),
    '',
    `URI: ${f.uri}`,
    'Version: 1',
    `Chain ID: ${f.chainId}`,
    `Nonce: ${f.nonce}`,
    `Issued At: ${rfc3339(f.issuedAt)}`,
    `Expiration Time: ${rfc3339(f.expiresAt)}`,
  ].join('\n');
}

export const signInMessage = (walletType: SignInWalletType, fields: SignInMessageFields): string =>
  walletType === 'ethereum' ? ethereumSignInMessage(fields) : solanaSignInMessage(fields);
