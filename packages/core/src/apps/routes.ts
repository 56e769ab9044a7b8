import { createRoute } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import { appViewSchema, settingsPatchSchema } from './schema.js';
import { type AppService, appView } from './service.js';

const getApp = createRoute({
  method: 'get',
  path: '/v1/app',
  tags: ['app'],
  summary: "Read the calling App's name and settings",
  ...policy({ key: 'secret' }),
  responses: { 200: jsonResponse('The App', appViewSchema), ...errorResponses(403) },
});

const patchSettings = createRoute({
  method: 'patch',
  path: '/v1/app/settings',
  tags: ['app'],
  summary: "Change the calling App's settings (JSON merge patch: given fields change, null resets)",
  ...policy({ key: 'secret' }),
  request: jsonBody(settingsPatchSchema),
  responses: {
    200: jsonResponse('The App with its new settings', appViewSchema),
    ...errorResponses(403, 413, 415),
  },
});

export function registerAppRoutes(app: HttpApp, apps: AppService) {
  app.openapi(getApp, async (c) => c.json(appView(await apps.get(c.get('app').id)), 200));
  app.openapi(patchSettings, async (c) => {
    c.req.valid('json');
    // The raw body, not the validated copy: zod drops keys such as `__proto__`, which must be
    // refused as unknown settings rather than ignored.
    return c.json(appView(await apps.patchSettings(c.get('app').id, await c.req.json())), 200);
  });
}
