import Fastify from 'fastify';
import { routeMountSuite } from '../../../test/host-sessions/routes-suite.js';
import { hostSessionSuite, type Mount, whoBody } from '../../../test/host-sessions/suite.js';
import { latchkeyPlugin, optionalSession, requireSession, revokeSession } from '../src/index.js';

/** The shared host-session suite's app, written as a Fastify integrator writes one. */
const mountFastify: Mount = async (latchkey, spec) => {
  const f = Fastify(spec.trustProxy ? { trustProxy: 'loopback' } : {});
  await f.register(latchkeyPlugin, { latchkey, prefix: '/auth', cookies: spec.routerCookies ?? true });
  for (const { method, path, guard, options } of spec.routes) {
    const methods =
      method === 'ALL' ? ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] : [method];
    if (guard === 'revoke')
      f.route({ method: methods, url: path, handler: revokeSession(latchkey, options) });
    else
      f.route({
        method: methods,
        url: path,
        onRequest: (guard === 'require' ? requireSession : optionalSession)(latchkey, options),
        handler: async (request) => whoBody(request.auth),
      });
  }
  await f.ready();
  return f.server;
};

hostSessionSuite('Fastify', mountFastify);

routeMountSuite('Fastify', async (latchkey) => {
  const f = Fastify();
  await f.register(latchkeyPlugin, { latchkey, prefix: '/auth' });
  f.get('/me', { onRequest: requireSession(latchkey) }, async (request) => ({
    user_id: request.auth?.user_id,
  }));
  f.post('/own', async (request) => request.body);
  await f.ready();
  return f.server;
});
