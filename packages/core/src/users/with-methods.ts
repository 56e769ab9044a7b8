import type { Storage } from '../ports/storage.js';
import type { UserWithMethods } from './repo.js';

type Lists = Pick<Storage, 'emails' | 'phoneNumbers' | 'totps' | 'wallets' | 'webauthn'>;

/**
 * `getWithMethods` from the separate list reads, for a store where a read costs no round trip
 * (memory): the same answer a one-query store gives.
 */
export async function userWithMethodsFromLists(
  lists: Lists,
  user: UserWithMethods['user'] | null,
): Promise<UserWithMethods | null> {
  if (!user) return null;
  const [emails, phone_numbers, totp, wallets, webauthn_credentials] = await Promise.all([
    lists.emails.listByUser(user.app_id, user.id),
    lists.phoneNumbers.listByUser(user.app_id, user.id),
    lists.totps.getForUser(user.app_id, user.id),
    lists.wallets.list(user.app_id, { userId: user.id, limit: 1000 }),
    lists.webauthn.listByUser(user.app_id, user.id),
  ]);
  return { user, emails, phone_numbers, totp, wallets: wallets.wallets, webauthn_credentials };
}
