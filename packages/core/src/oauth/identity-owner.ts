import { normalizeEmail } from '../contacts/contact-address.js';
import { newUserRecords } from '../contacts/new-user-records.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { Storage } from '../ports/storage.js';
import type { ProviderIdentity } from './providers.js';
import type { OAuthLinkRecord } from './repo.js';

interface Rules {
  /** The signed-in user who started the flow to link this provider, or null. */
  linkUserId: string | null;
  linkByVerifiedEmail: boolean;
}

/** A transaction undone because another request linked the identity first. */
class LostLinkRace extends Error {
  constructor(readonly winner: OAuthLinkRecord) {
    super('lost the link race');
  }
}

const addressOf = (raw: string | null): string | null => {
  if (raw === null) return null;
  try {
    return normalizeEmail(raw);
  } catch {
    // An address Latchkey cannot send to is kept on the link, never made a contact.
    return null;
  }
};

/**
 * Whose the provider identity is, by docs/oauth.md's rules: the user it is linked to (by issuer
 * and subject, never by email); else the signed-in user who asked to link it; else, when the App
 * allows it for the provider and the provider says the email is verified, the user whose email
 * Latchkey has verified; else a new user. A provider's unverified email never links and never
 * marks an address verified.
 */
export async function resolveIdentity(
  k: Kernel,
  appId: string,
  providerId: string,
  identity: ProviderIdentity,
  rules: Rules,
): Promise<{ link: OAuthLinkRecord; userCreated: boolean }> {
  const now = k.now();
  const existing = await k.storage.oauth.findLink(appId, identity.issuer, identity.subject);
  if (existing) {
    if (rules.linkUserId !== null && existing.user_id !== rules.linkUserId)
      throw new LatchkeyError('oauth_identity_linked_elsewhere');
    const changed = existing.email !== identity.email || existing.email_verified !== identity.email_verified;
    const link = changed
      ? await k.storage.oauth.updateLink(appId, existing.id, {
          email: identity.email,
          email_verified: identity.email_verified,
          updated_at: now,
        })
      : existing;
    return { link: link ?? existing, userCreated: false };
  }

  const newLink = (userId: string): OAuthLinkRecord => ({
    id: k.id('oauthlink'),
    app_id: appId,
    user_id: userId,
    provider_id: providerId,
    issuer: identity.issuer,
    subject: identity.subject,
    email: identity.email,
    email_verified: identity.email_verified,
    provider_tokens_sealed: null,
    created_at: now,
    updated_at: now,
  });
  const linkTo = async (userId: string) => {
    const { inserted, link } = await k.storage.oauth.insertLink(newLink(userId));
    if (!inserted && link.user_id !== userId) throw new LatchkeyError('oauth_identity_linked_elsewhere');
    return { link, userCreated: false };
  };

  if (rules.linkUserId !== null) return linkTo(rules.linkUserId);
  const address = addressOf(identity.email);
  if (address !== null && identity.email_verified && rules.linkByVerifiedEmail) {
    // Only an address Latchkey has seen proved: an unproved one may be an attacker's placeholder.
    const contact = await k.storage.emails.findByAddress(appId, address);
    if (contact && contact.verified_at !== null) return linkTo(contact.user_id);
  }
  try {
    return await k.storage.transaction((tx) => createUser(tx, k, appId, address, identity, newLink));
  } catch (error) {
    if (error instanceof LostLinkRace) return { link: error.winner, userCreated: false };
    throw error;
  }
}

/**
 * A new user with the link and, when no other user has it, the email (verified only when the
 * provider says so). Undone when a concurrent callback linked the identity first.
 */
async function createUser(
  tx: Storage,
  k: Kernel,
  appId: string,
  address: string | null,
  identity: ProviderIdentity,
  newLink: (userId: string) => OAuthLinkRecord,
): Promise<{ link: OAuthLinkRecord; userCreated: boolean }> {
  // Without an address, the contact record is built and never written.
  const { user, contact } = newUserRecords(k, appId, { idPrefix: 'email', address: address ?? '' });
  await tx.users.insert(user);
  if (address !== null) {
    const { inserted } = await tx.emails.insert(contact);
    if (inserted && identity.email_verified)
      await tx.emails.markVerified(appId, contact.id, contact.created_at);
  }
  const { inserted, link } = await tx.oauth.insertLink(newLink(user.id));
  if (!inserted) throw new LostLinkRace(link);
  return { link, userCreated: true };
}
