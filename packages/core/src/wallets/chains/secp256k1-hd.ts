import { HDKey } from '@scure/bip32';
import { wipe } from './bytes.js';
import { bip39Seed, bip39SeedAsync } from './mnemonic.js';

/** BIP32 secp256k1 private key at `path` from a mnemonic's BIP39 seed. */
export const deriveSecp256k1 = (mnemonic: string, path: string): Uint8Array =>
  secp256k1FromSeed(bip39Seed(mnemonic), path);

/** `deriveSecp256k1` with the seed stretch on the platform's native PBKDF2. */
export const deriveSecp256k1Async = async (mnemonic: string, path: string): Promise<Uint8Array> =>
  secp256k1FromSeed(await bip39SeedAsync(mnemonic), path);

/** BIP32 down `path` from a BIP39 seed, which is wiped. */
function secp256k1FromSeed(seed: Uint8Array, path: string): Uint8Array {
  const root = HDKey.fromMasterSeed(seed);
  const child = root.derive(path);
  try {
    return child.privateKey!.slice();
  } finally {
    wipe(seed);
    root.wipePrivateData();
    child.wipePrivateData();
  }
}
