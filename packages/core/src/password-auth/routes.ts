import { createRoute } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import { authenticateSessionResponseSchema } from '../sessions/schema.js';
import {
  authenticatePasswordRequestSchema,
  createPasswordRequestSchema,
  migratePasswordRequestSchema,
  migratePasswordResponseSchema,
  passwordSignedInResponseSchema,
  resetByEmailRequestSchema,
  resetByExistingRequestSchema,
  resetBySessionRequestSchema,
  resetStartRequestSchema,
  resetStartResponseSchema,
} from './schema.js';
import type { PasswordAuthService } from './service.js';

const tags = ['passwords'];
const signedIn = (what: string) => jsonResponse(what, passwordSignedInResponseSchema);

const create = createRoute({
  method: 'post',
  path: '/v1/auth/passwords/create',
  tags,
  summary:
    'Create a user with an email and password (the public token only where the App allows sign-up by password)',
  // CPU-heavy for us (a hash), free for the caller.
  ...policy({ key: 'public', rate: 'compute' }),
  request: jsonBody(createPasswordRequestSchema),
  responses: {
    200: signedIn('The user, and the session when asked (never to a public sign-up in notice mode)'),
    ...errorResponses(403, 409, 413, 415, 429, 502),
  },
});

const authenticate = createRoute({
  method: 'post',
  path: '/v1/auth/passwords/authenticate',
  tags,
  summary: 'Sign in by email and password; optionally create or extend a session',
  ...policy({ key: 'public', rate: 'verify' }),
  request: jsonBody(authenticatePasswordRequestSchema),
  responses: { 200: signedIn('The user and the session'), ...errorResponses(413, 415, 429) },
});

const resetStart = createRoute({
  method: 'post',
  path: '/v1/auth/passwords/email/reset/start',
  tags,
  summary: 'Email a password reset link (the same answer whether or not a user has the address)',
  ...policy({ key: 'public', rate: 'send' }),
  request: jsonBody(resetStartRequestSchema),
  responses: {
    200: jsonResponse('The address the link went to, if a user has it', resetStartResponseSchema),
    ...errorResponses(413, 415, 429, 502),
  },
});

const resetByEmail = createRoute({
  method: 'post',
  path: '/v1/auth/passwords/email/reset',
  tags,
  summary: "Set a new password with a reset link's token (once); verifies the email",
  ...policy({ key: 'public', rate: 'verify' }),
  request: jsonBody(resetByEmailRequestSchema),
  responses: { 200: signedIn('The user and the session'), ...errorResponses(404, 413, 415, 429) },
});

const resetByExisting = createRoute({
  method: 'post',
  path: '/v1/auth/passwords/existing_password/reset',
  tags,
  summary: 'Change a password by giving the current one',
  ...policy({ key: 'public', rate: 'verify' }),
  request: jsonBody(resetByExistingRequestSchema),
  responses: { 200: signedIn('The user and the session'), ...errorResponses(413, 415, 429) },
});

const resetBySession = createRoute({
  method: 'post',
  path: '/v1/auth/passwords/session/reset',
  tags,
  summary: "Set the password of a session's user, when the session's last sign-in is recent",
  ...policy({ key: 'public', rate: 'verify' }),
  request: jsonBody(resetBySessionRequestSchema),
  responses: {
    200: jsonResponse('The session, which stays', authenticateSessionResponseSchema),
    ...errorResponses(413, 415, 429),
  },
});

const migrate = createRoute({
  method: 'post',
  path: '/v1/auth/passwords/migrate',
  tags,
  summary: "Import a user's password hash from another system, creating the user when the email is new",
  ...policy({ key: 'secret' }),
  request: jsonBody(migratePasswordRequestSchema),
  responses: {
    200: jsonResponse('The user the hash was stored for', migratePasswordResponseSchema),
    ...errorResponses(413, 415),
  },
});

export function registerPasswordAuthRoutes(app: HttpApp, passwords: PasswordAuthService) {
  const caller = (c: { get(k: 'keyKind'): 'secret' | 'public'; env?: { clientIp?: string } }) => ({
    keyKind: c.get('keyKind'),
    clientIp: c.env?.clientIp,
  });
  app.openapi(create, async (c) =>
    c.json(await passwords.create(c.get('app').id, caller(c), c.req.valid('json')), 200),
  );
  app.openapi(authenticate, async (c) =>
    c.json(await passwords.authenticate(c.get('app').id, caller(c), c.req.valid('json')), 200),
  );
  app.openapi(resetStart, async (c) =>
    c.json(await passwords.resetStart(c.get('app').id, c.req.valid('json')), 200),
  );
  app.openapi(resetByEmail, async (c) =>
    c.json(await passwords.resetByEmail(c.get('app').id, c.req.valid('json')), 200),
  );
  app.openapi(resetByExisting, async (c) =>
    c.json(await passwords.resetByExisting(c.get('app').id, caller(c), c.req.valid('json')), 200),
  );
  app.openapi(resetBySession, async (c) =>
    c.json(await passwords.resetBySession(c.get('app').id, c.req.valid('json')), 200),
  );
  app.openapi(migrate, async (c) =>
    c.json(await passwords.migrate(c.get('app').id, c.req.valid('json')), 200),
  );
}
