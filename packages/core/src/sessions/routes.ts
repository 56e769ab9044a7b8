import { createRoute, z } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import {
  authenticateSessionRequestSchema,
  authenticateSessionResponseSchema,
  jwksSchema,
  revokeSessionRequestSchema,
  revokeSessionResponseSchema,
} from './schema.js';
import type { SessionService } from './service.js';

const authenticate = createRoute({
  method: 'post',
  path: '/v1/auth/sessions/authenticate',
  tags: ['sessions'],
  summary:
    'Check a session token or JWT (revocation takes effect at once), optionally extend it, get a fresh JWT',
  ...policy({ key: 'public', rate: 'other' }),
  request: jsonBody(authenticateSessionRequestSchema),
  responses: {
    200: jsonResponse('The live session', authenticateSessionResponseSchema),
    ...errorResponses(413, 415),
  },
});

const revoke = createRoute({
  method: 'post',
  path: '/v1/auth/sessions/revoke',
  tags: ['sessions'],
  summary: 'Revoke a session by token or JWT, or by id with the secret key',
  // A session id is in every JWT: with the public token alone, anyone could log anyone out.
  ...policy({ key: 'public', rate: 'other', namedUser: ['session_id'] }),
  request: jsonBody(revokeSessionRequestSchema),
  responses: { 200: jsonResponse('Revoked', revokeSessionResponseSchema), ...errorResponses(413, 415) },
});

const jwks = createRoute({
  method: 'get',
  path: '/v1/auth/sessions/jwks',
  tags: ['sessions'],
  summary: "The App's session-JWT public keys (the App of the key sent)",
  ...policy({ key: 'public', rate: 'other' }),
  responses: { 200: jsonResponse('JWKS', jwksSchema), ...errorResponses() },
});

const publicJwks = createRoute({
  method: 'get',
  path: '/v1/auth/sessions/jwks/{app_id}',
  tags: ['sessions'],
  summary: "An App's session-JWT public keys, without a key: for JWT libraries that fetch a JWKS URL",
  ...policy({ key: 'open' }),
  request: { params: z.object({ app_id: z.string().min(1).max(100) }) },
  responses: { 200: jsonResponse('JWKS', jwksSchema), ...errorResponses(404) },
});

export function registerSessionRoutes(app: HttpApp, sessions: SessionService) {
  app.openapi(authenticate, async (c) =>
    c.json(await sessions.authenticate(c.get('app').id, c.req.valid('json')), 200),
  );
  app.openapi(revoke, async (c) => {
    const body = c.req.valid('json');
    return c.json(await sessions.revoke(c.get('app').id, body), 200);
  });
  app.openapi(jwks, async (c) => c.json(jwksBody(await sessions.jwks(c.get('app').id)), 200));
  app.openapi(publicJwks, async (c) => {
    const body = jwksBody(await sessions.publicJwks(c.req.valid('param').app_id));
    return c.json(body, 200, { 'cache-control': 'public, max-age=60' });
  });
}

const jwksBody = (set: { keys: Array<Record<string, unknown>> }) => set as z.infer<typeof jwksSchema>;
