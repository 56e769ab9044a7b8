/**
 * Envelope encryption of secret material (wallet seeds, TOTP secrets, JWT signing keys).
 * `context` is bound as associated data: a blob sealed for one App or user does not open for
 * another. Sealed blobs name the key version that sealed them, so a master key can rotate.
 */
export interface KeyVault {
  seal(plaintext: Uint8Array, context: string): Promise<string>;
  /** Throws `LatchkeyError('vault_open_failed')` when the blob, key or context does not match. */
  open(sealed: string, context: string): Promise<Uint8Array>;
}
