import { z } from '@hono/zod-openapi';
import { issuedSessionSchema, sessionFieldsSchema } from '../sessions/schema.js';
import { domainProblem } from '../shared/hostnames.js';
import { roleNameSchema } from '../shared/organization-roles.js';
import { nextCursorSchema, pageQueryFields } from '../shared/page.js';

const id = z.string().min(1).max(100);

/** The ways a member may sign in, once organizations restrict them (empty: whatever the App allows). */
export const SIGN_IN_METHODS = [
  'email_otp',
  'sms_otp',
  'magic_link',
  'password',
  'oauth',
  'webauthn',
  'wallet',
  'sso',
] as const;

const settingsFields = {
  who_can_invite: z.enum(['admins', 'members']).openapi({
    description:
      'Who may invite with their session (the secret key always may): `admins`, members whose roles grant `members:invite` (owners and admins by default); `members`, any member.',
  }),
  default_role: roleNameSchema.openapi({
    description:
      'The role a member gets when none is named (and, later, one who joins by invitation, domain or SSO).',
  }),
  allowed_sign_in_methods: z.array(z.enum(SIGN_IN_METHODS)).max(SIGN_IN_METHODS.length).openapi({
    description:
      'The sign-in methods members may use in an organization-scoped session; empty: any the App allows.',
  }),
  join_by_domain: z.boolean().openapi({
    description:
      'Whether a signed-in user whose verified email is on one of `allowed_email_domains` may join by themselves, with `default_role`.',
  }),
  sso_required: z.boolean().openapi({
    description:
      'Whether members must sign in through the organization’s SSO connection: true only while it has one (`POST …/sso_connection` first).',
  }),
};

// A new organization has no SSO connection yet; an update checks it has one (organizations/sso-required.ts).
const ssoNotYet = (s: { sso_required?: boolean | undefined }) => s.sso_required !== true;
const ssoNotYetMessage = {
  message:
    'sso_required needs the organization’s SSO connection: create the organization, then its connection',
  path: ['sso_required'],
};

/** An organization's settings as stored, every field with its default. */
export const organizationSettingsSchema = z
  .object({
    who_can_invite: settingsFields.who_can_invite.default('admins'),
    default_role: settingsFields.default_role.default('member'),
    allowed_sign_in_methods: settingsFields.allowed_sign_in_methods.default([]),
    join_by_domain: settingsFields.join_by_domain.default(false),
    sso_required: settingsFields.sso_required.default(false),
  })
  .openapi('OrganizationSettings');

export type OrganizationSettings = z.infer<typeof organizationSettingsSchema>;

/** Settings as a request sends them: any subset, the rest kept (or defaulted on create). */
const settingsInputSchema = z.strictObject({
  who_can_invite: settingsFields.who_can_invite.optional(),
  default_role: settingsFields.default_role.optional(),
  allowed_sign_in_methods: settingsFields.allowed_sign_in_methods.optional(),
  join_by_domain: settingsFields.join_by_domain.optional(),
  sso_required: settingsFields.sso_required.optional(),
});

export type OrganizationSettingsInput = z.infer<typeof settingsInputSchema>;

/**
 * The caller's live session, sent beside the public token on the routes a member or user calls
 * for themselves (`POST /v1/organizations`, invitations, joining).
 */
export const callerSessionFields = {
  session_token: z.string().min(1).max(200).optional().openapi({
    description: "With the public token: the caller's live session token (or send `session_jwt`).",
  }),
  session_jwt: z.string().min(1).max(8000).optional().openapi({
    description: "With the public token: the caller's live session JWT (or send `session_token`).",
  }),
};

export type CallerSession = { session_token?: string | undefined; session_jwt?: string | undefined };

const name = z.string().trim().min(1).max(200);
const slug = z
  .string()
  .regex(
    /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/,
    'a slug: 1–64 of a-z, 0-9 and -, not starting or ending with -',
  )
  .openapi({ description: 'Unique within the App.', example: 'acme' });

