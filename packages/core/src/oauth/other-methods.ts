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
  // The user's methods in one read where the storage has one (as GET user reads them).
  const [methods, password, links] = await Promise.all([
    k.storage.users.getWithMethods(appId, userId),
    k.storage.passwords.get(appId, userId),
    k.storage.oauth.listLinks(appId, userId),
  ]);
  if (!methods) return false;
  return (
    methods.emails.length > 0 ||
    methods.phone_numbers.length > 0 ||
    methods.webauthn_credentials.length > 0 ||
    password !== null ||
    links.some((l) => l.id !== exceptLinkId) ||
    // Latchkey holds no key for an external wallet: only wallet sign-in adds one.
    methods.wallets.some((w) => w.key_source === 'external')
  );
}
