import { createRoute, z } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import { removedMethodResponseSchema } from '../users/schema.js';
import {
  authenticateTotpRequestSchema,
  createTotpRequestSchema,
  createTotpResponseSchema,
  recoverTotpRequestSchema,
  totpSessionResponseSchema,
  verifyTotpRequestSchema,
  verifyTotpResponseSchema,
} from './schema.js';
import type { TotpService } from './service.js';

const secret = { ...policy({ key: 'secret' }), tags: ['totps'] };

const create = createRoute({
  ...secret,
  method: 'post',
  path: '/v1/auth/totps/create',
  summary: 'Create a pending TOTP: secret, QR code and recovery codes (beta)',
  request: jsonBody(createTotpRequestSchema),
  responses: {
    200: jsonResponse('The new TOTP', createTotpResponseSchema),
    ...errorResponses(403, 404, 409, 413, 415),
  },
});

const verify = createRoute({
  ...secret,
  method: 'post',
  path: '/v1/auth/totps/verify',
  summary: "Activate the user's pending TOTP with a first code, within its window",
  request: jsonBody(verifyTotpRequestSchema),
  responses: {
    200: jsonResponse('Activated', verifyTotpResponseSchema),
    ...errorResponses(403, 404, 409, 413, 415),
  },
});

const authenticate = createRoute({
  ...secret,
  method: 'post',
  path: '/v1/auth/totps/authenticate',
  summary: 'Sign in with a TOTP code; optionally create or extend a session',
  request: jsonBody(authenticateTotpRequestSchema),
  responses: {
    200: jsonResponse('Authenticated', totpSessionResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

const recover = createRoute({
  ...secret,
  method: 'post',
  path: '/v1/auth/totps/recover',
  summary: 'Sign in with a single-use recovery code; optionally create or extend a session',
  request: jsonBody(recoverTotpRequestSchema),
  responses: {
    200: jsonResponse('Authenticated', totpSessionResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

const remove = createRoute({
  ...secret,
  method: 'delete',
  path: '/v1/auth/users/totps/{totp_id}/delete',
  summary: 'Delete a TOTP (and its recovery codes) from its user',
  request: { params: z.object({ totp_id: z.string().min(1).max(100) }) },
  responses: { 200: jsonResponse('Deleted', removedMethodResponseSchema), ...errorResponses(403, 404) },
});

export function registerTotpRoutes(app: HttpApp, totps: TotpService) {
  app.openapi(create, async (c) => c.json(await totps.create(c.get('app').id, c.req.valid('json')), 200));
  app.openapi(verify, async (c) => c.json(await totps.verify(c.get('app').id, c.req.valid('json')), 200));
  app.openapi(authenticate, async (c) =>
    c.json(await totps.authenticate(c.get('app').id, c.req.valid('json')), 200),
  );
  app.openapi(recover, async (c) => c.json(await totps.recover(c.get('app').id, c.req.valid('json')), 200));
  app.openapi(remove, async (c) =>
    c.json(await totps.delete(c.get('app').id, c.req.valid('param').totp_id), 200),
  );
}
