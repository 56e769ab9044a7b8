import { createRoute, z } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import { removedMethodResponseSchema } from '../users/schema.js';
import {
  callbackParamsSchema,
  linkParamsSchema,
  oauthAuthenticateRequestSchema,
  oauthAuthenticateResponseSchema,
  providerParamsSchema,
  startQuerySchema,
} from './schema.js';
import type { OAuthService } from './service.js';

const tags = ['oauth'];

const redirect = (description: string) => ({
  description,
  headers: z.object({ location: z.string().openapi({ description: 'Where the browser goes next.' }) }),
});

const start = createRoute({
  method: 'get',
  path: '/v1/auth/oauth/{provider_id}/start',
  tags,
  summary: 'Start signing in with a provider: a browser navigation, answered by a redirect to the provider',
  // Starts a proof, as a send does; the token may ride in the URL, which is all a navigation has.
  ...policy({ key: 'public', rate: 'send', tokenInQuery: true }),
  request: { params: providerParamsSchema, query: startQuerySchema },
  responses: {
    302: redirect("To the provider's sign-in page"),
    ...errorResponses(404, 501, 502),
  },
});

const callbackResponses = {
  302: redirect(
    "To the App's redirect URL, with `token` and `token_type=oauth`, or `error` and `error_description`",
  ),
  ...errorResponses(),
};

const callbackGet = createRoute({
  method: 'get',
  path: '/v1/auth/oauth/callback',
  tags,
  summary: "The provider's answer (the one redirect URI to register with every provider)",
  ...policy({ key: 'open' }),
  request: { query: callbackParamsSchema },
  responses: callbackResponses,
});

const callbackPost = createRoute({
  method: 'post',
  path: '/v1/auth/oauth/callback',
  tags,
  summary: "The provider's answer as a form post (Apple's response_mode=form_post)",
  ...policy({ key: 'open', body: 'form' }),
  responses: { ...callbackResponses, ...errorResponses(413, 415) },
});

const authenticate = createRoute({
  method: 'post',
  path: '/v1/auth/oauth/authenticate',
  tags,
  summary: "Sign in with the callback's single-use token; optionally create or extend a session",
  ...policy({ key: 'public', rate: 'verify' }),
  request: jsonBody(oauthAuthenticateRequestSchema),
  responses: {
    200: jsonResponse('The user and the session', oauthAuthenticateResponseSchema),
    ...errorResponses(404, 413, 415, 429),
  },
});

const unlink = createRoute({
  method: 'delete',
  path: '/v1/auth/users/oauth/{link_id}/delete',
  tags: ['users'],
  summary: 'Unlink a provider account from its user (refused when it is their only way to sign in)',
  ...policy({ key: 'secret' }),
  request: { params: linkParamsSchema },
  responses: {
    200: jsonResponse('Unlinked', removedMethodResponseSchema),
    ...errorResponses(403, 404, 409),
  },
});

export function registerOAuthRoutes(app: HttpApp, oauth: OAuthService) {
  app.openapi(start, async (c) => {
    const { url } = await oauth.start(
      c.get('app').id,
      c.req.valid('param').provider_id,
      c.req.valid('query'),
    );
    return c.body(null, 302, { location: url });
  });
  app.openapi(callbackGet, async (c) => {
    const { location } = await oauth.callback(new URL(c.req.url).searchParams);
    return c.body(null, 302, { location });
  });
  app.openapi(callbackPost, async (c) => {
    const { location } = await oauth.callback(new URLSearchParams(await c.req.text()));
    // 303: the browser follows a form post's answer with a GET.
    return c.body(null, 303 as 302, { location });
  });
  app.openapi(authenticate, async (c) =>
    c.json(await oauth.authenticate(c.get('app').id, c.req.valid('json')), 200),
  );
  app.openapi(unlink, async (c) => {
    const { user_id } = await oauth.unlink(c.get('app').id, c.req.valid('param').link_id);
    return c.json({ message: 'The provider account was unlinked.', user_id }, 200);
  });
}
