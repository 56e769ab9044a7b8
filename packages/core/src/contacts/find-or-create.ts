import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { ContactRecord, FoundOrCreated, UserRecord, UserStatus } from '../users/repo.js';
import { type Channel, contactRepo } from './channels.js';
import { newUserRecords } from './new-user-records.js';

/** A one-step find-or-create of a new user and contact, as ContactRepo.findOrCreateWithUser. */
export type FindOrCreateStep = (user: UserRecord, contact: ContactRecord) => Promise<FoundOrCreated>;

/**
 * The contact with this address and its user, both created when the App has no such address.
 * Safe under concurrent calls: of racing creators one wins and the rest get its contact.
 * `absent`: the caller has just read that the App has no such address, so it is not read again
 * (a concurrent creator still makes this call answer with the winner's contact).
 * `user_status`: the contact's user's status when the repo's one step saw it (the created user's
 * own when it created); absent when the caller must read the user to know it.
 * `together`: a one-step find-or-create that also writes what the caller sends a new contact
 * (its first code or link), used in place of the repo's own; `user_created` then says that was
 * written.
 */
export async function findOrCreateByContact(
  k: Kernel,
  appId: string,
  channel: Channel,
  address: string,
  options: {
    pending: boolean;
    absent?: boolean;
    together?: FindOrCreateStep | undefined;
  },
): Promise<{ contact: ContactRecord; user_created: boolean; user_status?: UserStatus | null }> {
  const repo = contactRepo(k.storage, channel);
  // A repo that finds or creates in one step reads the address itself: no lookup first.
  const oneStep = options.together ?? repo.findOrCreateWithUser?.bind(repo);
  const existing = options.absent || oneStep ? null : await repo.findByAddress(appId, address);
  if (existing) return { contact: existing, user_created: false };
  const { user, contact } = newUserRecords(
    k,
    appId,
    { idPrefix: channel.idPrefix, address },
    options.pending ? 'pending' : 'active',
  );
  const found = oneStep ? await oneStep(user, contact) : await inTransaction(k, channel, user, contact);
  if (found.user_created) return { contact, user_created: true, user_status: user.status };
  if (found.contact)
    return {
      contact: found.contact,
      user_created: false,
      ...(found.user_status !== undefined ? { user_status: found.user_status } : {}),
    };
  // Lost to a concurrent creator that this call could not see yet: its contact, now committed.
  const winner = await repo.findByAddress(appId, address);
  if (!winner) throw new LatchkeyError(channel.notFound);
  return { contact: winner, user_created: false };
}

/** The portable path: the user and the contact in one transaction, undone when the address is taken. */
async function inTransaction(
  k: Kernel,
  channel: Channel,
  user: UserRecord,
  contact: ContactRecord,
): Promise<FoundOrCreated> {
  return k.storage
    .transaction(async (tx) => {
      await tx.users.insert(user);
      if ((await contactRepo(tx, channel).insert(contact)).inserted) return { contact, user_created: true };
      throw new LatchkeyError(channel.duplicate); // a concurrent call created it: undo our user
    })
    .catch((err) => {
      if (err instanceof LatchkeyError && err.errorType === channel.duplicate) {
        return { contact: null, user_created: false };
      }
      throw err;
    });
}
