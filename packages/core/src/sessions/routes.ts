import { createRoute, z } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import {
  authenticateSessionRequestSchema,
  authenticateSessionResponseSchema,
  jwksSchema,
  listSessionsQuerySchema,
  listSessionsResponseSchema,
  revocationsQuerySchema,
  revocationsResponseSchema,
  revokeAllSessionsRequestSchema,
  revokeAllSessionsResponseSchema,
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
  summary:
    "Revoke a session by token or JWT, by id with the secret key, or by id beside the caller's token or JWT (a session of the caller's user)",
  // session_id alone needs the secret key (a session id is in every JWT): the service decides,
  // since beside the caller's own session the public token may name one.
  ...policy({ key: 'public', rate: 'other' }),
  request: jsonBody(revokeSessionRequestSchema),
  responses: {
    200: jsonResponse('Revoked', revokeSessionResponseSchema),
    ...errorResponses(403, 413, 415),
  },
});

const revokeAll = createRoute({
  method: 'post',
  path: '/v1/auth/sessions/revoke_all',
  tags: ['sessions'],
  summary:
    "Revoke every session of a user (user_id, secret key) or of the caller's user (token or JWT), optionally keeping the caller's",
  ...policy({ key: 'public', rate: 'other', namedUser: ['user_id'] }),
  request: jsonBody(revokeAllSessionsRequestSchema),
  responses: {
    200: jsonResponse('Revoked', revokeAllSessionsResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

const list = createRoute({
  method: 'get',
  path: '/v1/auth/sessions',
  tags: ['sessions'],
  summary:
    "A user's live sessions with their devices: by user_id with the secret key, or the caller's own by session_token or session_jwt",
  ...policy({ key: 'public', rate: 'other' }),
  request: { query: listSessionsQuerySchema },
  responses: {
    200: jsonResponse('The live sessions, most recently active first', listSessionsResponseSchema),
    ...errorResponses(403, 404),
  },
});

const revocations = createRoute({
  method: 'get',
  path: '/v1/auth/sessions/revocations',
  tags: ['sessions'],
  summary:
    "The App's sessions revoked while their JWTs may still be live: for edge middleware, which holds no database, to poll",
  ...policy({ key: 'public', rate: 'other' }),
  request: { query: revocationsQuerySchema },
  responses: {
    200: jsonResponse('Revocations, oldest first', revocationsResponseSchema),
    ...errorResponses(501),
  },
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
    return c.json(await sessions.revoke(c.get('app').id, body, c.get('keyKind')), 200);
  });
  app.openapi(revokeAll, async (c) =>
    c.json(await sessions.revokeAll(c.get('app').id, c.req.valid('json'), c.get('keyKind')), 200),
  );
  app.openapi(list, async (c) =>
    c.json(await sessions.list(c.get('app').id, c.req.valid('query'), c.get('keyKind')), 200),
  );
  app.openapi(revocations, async (c) => {
    const body = await sessions.revocations(c.get('app').id, c.req.valid('query'));
    // A few seconds of caching: many edge workers polling cost the database one read per period.
    return c.json(body, 200, { 'cache-control': 'private, max-age=5' });
  });
  app.openapi(jwks, async (c) => c.json(jwksBody(await sessions.jwks(c.get('app').id)), 200));
  app.openapi(publicJwks, async (c) => {
    const body = jwksBody(await sessions.publicJwks(c.req.valid('param').app_id));
    return c.json(body, 200, { 'cache-control': 'public, max-age=60' });
  });
}

const jwksBody = (set: { keys: Array<Record<string, unknown>> }) => set as z.infer<typeof jwksSchema>;
