import { base64urlnopad } from '@scure/base';
import { utf8 } from '../../crypto/encoding.js';
import { LatchkeyError } from '../../errors.js';
import { type RandomSource, systemRandom } from '../../ports/random.js';
import { hpkeSealBase, type Kem } from './hpke.js';

export type ExportScheme =
  | 'HPKE-Base-DHKEM(P256-HKDF-SHA256)-HKDF-SHA256-AES256GCM'
  | 'HPKE-Base-DHKEM(X25519-HKDF-SHA256)-HKDF-SHA256-AES256GCM';

const schemes: Record<Kem, ExportScheme> = {
  p256: 'HPKE-Base-DHKEM(P256-HKDF-SHA256)-HKDF-SHA256-AES256GCM',
  x25519: 'HPKE-Base-DHKEM(X25519-HKDF-SHA256)-HKDF-SHA256-AES256GCM',
};

/** The HPKE `info` used unless the caller gives another; the recipient must use the same. */
export const EXPORT_HPKE_INFO = 'latchkey/wallet-export/v1';

export interface EncryptedExport {
  scheme: ExportScheme;
  /** HPKE `enc`: the sender's ephemeral public key (65-byte uncompressed P-256 or 32-byte X25519), base64url. */
  encapsulated_key: string;
  /** AES-256-GCM ciphertext followed by its 16-byte tag, base64url. */
  ciphertext: string;
}

export interface EncryptForRecipientOptions {
  /** HPKE `info`; defaults to EXPORT_HPKE_INFO. */
  info?: string;
  /** Associated data authenticated with the ciphertext; defaults to empty. */
  aad?: Uint8Array;
  random?: RandomSource;
}

/**
 * Encrypts `plaintext` (a mnemonic or private key) so only the holder of the recipient's private
 * key can read it: RFC 9180 HPKE base mode. The KEM follows the key: 32 bytes is X25519, 33 or
 * 65 bytes (compressed or uncompressed SEC1) is P-256, as Web Crypto's `exportKey('raw')` gives.
 */
export function encryptForRecipient(
  plaintext: Uint8Array,
  recipientPublicKey: Uint8Array,
  options: EncryptForRecipientOptions = {},
): EncryptedExport {
  const kem: Kem | undefined =
    recipientPublicKey.length === 32
      ? 'x25519'
      : recipientPublicKey.length === 33 || recipientPublicKey.length === 65
        ? 'p256'
        : undefined;
  if (!kem) throw invalidRecipient('The recipient key is a 32-byte X25519 or a 33/65-byte P-256 public key.');
  let sealed: { enc: Uint8Array; ciphertext: Uint8Array };
  try {
    sealed = hpkeSealBase(
      kem,
      recipientPublicKey,
      utf8(options.info ?? EXPORT_HPKE_INFO),
      options.aad ?? new Uint8Array(0),
      plaintext,
      options.random ?? systemRandom,
    );
  } catch (cause) {
    throw invalidRecipient(
      `The recipient key is not a valid ${kem === 'p256' ? 'P-256' : 'X25519'} public key.`,
      cause,
    );
  }
  return {
    scheme: schemes[kem],
    encapsulated_key: base64urlnopad.encode(sealed.enc),
    ciphertext: base64urlnopad.encode(sealed.ciphertext),
  };
}

const invalidRecipient = (message: string, cause?: unknown) =>
  new LatchkeyError('invalid_recipient_key', message, { field: 'recipient_public_key', cause });
