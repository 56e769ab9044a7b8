import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { routeMountSuite } from '../../../test/host-sessions/routes-suite.js';
import { hostSessionSuite, type Mount, whoBody } from '../../../test/host-sessions/suite.js';
import {
  type LatchkeyEnv,
  latchkeyRoutes,
  optionalSession,
  requireSession,
  revokeSession,
} from '../src/index.js';

/** The shared host-session suite's app, written as a Hono integrator writes one, served by @hono/node-server. */
const mountHono: Mount = (latchkey, spec) => {
  const h = new Hono<LatchkeyEnv>();
  h.route(
    '/auth',
    latchkeyRoutes(latchkey, { cookies: spec.routerCookies ?? true, trustProxy: spec.trustProxy }),
  );
  for (const { method, path, guard, options } of spec.routes) {
    const methods =
      method === 'ALL' ? ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] : [method];
    const sessionOptions = { ...options, trustProxy: spec.trustProxy };
    if (guard === 'revoke') h.on(methods, path, revokeSession(latchkey, sessionOptions));
    else {
      const session = guard === 'require' ? requireSession : optionalSession;
      h.on(methods, path, session(latchkey, sessionOptions), (c) => c.json(whoBody(c.var.auth)));
    }
  }
  return getRequestListener(h.fetch);
};

hostSessionSuite('Hono', mountHono);

routeMountSuite(
  'Hono',
  (latchkey) => {
    const h = new Hono<LatchkeyEnv>();
    h.route('/auth', latchkeyRoutes(latchkey));
    h.get('/me', requireSession(latchkey), (c) => c.json({ user_id: c.var.auth?.user_id }));
    h.post('/own', async (c) => c.json(await c.req.json()));
    return getRequestListener(h.fetch);
  },
  { earlyAnswerResetsConnection: true },
);
