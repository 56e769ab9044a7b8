import { createRoute } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import {
  magicLinkAuthenticateRequestSchema,
  magicLinkAuthenticateResponseSchema,
  magicLinkLoginOrCreateRequestSchema,
  magicLinkLoginOrCreateResponseSchema,
} from './schema.js';
import type { MagicLinkService } from './service.js';

const loginOrCreate = createRoute({
  method: 'post',
  path: '/v1/auth/magic_links/email/login_or_create',
  tags: ['magic links'],
  summary: 'Email a login link, or a registration link when the address is new (the user is created)',
  // Its window is counted with the send's windows, in one step.
  ...policy({ key: 'public', rate: 'send', limitWithSend: true }),
  request: jsonBody(magicLinkLoginOrCreateRequestSchema),
  responses: {
    200: jsonResponse('The user and email the link went to', magicLinkLoginOrCreateResponseSchema),
    ...errorResponses(413, 415, 502),
  },
});

const authenticate = createRoute({
  method: 'post',
  path: '/v1/auth/magic_links/authenticate',
  tags: ['magic links'],
  summary: "Use a link's token (once): verifies the email, optionally creates or extends a session",
  ...policy({ key: 'public', rate: 'verify' }),
  request: jsonBody(magicLinkAuthenticateRequestSchema),
  responses: {
    200: jsonResponse('The user the link belonged to, and the session', magicLinkAuthenticateResponseSchema),
    ...errorResponses(404, 413, 415),
  },
});

export function registerMagicLinkRoutes(app: HttpApp, magicLinks: MagicLinkService) {
  app.openapi(loginOrCreate, async (c) =>
    c.json(
      await magicLinks.loginOrCreate(c.get('app').id, c.req.valid('json'), { also: c.get('routeHit') }),
      200,
    ),
  );
  app.openapi(authenticate, async (c) =>
    c.json(await magicLinks.authenticate(c.get('app').id, c.req.valid('json')), 200),
  );
}
