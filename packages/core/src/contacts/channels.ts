import type { ErrorType } from '../errors.js';
import type { Storage } from '../ports/storage.js';
import { normalizeEmail, normalizePhoneNumber } from './contact-address.js';

/** Everything that differs between the two kinds of contact a code or link is sent to. */
export interface Channel {
  name: 'sms' | 'email';
  repo: 'phoneNumbers' | 'emails';
  idPrefix: 'phone' | 'email';
  /** The request field holding the address. */
  field: 'phone_number' | 'email';
  /** The response field naming the contact's id. */
  idField: 'phone_number_id' | 'email_id';
  methodType: 'phone_number' | 'email';
  normalize(raw: string): Promise<string>;
  notFound: ErrorType;
  duplicate: ErrorType;
  belongsToAnother: ErrorType;
}

export const channels = {
  sms: {
    name: 'sms',
    repo: 'phoneNumbers',
    idPrefix: 'phone',
    field: 'phone_number',
    idField: 'phone_number_id',
    methodType: 'phone_number',
    normalize: (raw) => normalizePhoneNumber(raw),
    notFound: 'phone_number_not_found',
    duplicate: 'duplicate_phone_number',
    belongsToAnother: 'phone_number_belongs_to_another_user',
  },
  email: {
    name: 'email',
    repo: 'emails',
    idPrefix: 'email',
    field: 'email',
    idField: 'email_id',
    methodType: 'email',
    normalize: async (raw) => normalizeEmail(raw),
    notFound: 'email_not_found',
    duplicate: 'duplicate_email',
    belongsToAnother: 'email_belongs_to_another_user',
  },
} as const satisfies Record<string, Channel>;

/** The channel of a method id, from its prefix (ids are ours, so the prefix is reliable). */
export function channelOfMethodId(methodId: string): Channel | undefined {
  if (methodId.startsWith('phone_')) return channels.sms;
  if (methodId.startsWith('email_')) return channels.email;
  return undefined;
}

export const contactRepo = (storage: Storage, channel: Channel) => storage[channel.repo];
