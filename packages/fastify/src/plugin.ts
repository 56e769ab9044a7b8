import {
  cookiesForApiAnswer,
  type Latchkey,
  resolveCookieOptions,
  type SessionCookieOptions,
} from '@latchkey/core';
import { answerError, settleUnreadBody, unservableRequest, webRequest } from '@latchkey/core/node';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { appendCookies, fastifyCookieSite } from './session.js';

export interface LatchkeyPluginOptions {
  /** The latchkey instance (`createLatchkey`) whose `/v1` routes to serve. */
  latchkey: Pick<Latchkey, 'fetch'>;
  /** Where the `/v1` routes go: `'/auth'` serves `/auth/v1/...`. Default: the root. */
  prefix?: string;
  /**
   * Opt-in session cookies: a successful sign-in or `sessions/authenticate` sets the session
   * token and JWT cookies; a successful `sessions/revoke` clears them. Pass the same value to
   * `requireSession`, which reads them.
   */
  cookies?: boolean | SessionCookieOptions;
}

/**
 * Latchkey as a Fastify plugin: `app.register(latchkeyPlugin, { latchkey, prefix: '/auth' })`.
 * It declares `request.auth` (null until a session hook sets it) for the whole app, and serves
 * the `/v1` routes in a context of their own whose one body parser hands the stream over
 * unread: the core reads it with its own limits and answers its own 400/413/415, exactly as on
 * any other host, and the app's own parsers are left as they are.
 */
export function latchkeyPlugin(
  fastify: FastifyInstance,
  options: LatchkeyPluginOptions,
  done: (err?: Error) => void,
) {
  if (!fastify.hasRequestDecorator('auth')) fastify.decorateRequest('auth', null);
  const prefix = (options.prefix ?? '').replace(/\/$/, '');
  fastify.register(
    (routes, _opts, registered) => {
      routes.removeAllContentTypeParsers();
      routes.addContentTypeParser('*', (_request, _payload, parsed) => parsed(null, undefined));
      const serve = apiHandler(options.latchkey, prefix, options.cookies);
      routes.all('/v1', serve);
      routes.all('/v1/*', serve);
      registered();
    },
    { prefix },
  );
  done();
}

// Like fastify-plugin: the decorator and the app's hooks stay visible to the app that registers it.
Object.assign(latchkeyPlugin, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: '@latchkey/fastify',
  [Symbol.for('plugin-meta')]: { name: '@latchkey/fastify', fastify: '5.x' },
});

function apiHandler(
  core: Pick<Latchkey, 'fetch'>,
  prefix: string,
  cookieOption: LatchkeyPluginOptions['cookies'],
) {
  const cookies = resolveCookieOptions(cookieOption);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const { raw } = request;
    const refused = unservableRequest(raw);
    if (refused) {
      reply.hijack();
      settleUnreadBody(raw, reply.raw);
      answerError(reply.raw, refused.status, refused.error_type, refused.error_message, {
        ...(refused.error_field ? { error_field: refused.error_field } : {}),
      });
      return reply;
    }
    const target = (raw.url ?? '/').slice(prefix.length);
    const url = `${request.protocol}://${request.host || 'localhost'}${target}`;
    const response = await core.fetch(webRequest(raw, url), { clientIp: request.ip });
    // Answered before the body was read (413, 415, 401…): the connection must stay usable.
    settleUnreadBody(raw, reply.raw);
    const body = await bodyOf(response);
    if (cookies && request.method === 'POST' && response.status === 200 && typeof body === 'string')
      appendCookies(
        reply,
        cookiesForApiAnswer(cookies, fastifyCookieSite(request), new URL(url).pathname, body),
      );
    reply.code(response.status);
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie' && name !== 'content-length') reply.header(name, value);
    });
    for (const value of response.headers.getSetCookie()) reply.header('set-cookie', value);
    return reply.send(body);
  };
}

const TEXT_TYPE = /^(?:application\/(?:[\w.+-]+\+)?json|text\/)/i;

/** A JSON or text answer as its text (sent as it is), anything else as bytes; none as undefined. */
async function bodyOf(response: Response): Promise<string | Buffer | undefined> {
  if (TEXT_TYPE.test(response.headers.get('content-type') ?? '')) return (await response.text()) || undefined;
  if (response.body) return Buffer.from(await response.arrayBuffer());
  return undefined;
}
