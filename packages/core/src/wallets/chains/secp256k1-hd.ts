import { HDKey } from '@scure/bip32';
import { wipe } from './bytes.js';
import { bip39Seed } from './mnemonic.js';

/** BIP32 secp256k1 private key at `path` from a mnemonic's BIP39 seed. */
export function deriveSecp256k1(mnemonic: string, path: string): Uint8Array {
  const seed = bip39Seed(mnemonic);
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
