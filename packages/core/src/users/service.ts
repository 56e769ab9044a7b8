import { type Channel, contactRepo } from '../contacts/channels.js';
import { normalizeEmail, normalizePhoneNumber } from '../contacts/contact-address.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import { webauthnCredentialView } from '../shared/credential-view.js';
import type { ContactRecord, UserRecord, UserWithMethods } from './repo.js';
import type { CreateUserRequest, CreateUserResponse, OAuthLinkView, User } from './schema.js';

/** The fields of a linked provider account (oauth/repo.ts's record) the user's view shows. */
interface LinkFields {
  id: string;
  provider_id: string;
  issuer: string;
  subject: string;
  email: string | null;
  email_verified: boolean;
  created_at: number;
}

/** A linked provider account as the user's view lists it. */
export const oauthLinkView = (l: LinkFields): OAuthLinkView => ({
  link_id: l.id,
  provider_id: l.provider_id,
  issuer: l.issuer,
  subject: l.subject,
  email: l.email,
  email_verified: l.email_verified,
  created_at: l.created_at,
});

export type UserService = ReturnType<typeof userService>;

export function userService(k: Kernel) {
  function view(
    {
      user,
      emails,
      phone_numbers: phones,
      totp,
      wallets,
      webauthn_credentials: credentials,
    }: UserWithMethods,
    links: LinkFields[] = [],
  ): User {
    return {
      user_id: user.id,
      name: {
        first_name: user.name?.first_name ?? '',
        middle_name: user.name?.middle_name ?? '',
        last_name: user.name?.last_name ?? '',
      },
      status: user.status,
      emails: emails.map((e) => ({ email_id: e.id, email: e.address, verified: e.verified_at !== null })),
      phone_numbers: phones.map((p) => ({
        phone_number_id: p.id,
        phone_number: p.address,
        verified: p.verified_at !== null,
      })),
      webauthn_credentials: credentials.map(webauthnCredentialView),
      totps: totp ? [{ totp_id: totp.id, verified: totp.status === 'active' }] : [],
      wallets: wallets.map((w) => ({
        wallet_id: w.id,
        wallet_type: w.wallet_type,
        public_address: w.public_address,
        is_default: w.is_default,
      })),
      oauth_links: links.map(oauthLinkView),
      created_at: user.created_at,
      updated_at: user.updated_at,
    };
  }

  const newContact = (appId: string, userId: string, prefix: 'email' | 'phone', address: string) =>
    ({
      id: k.id(prefix),
      app_id: appId,
      user_id: userId,
      address,
      verified_at: null,
      created_at: k.now(),
    }) satisfies ContactRecord;

  return {
    /** Creates a user with an optional email and phone number, all or nothing. */
    async create(appId: string, input: CreateUserRequest): Promise<CreateUserResponse> {
      const email = input.email === undefined ? undefined : normalizeEmail(input.email);
      const phone =
        input.phone_number === undefined ? undefined : await normalizePhoneNumber(input.phone_number);
      return k.storage.transaction(async (tx) => {
        const now = k.now();
        const user: UserRecord = {
          id: k.id('user'),
          app_id: appId,
          name: input.name ?? null,
          status: 'active',
          created_at: now,
          updated_at: now,
        };
        await tx.users.insert(user);
        let email_id: string | undefined;
        let phone_number_id: string | undefined;
        if (email !== undefined) {
          const contact = newContact(appId, user.id, 'email', email);
          if (!(await tx.emails.insert(contact)).inserted) throw new LatchkeyError('duplicate_email');
          email_id = contact.id;
        }
        if (phone !== undefined) {
          const contact = newContact(appId, user.id, 'phone', phone);
          if (!(await tx.phoneNumbers.insert(contact)).inserted) {
            throw new LatchkeyError('duplicate_phone_number');
          }
          phone_number_id = contact.id;
        }
        const full = await tx.users.getWithMethods(appId, user.id);
        if (!full) throw new LatchkeyError('internal_error', 'The user just created could not be read.');
        return { user_id: user.id, email_id, phone_number_id, user: view(full) };
      });
    },

    /** Removes an email or phone number from its user; codes pending for it die with it. */
    async removeContact(
      appId: string,
      channel: Channel,
      contactId: string,
    ): Promise<{ message: string; user_id: string }> {
      const removed = await k.storage.transaction(async (tx) => {
        const contact = await contactRepo(tx, channel).delete(appId, contactId);
        if (contact) {
          await tx.otps.deleteByMethod(appId, contactId);
          if (channel.name === 'email') await tx.magicLinks.deleteByEmail(appId, contactId);
        }
        return contact;
      });
      if (!removed) throw new LatchkeyError(channel.notFound);
      return {
        message: `The ${channel.methodType.replace('_', ' ')} was removed.`,
        user_id: removed.user_id,
      };
    },

    async get(appId: string, userId: string): Promise<User> {
      const [full, links] = await Promise.all([
        k.storage.users.getWithMethods(appId, userId),
        k.storage.oauth.listLinks(appId, userId),
      ]);
      if (!full) throw new LatchkeyError('user_not_found');
      return view(full, links);
    },
  };
}
