import type { Kernel } from '../kernel.js';

/**
 * Whether the user could still sign in without the link `exceptLinkId`: an email or phone number
 * (a passcode or link reaches it), a passkey, a password, a wallet they sign in with, or another
 * linked provider account. TOTP is a second factor, never a way in on its own.
 */
export async function hasOtherSignInMethod(
  k: Kernel,
  appId: string,
  userId: string,
  exceptLinkId: string,
): Promise<boolean> {
  const [emails, phones, passkeys, password, links, wallets] = await Promise.all([
    k.storage.emails.listByUser(appId, userId),
    k.storage.phoneNumbers.listByUser(appId, userId),
    k.storage.webauthn.listByUser(appId, userId),
    k.storage.passwords.get(appId, userId),
    k.storage.oauth.listLinks(appId, userId),
    k.storage.wallets.list(appId, { userId, limit: 1000 }),
  ]);
  return (
    emails.length > 0 ||
    phones.length > 0 ||
    passkeys.length > 0 ||
    password !== null ||
    links.some((l) => l.id !== exceptLinkId) ||
    // Latchkey holds no key for an external wallet: only wallet sign-in adds one.
    wallets.wallets.some((w) => w.key_source === 'external')
  );
}
