import type { EventRecord } from '../events/repo.js';
import type { TotpRecord } from '../totps/repo.js';
import type { WalletRecord } from '../wallets/repo.js';
import type { WebAuthnCredentialRecord } from '../webauthn/repo.js';

export interface UserName {
  first_name?: string | undefined;
  middle_name?: string | undefined;
  last_name?: string | undefined;
}

export type UserStatus = 'active' | 'pending';

export interface UserRecord {
  id: string;
  app_id: string;
  name: UserName | null;
  status: UserStatus;
  created_at: number;
  updated_at: number;
}

/** A user with everything its profile lists: what `GET /v1/auth/users/{id}` shows. */
export interface UserWithMethods {
  user: UserRecord;
  /** Oldest first. */
  emails: ContactRecord[];
  /** Oldest first. */
  phone_numbers: ContactRecord[];
  /** The active TOTP, else the newest pending one. */
  totp: TotpRecord | null;
  /** By id, at most 1,000. */
  wallets: WalletRecord[];
  /** Oldest first. */
  webauthn_credentials: WebAuthnCredentialRecord[];
}

export interface UserRepo {
  insert(user: UserRecord): Promise<void>;
  /** Optional: `insert` and the events it implies in one atomic step (as SessionRepo's). */
  insertWithEvents?(user: UserRecord, events: EventRecord[]): Promise<void>;
  get(appId: string, userId: string): Promise<UserRecord | null>;
  /**
   * The user and its lists together, or null when the App has no such user. One round trip
   * where the store allows: this is read on every profile request.
   */
  getWithMethods(appId: string, userId: string): Promise<UserWithMethods | null>;
  update(
    appId: string,
    userId: string,
    patch: Partial<Pick<UserRecord, 'name' | 'status' | 'updated_at'>>,
  ): Promise<UserRecord | null>;
}

/** An email address or a phone number of a user: a login method that receives messages. */
export interface ContactRecord {
  id: string;
  app_id: string;
  user_id: string;
  /** The normalised email address, or the E.164 phone number. */
  address: string;
  verified_at: number | null;
  created_at: number;
}

/** What `ContactRepo.findOrCreateWithUser` answers. */
export interface FoundOrCreated {
  contact: ContactRecord | null;
  user_created: boolean;
  /**
   * Optional: the status of the contact's user as the same step saw it (null when it found no
   * user), so a caller that chooses by it (a magic link's login or signup) reads nothing more.
   * A repo that leaves it out makes such a caller read the user.
   */
  user_status?: UserStatus | null;
}

/** Emails and phone numbers share one shape; each has its own store and its own uniqueness. */
export interface ContactRepo {
  /**
   * Inserts unless the App already has this address; never throws for that case. Atomic: of
   * concurrent inserts of one address in one App, exactly one gets `inserted: true`.
   */
  insert(contact: ContactRecord): Promise<{ inserted: boolean }>;
  /** Optional: `insert` and, only when it inserted, the events it implies, in one atomic step. */
  insertWithEvents?(contact: ContactRecord, events: EventRecord[]): Promise<{ inserted: boolean }>;
  /**
   * Optional: the contact with `contact.address`, else `contact` and its `user` inserted
   * together (`user_created: true`), atomically: of concurrent calls for one new address exactly
   * one creates, and a call that loses creates no user. `contact: null` when it lost to a creator
   * its read could not yet see: the caller reads the address again.
   */
  findOrCreateWithUser?(user: UserRecord, contact: ContactRecord): Promise<FoundOrCreated>;
  /** Optional: `findOrCreateWithUser` and, only when it created, the events it implies, in one atomic step. */
  findOrCreateWithUserAndEvents?(
    user: UserRecord,
    contact: ContactRecord,
    events: EventRecord[],
  ): Promise<FoundOrCreated>;
  get(appId: string, id: string): Promise<ContactRecord | null>;
  findByAddress(appId: string, address: string): Promise<ContactRecord | null>;
  listByUser(appId: string, userId: string): Promise<ContactRecord[]>;
  markVerified(appId: string, id: string, at: number): Promise<ContactRecord | null>;
  /**
   * Optional: `markVerified` and, only when it matched a contact, `events` in one atomic step,
   * each with its `data` (given empty) built from the updated contact as the contact's
   * `….verified` event's is: `user_id`, the contact's id and its address.
   */
  markVerifiedWithEvents?(
    appId: string,
    id: string,
    at: number,
    events: EventRecord[],
  ): Promise<ContactRecord | null>;
  /** Deletes and returns the record, or null when there was none. */
  delete(appId: string, id: string): Promise<ContactRecord | null>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    users: UserRepo;
    emails: ContactRepo;
    phoneNumbers: ContactRepo;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    user: true;
    email: true;
    phone: true;
  }
}
