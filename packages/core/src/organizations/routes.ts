import { createRoute } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import { registerDomainJoinRoutes } from './join-routes.js';
import {
  acceptInvitationRequestSchema,
  acceptInvitationResponseSchema,
  addedMemberSchema,
  addMemberRequestSchema,
  createInvitationRequestSchema,
  createOrganizationRequestSchema,
  deletedOrganizationSchema,
  invitationIdParamsSchema,
  invitationSchema,
  listInvitationsQuerySchema,
  listInvitationsResponseSchema,
  listMembersQuerySchema,
  listMembersResponseSchema,
  listOrganizationsQuerySchema,
  listOrganizationsResponseSchema,
  memberIdParamsSchema,
  memberSchema,
  organizationIdParamsSchema,
  organizationSchema,
  removedMemberSchema,
  updateMemberRequestSchema,
  updateOrganizationRequestSchema,
} from './schema.js';
import type { OrganizationService } from './service.js';
import { registerSessionExchangeRoute } from './session-exchange.js';

const common = { tags: ['organizations'], ...policy({ key: 'secret' }) };
const byId = { params: organizationIdParamsSchema };
const byMember = { params: memberIdParamsSchema };

const create = createRoute({
  ...common,
  // The public token with a session: the caller becomes the owner, if the App allows it.
  ...policy({ key: 'public', rate: 'other', namedUser: ['owner_user_id'] }),
  method: 'post',
  path: '/v1/organizations',
  summary:
    "Create an organization, with its first owner when `owner_user_id` is given (secret key) or the caller's session (public token)",
  request: jsonBody(createOrganizationRequestSchema),
  responses: {
    200: jsonResponse('The organization', organizationSchema),
    ...errorResponses(401, 403, 404, 409, 413, 415),
  },
});

const list = createRoute({
  ...common,
  method: 'get',
  path: '/v1/organizations',
  summary: "The App's organizations, or one user's, a page at a time",
  request: { query: listOrganizationsQuerySchema },
  responses: {
    200: jsonResponse('A page of organizations', listOrganizationsResponseSchema),
    ...errorResponses(403),
  },
});

const get = createRoute({
  ...common,
  method: 'get',
  path: '/v1/organizations/{organization_id}',
  summary: 'An organization',
  request: byId,
  responses: { 200: jsonResponse('The organization', organizationSchema), ...errorResponses(403, 404) },
});

const update = createRoute({
  ...common,
  method: 'patch',
  path: '/v1/organizations/{organization_id}',
  summary: "Change an organization's name, slug, email domains or settings",
  request: { ...byId, ...jsonBody(updateOrganizationRequestSchema) },
  responses: {
    200: jsonResponse('The organization as changed', organizationSchema),
    ...errorResponses(403, 404, 409, 413, 415),
  },
});

const remove = createRoute({
  ...common,
  method: 'delete',
  path: '/v1/organizations/{organization_id}',
  summary: 'Delete an organization and its memberships (its users stay)',
  request: byId,
  responses: { 200: jsonResponse('Deleted', deletedOrganizationSchema), ...errorResponses(403, 404) },
});

const addMember = createRoute({
  ...common,
  method: 'post',
  path: '/v1/organizations/{organization_id}/members',
  summary: 'Add a user as a member, by id or by email (creating the user when the App has none)',
  request: { ...byId, ...jsonBody(addMemberRequestSchema) },
  responses: {
    200: jsonResponse('The member', addedMemberSchema),
    ...errorResponses(403, 404, 409, 413, 415),
  },
});

const listMembers = createRoute({
  ...common,
  method: 'get',
  path: '/v1/organizations/{organization_id}/members',
  summary: "The organization's members, a page at a time",
  request: { ...byId, query: listMembersQuerySchema },
  responses: {
    200: jsonResponse('A page of members', listMembersResponseSchema),
    ...errorResponses(403, 404),
  },
});

const getMember = createRoute({
  ...common,
  method: 'get',
  path: '/v1/organizations/{organization_id}/members/{member_id}',
  summary: 'A member of an organization',
  request: byMember,
  responses: { 200: jsonResponse('The member', memberSchema), ...errorResponses(403, 404) },
});

const updateMember = createRoute({
  ...common,
  method: 'patch',
  path: '/v1/organizations/{organization_id}/members/{member_id}',
  summary: "Replace a member's roles (the last owner stays an owner)",
  request: { ...byMember, ...jsonBody(updateMemberRequestSchema) },
  responses: {
    200: jsonResponse('The member as changed', memberSchema),
    ...errorResponses(403, 404, 409, 413, 415),
  },
});

const removeMember = createRoute({
  ...common,
  method: 'delete',
  path: '/v1/organizations/{organization_id}/members/{member_id}',
  summary: 'Remove a member (never the last owner; the user stays)',
  request: byMember,
  responses: { 200: jsonResponse('Removed', removedMemberSchema), ...errorResponses(403, 404, 409) },
});