const emailDomains = z
  .array(
    z
      .string()
      .max(253)
      .transform((d) => d.toLowerCase())
      .superRefine((d, ctx) => {
        const problem = domainProblem(d);
        if (problem || d === 'localhost')
          ctx.addIssue({ code: 'custom', message: problem ?? 'a domain such as example.com' });
      }),
  )
  .max(100)
  .transform((domains) => [...new Set(domains)])
  .openapi({
    description:
      'Email domains (example.com) of the organization, matched exactly (a subdomain is not included) by verified-domain joining. Secret key only.',
  });

const roles = z
  .array(roleNameSchema)
  .min(1)
  .max(20)
  .transform((r) => [...new Set(r)])
  .openapi({
    description: 'Built-in (`owner`, `admin`, `member`) or the App’s `settings.organizations.roles`.',
  });

export const createOrganizationRequestSchema = z
  .strictObject({
    name,
    slug,
    owner_user_id: id
      .optional()
      .openapi({ description: 'A user of the App who becomes its first owner. Secret key only.' }),
    ...callerSessionFields,
    allowed_email_domains: emailDomains.optional(),
    settings: settingsInputSchema.refine(ssoNotYet, ssoNotYetMessage).optional(),
  })
  .openapi('CreateOrganizationRequest');

export type CreateOrganizationRequest = z.infer<typeof createOrganizationRequestSchema>;

export const updateOrganizationRequestSchema = z
  .strictObject({
    name: name.optional(),
    slug: slug.optional(),
    allowed_email_domains: emailDomains.optional(),
    settings: settingsInputSchema.optional(),
  })
  .openapi('UpdateOrganizationRequest');

export type UpdateOrganizationRequest = z.infer<typeof updateOrganizationRequestSchema>;

export const organizationSchema = z
  .object({
    organization_id: z.string(),
    name: z.string(),
    slug: z.string(),
    allowed_email_domains: z.array(z.string()),
    settings: organizationSettingsSchema,
    created_at: z.int(),
    updated_at: z.int(),
  })
  .openapi('Organization');

export type OrganizationView = z.infer<typeof organizationSchema>;

export const organizationIdParamsSchema = z.object({ organization_id: id });
export const memberIdParamsSchema = z.object({ organization_id: id, member_id: id });

export const listOrganizationsQuerySchema = z.strictObject({
  user_id: id.optional().openapi({ description: 'Only the organizations this user is a member of.' }),
  ...pageQueryFields,
});

export type ListOrganizationsQuery = z.infer<typeof listOrganizationsQuerySchema>;

const nextCursor = nextCursorSchema();

export const listOrganizationsResponseSchema = z
  .object({ organizations: z.array(organizationSchema), next_cursor: nextCursor })
  .openapi('ListOrganizationsResponse');

export const deletedOrganizationSchema = z
  .object({ organization_id: z.string() })
  .openapi('DeletedOrganization');

export const addMemberRequestSchema = z
  .strictObject({
    user_id: id.optional().openapi({ description: 'A user of the App; or send `email`.' }),
    email: z.string().max(320).optional().openapi({
      description: 'The user with this email, created (pending) when the App has none; or send `user_id`.',
    }),
    roles: roles
      .optional()
      .openapi({ description: "The member's roles; the organization's `default_role` when absent." }),
  })
  .openapi('AddOrganizationMemberRequest', { description: 'Exactly one of `user_id` and `email`.' });

export type AddMemberRequest = z.infer<typeof addMemberRequestSchema>;

export const updateMemberRequestSchema = z.strictObject({ roles }).openapi('UpdateOrganizationMemberRequest');

export const memberSchema = z
  .object({
    member_id: z.string(),
    organization_id: z.string(),
    user_id: z.string(),
    roles: z.array(z.string()),
    permissions: z.array(z.string()).openapi({
      description: 'What the roles grant, as the App defines them now (`*`: every permission).',
    }),
    created_at: z.int(),
    updated_at: z.int(),
  })
  .openapi('OrganizationMember');

