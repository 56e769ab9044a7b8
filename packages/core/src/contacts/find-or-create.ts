import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { ContactRecord, UserRecord } from '../users/repo.js';
import { type Channel, contactRepo } from './channels.js';

/**
 * The contact with this address and its user, both created when the App has no such address.
 * Safe under concurrent calls: of racing creators one wins and the rest get its contact.
 * `absent`: the caller has just read that the App has no such address, so it is not read again
 * (a concurrent creator still makes this call answer with the winner's contact).
 */
export async function findOrCreateByContact(
  k: Kernel,
  appId: string,
  channel: Channel,
  address: string,
  options: { pending: boolean; absent?: boolean },
): Promise<{ contact: ContactRecord; user_created: boolean }> {
  const repo = contactRepo(k.storage, channel);
  const existing = options.absent ? null : await repo.findByAddress(appId, address);
  if (existing) return { contact: existing, user_created: false };
  const now = k.now();
  const user: UserRecord = {
    id: k.id('user'),
    app_id: appId,
    name: null,
    status: options.pending ? 'pending' : 'active',
    created_at: now,
    updated_at: now,
  };
  const contact: ContactRecord = {
    id: k.id(channel.idPrefix),
    app_id: appId,
    user_id: user.id,
    address,
    verified_at: null,
    created_at: now,
  };
  const created = await k.storage
    .transaction(async (tx) => {
      await tx.users.insert(user);
      if ((await contactRepo(tx, channel).insert(contact)).inserted) return true;
      throw new LatchkeyError(channel.duplicate); // a concurrent call created it: undo our user
    })
    .catch((err) => {
      if (err instanceof LatchkeyError && err.errorType === channel.duplicate) return false;
      throw err;
    });
  if (created) return { contact, user_created: true };
  const winner = await repo.findByAddress(appId, address);
  if (!winner) throw new LatchkeyError(channel.notFound);
  return { contact: winner, user_created: false };
}
