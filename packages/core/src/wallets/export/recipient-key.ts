import { LatchkeyError } from '../../errors.js';

/** The export's recipient public key, as hex (0x or not) or base64url: 32, 33 or 65 bytes. */
export function decodeRecipientKey(text: string): Uint8Array {
  const hex = text.startsWith('0x') ? text.slice(2) : text;
  const bytes =
    /^[0-9a-fA-F]+$/.test(hex) && hex.length % 2 === 0
      ? Uint8Array.from(hex.match(/../g)!, (b) => parseInt(b, 16))
      : base64url(text);
  if (!bytes || ![32, 33, 65].includes(bytes.length))
    throw new LatchkeyError('invalid_recipient_key', undefined, { field: 'recipient_public_key' });
  return bytes;
}

function base64url(text: string): Uint8Array | undefined {
  // One character past a multiple of four is not base64 at all (atob throws on it).
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(text) || text.replace(/=+$/, '').length % 4 === 1) return undefined;
  return Uint8Array.from(
    atob(
      text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '') +
        '='.repeat((4 - (text.replace(/=+$/, '').length % 4)) % 4),
    ),
    (c) => c.charCodeAt(0),
  );
}
