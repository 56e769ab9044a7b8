import { createRoute } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import {
  joinableOrganizationsQuerySchema,
  joinOrganizationRequestSchema,
  listOrganizationsResponseSchema,
  memberSchema,
  organizationIdParamsSchema,
} from './schema.js';
import type { OrganizationService } from './service.js';

// The caller's session says who joins: any key will do, the public token as well as the secret.
const common = { tags: ['organizations'], ...policy({ key: 'public', rate: 'other' }) };

const joinable = createRoute({
  ...common,
  method: 'get',
  path: '/v1/organizations/joinable',
  summary:
    "The organizations the caller's verified email domains let them join (join_by_domain on), those they belong to left out",
  request: { query: joinableOrganizationsQuerySchema },
  responses: {
    200: jsonResponse('A page of organizations', listOrganizationsResponseSchema),
    ...errorResponses(401, 403),
  },
});

const join = createRoute({
  ...common,
  method: 'post',
  path: '/v1/organizations/{organization_id}/join',
  summary:
    'Join an organization as a member with its default role, by a verified email on one of its allowed domains',
  request: { params: organizationIdParamsSchema, ...jsonBody(joinOrganizationRequestSchema) },
  responses: {
    200: jsonResponse('The new member', memberSchema),
    ...errorResponses(401, 403, 404, 409, 413, 415),
  },
});

/** Registered before `GET /v1/organizations/{organization_id}`, which would take `joinable` for an id. */
export function registerDomainJoinRoutes(app: HttpApp, organizations: OrganizationService) {
  app.openapi(joinable, async (c) =>
    c.json(await organizations.domains.joinable(c.get('app').id, c.req.valid('query')), 200),
  );
  app.openapi(join, async (c) =>
    c.json(
      await organizations.domains.join(
        c.get('app').id,
        c.req.valid('param').organization_id,
        c.req.valid('json'),
      ),
      200,
    ),
  );
}
