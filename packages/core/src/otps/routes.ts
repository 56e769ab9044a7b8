import { createRoute } from '@hono/zod-openapi';
import { channels } from '../contacts/channels.js';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import {
  loginOrCreateEmailRequestSchema,
  loginOrCreateSmsRequestSchema,
  sendEmailOtpRequestSchema,
  sendOtpResponseSchema,
  sendSmsOtpRequestSchema,
  verifyOtpRequestSchema,
  verifyOtpResponseSchema,
} from './schema.js';
import type { OtpService } from './service.js';

const sendErrors = errorResponses(403, 404, 409, 413, 415, 429, 502);

/**
 * The send routes of each channel, generated from this table: a channel added to
 * users/channels.ts needs its two request schemas and its words here, nothing else.
 */
const CHANNEL_ROUTES = {
  sms: {
    send: sendSmsOtpRequestSchema,
    loginOrCreate: loginOrCreateSmsRequestSchema,
    to: 'by SMS to a phone number',
    by: 'by SMS',
    newWhen: 'the number is new',
  },
  email: {
    send: sendEmailOtpRequestSchema,
    loginOrCreate: loginOrCreateEmailRequestSchema,
    to: 'by email to an address',
    by: 'by email',
    newWhen: 'the address is new',
  },
} as const;

const sendRoute = (name: keyof typeof CHANNEL_ROUTES) =>
  createRoute({
    method: 'post',
    path: `/v1/auth/otps/${name}/send`,
    tags: ['otps'],
    summary: `Send a passcode ${CHANNEL_ROUTES[name].to} of an existing user (user_id needs the secret key)`,
    ...policy({ key: 'public', rate: 'send', namedUser: ['user_id'] }),
    request: jsonBody(CHANNEL_ROUTES[name].send),
    responses: { 200: jsonResponse('The method the code went to', sendOtpResponseSchema), ...sendErrors },
  });

const loginOrCreateRoute = (name: keyof typeof CHANNEL_ROUTES) =>
  createRoute({
    method: 'post',
    path: `/v1/auth/otps/${name}/login_or_create`,
    tags: ['otps'],
    summary: `Send a passcode ${CHANNEL_ROUTES[name].by}, creating the user when ${CHANNEL_ROUTES[name].newWhen}`,
    // Its window is counted with the send's windows, in one step.
    ...policy({ key: 'public', rate: 'send', limitWithSend: true }),
    request: jsonBody(CHANNEL_ROUTES[name].loginOrCreate),
    responses: { 200: jsonResponse('The method the code went to', sendOtpResponseSchema), ...sendErrors },
  });

const verify = createRoute({
  method: 'post',
  path: '/v1/auth/otps/verify',
  tags: ['otps'],
  summary: 'Verify a passcode; optionally create or extend a session',
  ...policy({ key: 'public', rate: 'verify' }),
  request: jsonBody(verifyOtpRequestSchema),
  responses: {
    200: jsonResponse('The verified method and the session', verifyOtpResponseSchema),
    ...errorResponses(404, 413, 415),
  },
});

export function registerOtpRoutes(app: HttpApp, otps: OtpService) {
  const names = Object.keys(CHANNEL_ROUTES) as Array<keyof typeof CHANNEL_ROUTES>;
  // Sends of every channel first, then every login_or_create: the document's order.
  for (const name of names) {
    app.openapi(sendRoute(name), async (c) => {
      const input = withAddress(c.req.valid('json'), channels[name].field);
      return c.json(await otps.send(c.get('app').id, name, input), 200);
    });
  }
  for (const name of names) {
    app.openapi(loginOrCreateRoute(name), async (c) => {
      const input = withAddress(c.req.valid('json'), channels[name].field);
      const limits = { also: c.get('routeHit') };
      return c.json(await otps.loginOrCreate(c.get('app').id, name, input, limits), 200);
    });
  }
  app.openapi(verify, async (c) => c.json(await otps.verify(c.get('app').id, c.req.valid('json')), 200));
}

/** A channel's body with its address field (`email`, `phone_number`) as the service's `address`. */
function withAddress<B extends object>(body: B, field: 'email' | 'phone_number') {
  const { [field]: address, ...rest } = body as Record<string, unknown>;
  return { ...rest, address: address as string } as Omit<B, 'email' | 'phone_number'> & { address: string };
}
