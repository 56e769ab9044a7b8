/**
 * The error types only organizations/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const organizationsErrors = {
  organization_slug_taken: {
    status: 409,
    message: 'Another organization of the App has this slug.',
  },
  organization_member_exists: {
    status: 409,
    message: 'The user already is a member of this organization; change their roles instead.',
  },
  last_owner: {
    status: 409,
    message: "This is the organization's last owner: make another member an owner first.",
  },
  unknown_role: {
    status: 400,
    message: 'No such role: the built-in owner, admin and member, or one in settings.organizations.roles.',
  },
  organization_creation_not_allowed: {
    status: 403,
    message:
      'This App does not let users create organizations (settings.organizations.allow_user_creation); its backend may, with the secret key.',
  },
  invitation_not_allowed: {
    status: 403,
    message: "The organization's who_can_invite does not let this member invite, or not with these roles.",
  },
  organization_join_not_allowed: {
    status: 403,
    message:
      'The organization admits no one by email domain, or none of your verified emails is on its allowed domains.',
  },
  sign_in_method_not_allowed: {
    status: 403,
    message:
      'The organization does not allow the way this session signed in (its settings.allowed_sign_in_methods): sign in with one of its methods.',
  },
  not_a_member: {
    status: 403,
    message: "The session's user is not a member of this organization.",
  },
  invitation_not_found: { status: 404, message: 'No invitation of this App matches this token or id.' },
  invitation_expired: { status: 401, message: 'The invitation has expired; ask for a new one.' },
  invitation_used: { status: 401, message: 'The invitation was already accepted.' },
  invitation_revoked: { status: 401, message: 'The invitation was revoked.' },
} as const satisfies Record<string, { status: number; message: string }>;
