import type { Kernel } from '../kernel.js';
import type { ContactRecord, UserRecord } from '../users/repo.js';

/**
 * The records of a new user and their first contact, not yet written: every sign-in method that
 * creates a user (passcodes and links, passwords, OAuth) starts from these, unverified.
 */
export function newUserRecords(
  k: Kernel,
  appId: string,
  contact: { idPrefix: 'email' | 'phone'; address: string },
  status: UserRecord['status'] = 'active',
): { user: UserRecord; contact: ContactRecord } {
  const now = k.now();
  const user: UserRecord = {
    id: k.id('user'),
    app_id: appId,
    name: null,
    status,
    created_at: now,
    updated_at: now,
  };
  return {
    user,
    contact: {
      id: k.id(contact.idPrefix),
      app_id: appId,
      user_id: user.id,
      address: contact.address,
      verified_at: null,
      created_at: now,
    },
  };
}
