import type { EventRecord } from '../events/repo.js';
import type { MagicLinkRecord } from '../magic-links/repo.js';
import type { OtpRecord } from '../otps/repo.js';
import type { ContactRecord, FoundOrCreated, UserRecord } from '../users/repo.js';

/**
 * What a send to a new address (a passcode, a magic link) stores with the contact it creates,
 * when the storage writes both in one step: the optional ContactRepo methods below. Declared in
 * this folder because they join the contacts' repos to the codes' and the links' (folders that
 * do not import each other); the services call them through the contact repos.
 */
export type FirstWrite = { otp: OtpRecord } | { magic_link: MagicLinkRecord };

declare module '../users/repo.js' {
  interface ContactRepo {
    /**
     * Optional: `findOrCreateWithUser` and, only when it creates, `otp` (the new contact's first
     * code, `method_id` the contact's id) stored in the same atomic step, so a send to a new
     * address makes one write. A found contact gets no code here: the caller stores one as
     * `OtpRepo.replace` does. Without it the caller finds or creates, then replaces.
     */
    findOrCreateWithUserAndOtp?(
      user: UserRecord,
      contact: ContactRecord,
      otp: OtpRecord,
    ): Promise<FoundOrCreated>;
    /** Optional: `findOrCreateWithUserAndOtp` and, only when it creates, the events it implies. */
    findOrCreateWithUserOtpAndEvents?(
      user: UserRecord,
      contact: ContactRecord,
      otp: OtpRecord,
      events: EventRecord[],
    ): Promise<FoundOrCreated>;
    /**
     * Optional (emails): `findOrCreateWithUser` and, only when it creates, `link` (the new
     * contact's first link, `email_id` the contact's id) inserted in the same atomic step. A
     * found contact gets no link here: the caller inserts one.
     */
    findOrCreateWithUserAndLink?(
      user: UserRecord,
      contact: ContactRecord,
      link: MagicLinkRecord,
    ): Promise<FoundOrCreated>;
    /** Optional: `findOrCreateWithUserAndLink` and, only when it creates, the events it implies. */
    findOrCreateWithUserLinkAndEvents?(
      user: UserRecord,
      contact: ContactRecord,
      link: MagicLinkRecord,
      events: EventRecord[],
    ): Promise<FoundOrCreated>;
  }
}
