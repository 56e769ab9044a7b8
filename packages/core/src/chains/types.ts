export type WalletType = 'ethereum' | 'solana' | 'bitcoin' | 'DOT' | 'XLM';

/**
 * The same types as a list, for schemas. Kept here, below every capability, so that wallets and
 * wallet-policies both read it and neither imports the other for it.
 */
export const WALLET_TYPES = [
  'ethereum',
  'solana',
  'bitcoin',
  'DOT',
  'XLM',
] as const satisfies readonly WalletType[];
// The list names every type: one left out of it fails to compile here.
type Unlisted = Exclude<WalletType, (typeof WALLET_TYPES)[number]>;
const _everyTypeListed: [Unlisted] extends [never] ? true : Unlisted = true;

/** Only bitcoin addresses and keys differ between networks; the other chains ignore it. */
export type Network = 'mainnet' | 'testnet';

export interface ChainOptions {
  network?: Network;
}

/** A wallet's key pair. Callers `wipe(key.privateKey)` once they are done with it. */
export interface DerivedKey {
  /**
   * The secret in the chain's raw form: the 32-byte secp256k1 scalar (ethereum, bitcoin), the
   * 32-byte ed25519 seed (solana, XLM), the 32-byte sr25519 mini-secret (DOT from a mnemonic) or
   * the 64-byte sr25519 secret key (DOT imported that way).
   */
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  address: string;
  /** The derivation path from the mnemonic, `''` for DOT's root key pair, null for an imported key. */
  path: string | null;
}

export interface ChainModule {
  readonly walletType: WalletType;
  readonly curve: 'secp256k1' | 'ed25519' | 'sr25519';
  /** The path `deriveFromMnemonic` uses. */
  derivationPath(options?: ChainOptions): string;
  /** The account key a wallet app opens from this BIP39 English mnemonic (no passphrase). */
  deriveFromMnemonic(mnemonic: string, options?: ChainOptions): DerivedKey;
  /** The same key, with the seed stretch on the platform's native PBKDF2 (Web Crypto) where it has one. */
  deriveFromMnemonicAsync(mnemonic: string, options?: ChainOptions): Promise<DerivedKey>;
  /** A key in the chain's usual export encoding (see docs/wallets.md, "Import formats"). */
  fromPrivateKey(encoded: string, options?: ChainOptions): DerivedKey;
  /** The inverse of `fromPrivateKey`: what a wallet app's "import private key" accepts. */
  encodePrivateKey(privateKey: Uint8Array, options?: ChainOptions): string;
  /**
   * The raw secret of a key in `encodePrivateKey`'s form, without deriving its public key: for
   * signing with a key the vault has authenticated (for solana, the 64-byte seed ‖ public key).
   */
  decodeSecret(encoded: string, options?: ChainOptions): Uint8Array;
  address(publicKey: Uint8Array, options?: ChainOptions): string;
  isValidAddress(address: string, options?: ChainOptions): boolean;
}
