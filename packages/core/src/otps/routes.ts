import { createRoute } from '@hono/zod-openapi';
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

const sendSms = createRoute({
  method: 'post',
  path: '/v1/auth/otps/sms/send',
  tags: ['otps'],
  summary: 'Send a passcode by SMS to a phone number of an existing user (user_id needs the secret key)',
  ...policy({ key: 'public', rate: 'send', namedUser: ['user_id'] }),
  request: jsonBody(sendSmsOtpRequestSchema),
  responses: { 200: jsonResponse('The method the code went to', sendOtpResponseSchema), ...sendErrors },
});

const sendEmail = createRoute({
  method: 'post',
  path: '/v1/auth/otps/email/send',
  tags: ['otps'],
  summary: 'Send a passcode by email to an address of an existing user (user_id needs the secret key)',
  ...policy({ key: 'public', rate: 'send', namedUser: ['user_id'] }),
  request: jsonBody(sendEmailOtpRequestSchema),
  responses: { 200: jsonResponse('The method the code went to', sendOtpResponseSchema), ...sendErrors },
});

const loginOrCreateSms = createRoute({
  method: 'post',
  path: '/v1/auth/otps/sms/login_or_create',
  tags: ['otps'],
  summary: 'Send a passcode by SMS, creating the user when the number is new',
  ...policy({ key: 'public', rate: 'send' }),
  request: jsonBody(loginOrCreateSmsRequestSchema),
  responses: { 200: jsonResponse('The method the code went to', sendOtpResponseSchema), ...sendErrors },
});

const loginOrCreateEmail = createRoute({
  method: 'post',
  path: '/v1/auth/otps/email/login_or_create',
  tags: ['otps'],
  summary: 'Send a passcode by email, creating the user when the address is new',
  ...policy({ key: 'public', rate: 'send' }),
  request: jsonBody(loginOrCreateEmailRequestSchema),
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
  app.openapi(sendSms, async (c) => {
    const { phone_number, ...rest } = c.req.valid('json');
    return c.json(await otps.send(c.get('app').id, 'sms', { address: phone_number, ...rest }), 200);
  });
  app.openapi(sendEmail, async (c) => {
    const { email, ...rest } = c.req.valid('json');
    return c.json(await otps.send(c.get('app').id, 'email', { address: email, ...rest }), 200);
  });
  app.openapi(loginOrCreateSms, async (c) => {
    const { phone_number, ...rest } = c.req.valid('json');
    return c.json(await otps.loginOrCreate(c.get('app').id, 'sms', { address: phone_number, ...rest }), 200);
  });
  app.openapi(loginOrCreateEmail, async (c) => {
    const { email, ...rest } = c.req.valid('json');
    return c.json(await otps.loginOrCreate(c.get('app').id, 'email', { address: email, ...rest }), 200);
  });
  app.openapi(verify, async (c) => c.json(await otps.verify(c.get('app').id, c.req.valid('json')), 200));
}
