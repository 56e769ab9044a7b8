import type { Context } from 'hono';
import type { HttpEnv, HttpVariables } from './env.js';
import type { RouteInfo } from './route-table.js';

export interface CorsOptions {
  route: (method: string, path: string) => RouteInfo | undefined;
  /** Every App (for preflights, which carry no key and so name no App). */
  listApps: () => Promise<Array<HttpVariables['app']>>;
  /** Unix seconds, for how long the union of allowed origins is kept. */
  now: () => number;
  cacheSeconds: number;
}

const ALLOWED_HEADERS = 'authorization, content-type';
const EXPOSED_HEADERS = 'retry-after, x-request-id';
const MAX_AGE_SECONDS = '600';

/**
 * Cross-origin calls from browsers, for the routes that take the public token only: an origin
 * gets `Access-Control-Allow-Origin` (its own, never `*`) when the App of the public token lists
 * it in `settings.cors.allowed_origins`. Nothing is allowed with credentials: the key travels in
 * the Authorization header, which the page sets itself. A preflight names no App, so it is
 * answered for an origin that any App lists; the answer to the real call then decides.
 */
export function corsPolicy(options: CorsOptions) {
  const anyAppAllows = unionOfOrigins(options);
  /** The answer to a preflight, or undefined when the request is none. */
  const preflight = async (
    c: Context<HttpEnv>,
    origin: string | undefined,
  ): Promise<Response | undefined> => {
    if (origin === undefined || c.req.method !== 'OPTIONS') return undefined;
    const requested = c.req.header('access-control-request-method');
    if (requested !== undefined) {
      const route = options.route(requested, c.req.path);
      const headers = new Headers({
        vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      });
      if (route?.publicToken && (await anyAppAllows(origin))) {
        headers.set('access-control-allow-origin', origin);
        headers.set('access-control-allow-methods', route.key.split(' ')[0]!);
        headers.set('access-control-allow-headers', ALLOWED_HEADERS);
        headers.set('access-control-max-age', MAX_AGE_SECONDS);
      }
      // Without the allow headers the browser refuses the call; the status does not matter to it.
      return c.body(null, 204, Object.fromEntries(headers));
    }
    return undefined;
  };
  /** After the route: lets an allowed origin read the answer. */
  const answer = async (c: Context<HttpEnv>, origin: string | undefined): Promise<void> => {
    if (origin === undefined || !options.route(c.req.method, c.req.path)?.publicToken) return;
    c.res.headers.append('vary', 'Origin');
    const app = c.get('app');
    // A known App decides for itself, and only for its public token: a secret key has no place
    // in a browser. Before the key is known (a 401), any App's origin may read the error.
    const allowed = app ? c.get('keyKind') === 'public' && allows(app, origin) : await anyAppAllows(origin);
    if (!allowed) return;
    c.res.headers.set('access-control-allow-origin', origin);
    c.res.headers.set('access-control-expose-headers', EXPOSED_HEADERS);
  };
  return { preflight, answer };
}

const allows = (app: HttpVariables['app'], origin: string) =>
  app.settings.cors.allowed_origins.includes(origin);

function unionOfOrigins(options: CorsOptions): (origin: string) => Promise<boolean> {
  let cached: { origins: Set<string>; until: number } | undefined;
  let loading: Promise<Set<string>> | undefined;
  return async (origin) => {
    if (!cached || cached.until <= options.now()) {
      loading ??= options
        .listApps()
        .then((apps) => new Set(apps.flatMap((a) => a.settings.cors.allowed_origins)))
        .finally(() => {
          loading = undefined;
        });
      cached = { origins: await loading, until: options.now() + options.cacheSeconds };
    }
    return cached.origins.has(origin);
  };
}