const createInvitation = createRoute({
  ...common,
  // The public token with a member's session: as the organization's who_can_invite allows.
  ...policy({ key: 'public', rate: 'send' }),
  method: 'post',
  path: '/v1/organizations/{organization_id}/invitations',
  summary: "Invite an email to the organization: emails a link to one of the App's `redirect_urls.invite`",
  request: { ...byId, ...jsonBody(createInvitationRequestSchema) },
  responses: {
    200: jsonResponse('The invitation (pending)', invitationSchema),
    ...errorResponses(401, 403, 404, 409, 413, 415, 429, 502),
  },
});

const listInvitations = createRoute({
  ...common,
  method: 'get',
  path: '/v1/organizations/{organization_id}/invitations',
  summary: "The organization's invitations neither accepted nor revoked, a page at a time",
  request: { ...byId, query: listInvitationsQuerySchema },
  responses: {
    200: jsonResponse('A page of invitations', listInvitationsResponseSchema),
    ...errorResponses(403, 404),
  },
});

const revokeInvitation = createRoute({
  ...common,
  method: 'delete',
  path: '/v1/organizations/{organization_id}/invitations/{invitation_id}',
  summary: 'Revoke a pending invitation: its link stops working',
  request: { params: invitationIdParamsSchema },
  responses: { 200: jsonResponse('The invitation, revoked', invitationSchema), ...errorResponses(403, 404) },
});

const acceptInvitation = createRoute({
  method: 'post',
  path: '/v1/organizations/invitations/accept',
  tags: ['organizations'],
  summary:
    "Use an invitation's token (once): the invitee's user (created if needed) becomes a member and signs in",
  ...policy({ key: 'public', rate: 'verify' }),
  request: jsonBody(acceptInvitationRequestSchema),
  responses: {
    200: jsonResponse('The member, its user, and the session', acceptInvitationResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

export function registerOrganizationRoutes(app: HttpApp, organizations: OrganizationService) {
  const appId = (c: { get(key: 'app'): { id: string } }) => c.get('app').id;
  registerDomainJoinRoutes(app, organizations);
  app.openapi(create, async (c) =>
    c.json(await organizations.create(appId(c), c.req.valid('json'), c.get('keyKind')), 200),
  );
  app.openapi(list, async (c) => c.json(await organizations.list(appId(c), c.req.valid('query')), 200));
  app.openapi(get, async (c) =>
    c.json(await organizations.get(appId(c), c.req.valid('param').organization_id), 200),
  );
  app.openapi(update, async (c) =>
    c.json(
      await organizations.update(appId(c), c.req.valid('param').organization_id, c.req.valid('json')),
      200,
    ),
  );
  app.openapi(remove, async (c) =>
    c.json(await organizations.delete(appId(c), c.req.valid('param').organization_id), 200),
  );
  app.openapi(addMember, async (c) =>
    c.json(
      await organizations.addMember(appId(c), c.req.valid('param').organization_id, c.req.valid('json')),
      200,
    ),
  );
  app.openapi(listMembers, async (c) =>
    c.json(
      await organizations.listMembers(appId(c), c.req.valid('param').organization_id, c.req.valid('query')),
      200,
    ),
  );
  app.openapi(getMember, async (c) => {
    const { organization_id, member_id } = c.req.valid('param');
    return c.json(await organizations.getMember(appId(c), organization_id, member_id), 200);
  });
  app.openapi(updateMember, async (c) => {
    const { organization_id, member_id } = c.req.valid('param');
    return c.json(
      await organizations.updateMember(appId(c), organization_id, member_id, c.req.valid('json')),
      200,
    );
  });
  app.openapi(removeMember, async (c) => {
    const { organization_id, member_id } = c.req.valid('param');
    return c.json(await organizations.removeMember(appId(c), organization_id, member_id), 200);
  });
  app.openapi(acceptInvitation, async (c) =>
    c.json(await organizations.invitations.accept(appId(c), c.req.valid('json')), 200),
  );
  app.openapi(createInvitation, async (c) =>
    c.json(
      await organizations.invitations.create(
        appId(c),
        c.req.valid('param').organization_id,
        c.req.valid('json'),
        c.get('keyKind'),
      ),
      200,
    ),
  );
  app.openapi(listInvitations, async (c) =>
    c.json(
      await organizations.invitations.list(
        appId(c),
        c.req.valid('param').organization_id,
        c.req.valid('query'),
      ),
      200,
    ),
  );
  app.openapi(revokeInvitation, async (c) => {
    const { organization_id, invitation_id } = c.req.valid('param');
    return c.json(await organizations.invitations.revoke(appId(c), organization_id, invitation_id), 200);
  });
  registerSessionExchangeRoute(app, organizations);
}
