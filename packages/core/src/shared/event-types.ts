/**
 * Every event Latchkey emits, as `noun.verb`. Payload `data` never holds a passcode, token, key
 * or secret: ids, addresses the user gave, times and reasons only (docs/events.md lists each).
 */
export const EVENT_TYPES = [
  'user.created',
  'user.oauth_linked',
  'user.oauth_unlinked',
  'email.added',
  'email.verified',
  'email.removed',
  'phone_number.added',
  'phone_number.verified',
  'phone_number.removed',
  'session.created',
  'session.extended',
  'session.revoked',
  'password.created',
  'password.changed',
  'sign_in.failed',
  'sign_in.locked_out',
  'totp.created',
  'totp.activated',
  'totp.deleted',
  'passkey.registered',
  'passkey.removed',
  'wallet.created',
  'wallet.imported',
  'wallet.exported',
  'signature.made',
  'signature.refused',
  'wallet.transaction.sent',
  'wallet.transaction.confirmed',
  'wallet.transaction.failed',
  'wallet.transaction.replaced',
  'organization.created',
  'organization.updated',
  'organization.deleted',
  'organization.member.added',
  'organization.member.updated',
  'organization.member.removed',
  'organization.invitation.created',
  'organization.invitation.revoked',
  'organization.invitation.accepted',
  'organization.sso.connection_created',
  'organization.sso.connection_updated',
  'organization.sso.connection_deleted',
  'organization.sso.member_provisioned',
  'webhook_endpoint.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: string): value is EventType =>
  (EVENT_TYPES as readonly string[]).includes(value);