export type MemberView = z.infer<typeof memberSchema>;

export const addedMemberSchema = memberSchema
  .extend({
    user_created: z.boolean().openapi({ description: 'Whether `email` named no user, so one was created.' }),
  })
  .openapi('AddedOrganizationMember');

export const listMembersQuerySchema = z.strictObject(pageQueryFields);

export type ListMembersQuery = z.infer<typeof listMembersQuerySchema>;

export const listMembersResponseSchema = z
  .object({ members: z.array(memberSchema), next_cursor: nextCursor })
  .openapi('ListOrganizationMembersResponse');

export const removedMemberSchema = z
  .object({ member_id: z.string(), organization_id: z.string() })
  .openapi('RemovedOrganizationMember');

export const invitationIdParamsSchema = z.object({ organization_id: id, invitation_id: id });

export const createInvitationRequestSchema = z
  .strictObject({
    email: z.string().min(1).max(320),
    roles: roles
      .optional()
      .openapi({ description: "The roles the invitee gets; the organization's `default_role` when absent." }),
    redirect_url: z.string().min(1).max(2000).openapi({
      description: "Where the link leads, with `token` added: one of the App's `redirect_urls.invite`.",
    }),
    expires_in: z
      .int()
      .min(5)
      .max(43_200)
      .optional()
      .openapi({ description: 'Minutes the link works, 5–43200 (30 days); 10080 (7 days) when absent.' }),
    ...callerSessionFields,
  })
  .openapi('CreateOrganizationInvitationRequest');

export type CreateInvitationRequest = z.infer<typeof createInvitationRequestSchema>;

export const invitationSchema = z
  .object({
    invitation_id: z.string(),
    organization_id: z.string(),
    email: z.string(),
    roles: z.array(z.string()),
    status: z
      .enum(['pending', 'expired', 'accepted', 'revoked'])
      .openapi({ description: 'Lists show only `pending` and `expired` ones.' }),
    expires_at: z.int(),
    created_at: z.int(),
  })
  .openapi('OrganizationInvitation');

export type InvitationView = z.infer<typeof invitationSchema>;

export const listInvitationsQuerySchema = z.strictObject(pageQueryFields);

export type ListInvitationsQuery = z.infer<typeof listInvitationsQuerySchema>;

export const listInvitationsResponseSchema = z
  .object({ invitations: z.array(invitationSchema), next_cursor: nextCursor })
  .openapi('ListOrganizationInvitationsResponse');

export const acceptInvitationRequestSchema = z
  .strictObject({
    token: z.string().min(1).max(200),
    ...sessionFieldsSchema,
  })
  .openapi('AcceptOrganizationInvitationRequest');

export type AcceptInvitationRequest = z.infer<typeof acceptInvitationRequestSchema>;

export const acceptInvitationResponseSchema = z
  .object({
    user_id: z.string(),
    email_id: z.string(),
    organization_id: z.string(),
    member_id: z.string(),
    member_created: z.boolean().openapi({
      description: 'False when the invitee already was a member: their membership is kept as it was.',
    }),
    user_created: z.boolean(),
    ...issuedSessionSchema,
  })
  .openapi('AcceptOrganizationInvitationResponse');

export type AcceptInvitationResponse = z.infer<typeof acceptInvitationResponseSchema>;

export const joinableOrganizationsQuerySchema = z.strictObject({
  ...callerSessionFields,
  ...pageQueryFields,
});

export type JoinableOrganizationsQuery = z.infer<typeof joinableOrganizationsQuerySchema>;

export const joinOrganizationRequestSchema = z
  .strictObject(callerSessionFields)
  .openapi('JoinOrganizationRequest', { description: 'Exactly one of `session_token` and `session_jwt`.' });
