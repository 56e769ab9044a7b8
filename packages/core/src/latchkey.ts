import { appService } from './apps/service.js';
import { keyedHasher } from './crypto/keyed-hash.js';
import { createHttpApp } from './http/app.js';
import { createKernel } from './kernel.js';
import { type LatchkeyOptions, latchkeyOptionsSchema } from './options.js';
import { systemClock } from './ports/clock.js';
import { systemRandom } from './ports/random.js';
import { userService } from './users/service.js';
import { VERSION } from './version.js';

export type Latchkey = ReturnType<typeof createLatchkey>;

/**
 * Builds Latchkey over the given ports. The result holds every service, callable directly
 * (`latchkey.users.create(appId, …)`), and `fetch`, the Web-standard handler of the `/v1` API.
 */
export function createLatchkey(options: LatchkeyOptions) {
  const opts = latchkeyOptionsSchema.parse(options);
  const kernel = createKernel({
    storage: opts.storage,
    clock: opts.clock ?? systemClock,
    random: opts.random ?? systemRandom,
    hasher: keyedHasher(opts.secret),
  });
  const apps = appService(kernel);
  const users = userService(kernel);
  const http = createHttpApp(
    kernel,
    { apps, users },
    { maxBodyBytes: opts.http.maxBodyBytes, version: VERSION },
  );

  return {
    apps,
    users,
    storage: opts.storage,
    /** The `/v1` HTTP API as a Web-standard handler. `env.clientIp` feeds device fingerprints. */
    fetch: (request: Request, env: { clientIp?: string } = {}): Promise<Response> =>
      Promise.resolve(http.fetch(request, env)),
    /** Every route served, as `METHOD /v1/path/{param}`. */
    routes: (): string[] => [
      ...new Set(
        http.routes
          .filter((r) => r.method !== 'ALL')
          .map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, '{$1}')}`),
      ),
    ],
    /** The OpenAPI 3.1 document of the HTTP API. */
    openapi: () =>
      http.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'Latchkey', version: VERSION } }),
    close: () => opts.storage.close(),
  };
}
