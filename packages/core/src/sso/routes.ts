import { createRoute, z } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import { callbackParamsSchema } from '../oauth/schema.js';
import {
  createSsoConnectionRequestSchema,
  deletedSsoConnectionSchema,
  organizationParamsSchema,
  ssoAuthenticateRequestSchema,
  ssoAuthenticateResponseSchema,
  ssoConnectionSchema,
  ssoStartQuerySchema,
  updateSsoConnectionRequestSchema,
} from './schema.js';
import type { SsoService } from './service.js';

const connection = { tags: ['organizations'], ...policy({ key: 'secret' }) };
const PATH = '/v1/organizations/{organization_id}/sso_connection';
const byId = { params: organizationParamsSchema };
const tags = ['sso'];

const redirect = (description: string) => ({
  description,
  headers: z.object({ location: z.string().openapi({ description: 'Where the browser goes next.' }) }),
});

const create = createRoute({
  ...connection,
  method: 'post',
  path: PATH,
  summary: 'Give the organization an OpenID Connect connection (its client secret sealed, never answered)',
  request: { ...byId, ...jsonBody(createSsoConnectionRequestSchema) },
  responses: {
    200: jsonResponse('The connection', ssoConnectionSchema),
    ...errorResponses(403, 404, 409, 413, 415, 502),
  },
});

const get = createRoute({
  ...connection,
  method: 'get',
  path: PATH,
  summary: "The organization's SSO connection",
  request: byId,
  responses: { 200: jsonResponse('The connection', ssoConnectionSchema), ...errorResponses(403, 404) },
});

const update = createRoute({
  ...connection,
  method: 'patch',
  path: PATH,
  summary: "Change the organization's SSO connection (a new issuer or client is discovered first)",
  request: { ...byId, ...jsonBody(updateSsoConnectionRequestSchema) },
  responses: {
    200: jsonResponse('The connection as changed', ssoConnectionSchema),
    ...errorResponses(403, 404, 409, 413, 415, 502),
  },
});

const remove = createRoute({
  ...connection,
  method: 'delete',
  path: PATH,
  summary: "Delete the organization's SSO connection (refused while it requires SSO)",
  request: byId,
  responses: {
    200: jsonResponse('Deleted', deletedSsoConnectionSchema),
    ...errorResponses(403, 404, 409),
  },
});

const start = createRoute({
  method: 'get',
  path: '/v1/auth/sso/start',
  tags,
  summary:
    "Start signing in through an organization's identity provider: a browser navigation, answered by a redirect to it",
  // Starts a proof, as a send does; the token may ride in the URL, which is all a navigation has.
  ...policy({ key: 'public', rate: 'send', tokenInQuery: true }),
  request: { query: ssoStartQuerySchema },
  responses: {
    302: redirect("To the provider's sign-in page"),
    ...errorResponses(404, 501, 502),
  },
});

const callback = createRoute({
  method: 'get',
  path: '/v1/auth/sso/callback',
  tags,
  summary: "The provider's answer (the redirect URI to register with every organization's provider)",
  ...policy({ key: 'open' }),
  request: { query: callbackParamsSchema },
  responses: {
    302: redirect(
      "To the App's redirect URL, with `token` and `token_type=sso`, or `error` and `error_description`",
    ),
    ...errorResponses(),
  },
});

const authenticate = createRoute({
  method: 'post',
  path: '/v1/auth/sso/authenticate',
  tags,
  summary:
    "Sign in with the callback's single-use token, provisioning the member when needed; optionally create or extend a session",
  ...policy({ key: 'public', rate: 'verify' }),
  request: jsonBody(ssoAuthenticateRequestSchema),
  responses: {
    200: jsonResponse('The user, the member and the session', ssoAuthenticateResponseSchema),
    ...errorResponses(404, 413, 415, 429),
  },
});

export function registerSsoRoutes(app: HttpApp, sso: SsoService) {
  const appId = (c: { get(key: 'app'): { id: string } }) => c.get('app').id;
  app.openapi(create, async (c) =>
    c.json(
      await sso.connections.create(appId(c), c.req.valid('param').organization_id, c.req.valid('json')),
      200,
    ),
  );
  app.openapi(get, async (c) =>
    c.json(await sso.connections.get(appId(c), c.req.valid('param').organization_id), 200),
  );
  app.openapi(update, async (c) =>
    c.json(
      await sso.connections.update(appId(c), c.req.valid('param').organization_id, c.req.valid('json')),
      200,
    ),
  );
  app.openapi(remove, async (c) =>
    c.json(await sso.connections.delete(appId(c), c.req.valid('param').organization_id), 200),
  );
  app.openapi(start, async (c) => {
    const { url } = await sso.start(appId(c), c.req.valid('query'));
    return c.body(null, 302, { location: url });
  });
  app.openapi(callback, async (c) => {
    const { location } = await sso.callback(new URL(c.req.url).searchParams);
    return c.body(null, 302, { location });
  });
  app.openapi(authenticate, async (c) => c.json(await sso.authenticate(appId(c), c.req.valid('json')), 200));
}
