import type { ApiKeyKind } from '../apps/repo.js';
import { channels } from '../contacts/channels.js';
import { findOrCreateByContact } from '../contacts/find-or-create.js';
import { newSecret } from '../crypto/ids.js';
import { type ErrorType, LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import { renderHtmlTemplate, renderTemplate } from '../messages/template.js';
import { checkSendLimits, limitOf } from '../rate-limits/send-limits.js';
import type { SessionService } from '../sessions/service.js';
import { emailFactorMethod, type Factor } from '../shared/factor.js';
import { chooseRedirect, withToken } from '../shared/redirect-url.js';
import { completeSignIn, contactOwner } from '../sign-in/complete.js';
import { callerUserId, checkInviter } from './caller.js';
import type {
  InvitationConsumeFailure,
  OrganizationInvitationRecord,
  OrganizationMemberRecord,
} from './repo.js';
import { checkRole } from './roles.js';
import type {
  AcceptInvitationRequest,
  AcceptInvitationResponse,
  CreateInvitationRequest,
  InvitationView,
  ListInvitationsQuery,
} from './schema.js';

const DEFAULT_EXPIRATION_MINUTES = 7 * 24 * 60;
const DEFAULT_PAGE = 100;

const failures: Record<InvitationConsumeFailure, ErrorType> = {
  not_found: 'invitation_not_found',
  used: 'invitation_used',
  revoked: 'invitation_revoked',
  expired: 'invitation_expired',
  sso_required: 'sso_required',
  sign_in_method_not_allowed: 'sign_in_method_not_allowed',
};

const invitationView = (i: OrganizationInvitationRecord, now: number): InvitationView => ({
  invitation_id: i.id,
  organization_id: i.organization_id,
  email: i.email,
  roles: i.roles,
  status:
    i.accepted_at !== null
      ? 'accepted'
      : i.revoked_at !== null
        ? 'revoked'
        : i.expires_at <= now
          ? 'expired'
          : 'pending',
  expires_at: i.expires_at,
  created_at: i.created_at,
});

export type InvitationService = ReturnType<typeof invitationService>;

/** Invitations to organizations: an emailed link that works once and signs the invitee in as a member. */
export function invitationService(k: Kernel, sessions: SessionService) {
  // Its own purpose: a magic link's or reset link's token never matches an invitation.
  const hashToken = (token: string) => k.hasher.hash('invitation', token);

  const mustGetOrganization = async (appId: string, organizationId: string) => {
    const organization = await k.storage.organizations.get(appId, organizationId);
    if (!organization) throw new LatchkeyError('organization_not_found');
    return organization;
  };

  return {
    /**
     * Stores an invitation and emails its link through the App's Sender: for the App (secret
     * key), or for a member (their session and the public token) as `who_can_invite` allows.
     */
    async create(
      appId: string,
      organizationId: string,
      input: CreateInvitationRequest,
      keyKind: ApiKeyKind = 'secret',
    ) {
      const app = await k.app(appId);
      const organization = await mustGetOrganization(appId, organizationId);
      const roles = input.roles ?? [organization.settings.default_role];
      roles.forEach((role, i) => {
        checkRole(role, app.settings.organizations, input.roles ? `roles.${i}` : 'roles');
      });
      const inviter = await callerUserId(sessions, appId, input, keyKind);
      if (inviter !== undefined) await checkInviter(k, app, organization, inviter, roles);
      // No default: an invitation's link leads where its sender says, if the App allows it.
      const url = chooseRedirect(
        input.redirect_url,
        undefined,
        app.settings.redirect_urls.invite,
        'redirect_url',
      );
      const email = await channels.email.normalize(input.email);
      const contact = await k.storage.emails.findByAddress(appId, email);
      if (contact && (await k.storage.organizations.getMemberByUser(appId, organizationId, contact.user_id)))
        throw new LatchkeyError('organization_member_exists', undefined, { field: 'email' });

      // Counted last, once the invitation is known to be sendable: a refused one costs no quota.
      await checkSendLimits(k, app, email, 'email', {
        more: [
          {
            key: `send:org-invitations:${appId}:${organizationId}`,
            ...limitOf(app.settings.rate_limits.invitations_per_organization),
          },
        ],
      });
      const minutes = input.expires_in ?? DEFAULT_EXPIRATION_MINUTES;
      const token = newSecret('', k.random, 32);
      const now = k.now();
      const invitation: OrganizationInvitationRecord = {
        id: k.id('orginv'),
        app_id: appId,
        organization_id: organizationId,
        email,
        roles,
        token_hash: hashToken(token),
        expires_at: now + minutes * 60,
        accepted_at: null,
        revoked_at: null,
        created_at: now,
      };
      await k.storage.organizations.insertInvitation(invitation);
      const link = withToken(url, token);
      const values = {
        app_name: app.name,
        organization_name: organization.name,
        url: link,
        minutes: String(minutes),
      };
      const m = app.settings.messages;
      await k.sender.send({
        channel: 'email',
        kind: 'invitation',
        to: email,
        app_id: appId,
        url: link,
        subject: renderTemplate(m.invitation_email_subject, values),
        text: renderTemplate(m.invitation_email_text, values),
        html: renderHtmlTemplate(m.invitation_email_html, values),
      });
      return invitationView(invitation, now);
    },

    async list(appId: string, organizationId: string, query: ListInvitationsQuery) {
      await mustGetOrganization(appId, organizationId);
      const page = await k.storage.organizations.listInvitations(appId, organizationId, {
        limit: query.limit ?? DEFAULT_PAGE,
        after: query.cursor,
      });
      const now = k.now();
      return {
        invitations: page.invitations.map((i) => invitationView(i, now)),
        next_cursor: page.next_cursor,
      };
    },

    /** Revokes a pending invitation: its link stops working (401 `invitation_revoked`). */
    async revoke(appId: string, organizationId: string, invitationId: string) {
      const now = k.now();
      const revoked = await k.storage.organizations.revokeInvitation(
        appId,
        organizationId,
        invitationId,
        now,
      );
      if (!revoked) throw new LatchkeyError('invitation_not_found');
      return invitationView(revoked, now);
    },

    /**
     * Spends the token once, unless the organization refuses a sign-in by link (403
     * `sso_required`: it is joined through its provider, just in time; 403
     * `sign_in_method_not_allowed`: its `allowed_sign_in_methods` lack `magic_link`), which
     * leaves the token as it was. Then: the invited email's user (created when the App has none), the
     * email verified (using the link proved it), the membership with the invited roles (kept as
     * it was when the invitee already is a member), and the session rules of every sign-in.
     */
    async accept(appId: string, input: AcceptInvitationRequest): Promise<AcceptInvitationResponse> {
      const now = k.now();
      const spent = await k.storage.organizations.consumeInvitation(appId, hashToken(input.token), now);
      if (!spent.ok) throw new LatchkeyError(failures[spent.reason]);
      const { invitation } = spent;
      const found = await findOrCreateByContact(k, appId, channels.email, invitation.email, {
        pending: false,
      });
      const contact = await k.storage.emails.markVerified(appId, found.contact.id, now);
      if (!contact) throw new LatchkeyError('invitation_not_found');
      const user = await contactOwner(k, appId, contact.user_id, now, 'invitation_not_found');
      const member: OrganizationMemberRecord = {
        id: k.id('orgmember'),
        app_id: appId,
        organization_id: invitation.organization_id,
        user_id: user.id,
        roles: invitation.roles,
        created_at: now,
        updated_at: now,
      };
      const { inserted } = await k.storage.organizations.insertMember(member, 'invitation');
      const memberId = inserted
        ? member.id
        : (await k.storage.organizations.getMemberByUser(appId, invitation.organization_id, user.id))?.id;
      if (memberId === undefined) throw new LatchkeyError('organization_member_not_found');
      const factor: Factor = {
        type: 'magic_link',
        delivery_channel: 'email',
        method: emailFactorMethod(contact, now),
      };
      return {
        email_id: contact.id,
        organization_id: invitation.organization_id,
        member_id: memberId,
        member_created: inserted,
        user_created: found.user_created,
        ...(await completeSignIn(sessions, appId, { userId: user.id, factor }, input)),
      };
    },
  };
}
