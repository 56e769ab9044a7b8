import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { AppService } from './apps/service.js';
import { type DefaultCapabilities, defaultCapabilities } from './capabilities.js';
import { type AnyCapability, buildServices, type ReposOf, type ServicesOf } from './capability.js';
import { toBase64Url, utf8 } from './crypto/encoding.js';
import { monotonicIds } from './crypto/ids.js';
import { keyedHasher } from './crypto/keyed-hash.js';
import { LatchkeyError } from './errors.js';
import { eventHooks } from './events/hooks.js';
import { recordingStorage } from './events/recording-storage.js';
import { writeRules } from './events/storage-events.js';
import { createHttpApp } from './http/app.js';
import type { HttpApp } from './http/env.js';
import { APP_CACHE_SECONDS, createKernel } from './kernel.js';
import { consoleLogger, type Logger } from './logging/logger.js';
import { type LatchkeyOptions, latchkeyOptionsSchema } from './options.js';
import { nowSeconds, systemClock } from './ports/clock.js';
import type { KeyVault } from './ports/key-vault.js';
import { systemRandom } from './ports/random.js';
import type { Sender } from './ports/sender.js';
import type { Storage } from './ports/storage.js';
import { routeLimitCheck } from './rate-limits/route-limits.js';
import { storageRateLimiter } from './rate-limits/storage-rate-limiter.js';
import type { SessionService } from './sessions/service.js';
import { requestSpans } from './telemetry/http-spans.js';
import { tracedStorage } from './telemetry/storage-spans.js';
import { localKeyVault } from './vault/local-key-vault.js';
import { VERSION } from './version.js';

export { type DefaultCapabilities, defaultCapabilities };

/** Latchkey with the built-in capabilities: what `createLatchkey(options)` returns. */
export type Latchkey = LatchkeyWith<DefaultCapabilities>;

/**
 * Latchkey with the services of a list of capabilities, each under its name, and the HTTP API
 * over their routes.
 */
export type LatchkeyWith<C extends readonly AnyCapability[]> = C extends C
  ? { [K in keyof (ServicesOf<C> & LatchkeySurface)]: (ServicesOf<C> & LatchkeySurface)[K] }
  : never;

/** What Latchkey holds besides its services. */
export type LatchkeySurface = ReturnType<typeof surface>;

/** `createLatchkey`'s options with a list of capabilities, and the storage repos they need. */
export type CreateLatchkeyOptions<C extends readonly AnyCapability[]> = LatchkeyOptions & {
  /** The capabilities to build in place of `defaultCapabilities`, e.g. `[...defaultCapabilities, yours]`. */
  capabilities: C;
  storage: Storage & ReposOf<C>;
};

/** Names the Latchkey object keeps for itself: no capability may take one. */
const RESERVED = ['storage', 'logger', 'fetch', 'routes', 'openapi', 'close'];

/**
 * Builds Latchkey over the given ports. The result holds every service, callable directly
 * (`latchkey.users.create(appId, …)`), and `fetch`, the Web-standard handler of the `/v1` API.
 * With `capabilities`, it holds the services of those instead (capability.ts).
 */
export function createLatchkey(options: LatchkeyOptions): Latchkey;
export function createLatchkey<const C extends readonly AnyCapability[]>(
  options: CreateLatchkeyOptions<C>,
): LatchkeyWith<C>;
export function createLatchkey(
  options: LatchkeyOptions & { capabilities?: readonly AnyCapability[] },
): Record<string, unknown> {
  const opts = latchkeyOptionsSchema.parse(options);
  const capabilities: readonly AnyCapability[] = options.capabilities ?? defaultCapabilities;
  const reserved = capabilities.find((c) => RESERVED.includes(c.name));
  if (reserved)
    throw new TypeError(`Latchkey: "${reserved.name}" is not a capability name Latchkey can give.`);
  // The API-key check and CORS read Apps: there is no HTTP API without them.
  if (!capabilities.some((c) => c.name === 'apps'))
    throw new TypeError('Latchkey: the capabilities must include `apps` (defaultCapabilities[0]).');
  const clock = opts.clock ?? systemClock;
  const random = opts.random ?? systemRandom;
  const logger = opts.logger ?? consoleLogger;
  const hooks = eventHooks(
    opts.onInternalError
      ? (err) => opts.onInternalError?.(err, '')
      : (err) => logger.error({ err }, 'latchkey: an event listener failed'),
  );
  // Traced below the event recording, so the events' own writes and transactions get spans too.
  const storage = opts.tracer ? tracedStorage(opts.storage, opts.tracer) : opts.storage;
  const eventId = monotonicIds('evt', clock, random);
  const recorded = recordingStorage(
    storage,
    writeRules,
    (e) => ({ ...e, id: eventId(), created_at: nowSeconds(clock) }),
    hooks.notify,
  );
  const kernel = createKernel({
    storage: recorded.storage,
    emit: recorded.emit,
    clock,
    random,
    hasher: keyedHasher(opts.secret),
    vault: opts.keyVault ?? vaultFromSecret(opts.secret),
    sender: opts.sender ?? noSender,
    rateLimiter: opts.rateLimiter ?? storageRateLimiter(storage.rateLimits, clock),
    logger,
  });
  const { storage: _unrecorded, ...settings } = opts;
  const services = buildServices(capabilities, { kernel, options: settings, hooks });
  // Checked present above; the HTTP layer reads Apps through it.
  const apps = services.apps as AppService;
  const sessions = services.sessions as SessionService | undefined;
  // Built on the first `fetch`, `routes` or `openapi`: a host that only calls services or checks
  // sessions never holds the router, its middleware and the OpenAPI registry (a larger heap for
  // the garbage collector to walk on each of the host's own requests).
  let http: HttpApp | undefined;
  const httpApp = (): HttpApp =>
    (http ??= createHttpApp(
      {
        random: kernel.random,
        now: kernel.now,
        apps,
        appCacheSeconds: APP_CACHE_SECONDS,
        routeLimit: (route) => routeLimitCheck(kernel.rateLimiter, route),
      },
      capabilities,
      services,
      {
        maxBodyBytes: opts.http.maxBodyBytes,
        requestTimeoutMs: opts.http.requestTimeoutMs,
        version: VERSION,
        onInternalError:
          opts.onInternalError ??
          ((err, requestId) => logger.error({ err, request_id: requestId }, 'latchkey: request failed')),
        trace: opts.tracer && requestSpans(opts.tracer),
        health: sessions && (() => ({ session_revocations: sessions.revocationState() })),
      },
    ));
  // The services in the list's order, then what every Latchkey holds.
  const ordered = Object.fromEntries(
    capabilities.map((c) => [c.name, (services as Record<string, unknown>)[c.name]]),
  );
  return { ...ordered, ...surface(httpApp, opts.storage, logger, sessions) };
}

function surface(
  http: () => HttpApp,
  storage: Storage,
  logger: Logger,
  sessions: Pick<SessionService, 'closeRevocations'> | undefined,
) {
  return {
    storage,
    /** Where Latchkey logs (`options.logger`, or the console); the adapters log through it too. */
    logger,
    /** The `/v1` HTTP API as a Web-standard handler. `env.clientIp` feeds device fingerprints. */
    fetch: (request: Request, env: { clientIp?: string | undefined } = {}): Promise<Response> =>
      Promise.resolve(http().fetch(request, env)),
    /** Every route served, as `METHOD /v1/path/{param}`. */
    routes: (): string[] => [
      ...new Set(
        http()
          .routes.filter((r) => r.method !== 'ALL')
          .map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, '{$1}')}`),
      ),
    ],
    /** The OpenAPI 3.1 document of the HTTP API. */
    openapi: () =>
      http().getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'Latchkey', version: VERSION } }),
    /** Stops listening for revocations and closes the storage's connections. */
    close: async () => {
      await sessions?.closeRevocations();
      await storage.close();
    },
  };
}

/**
 * Without a configured vault, seal with a key derived from the secret: every deployment then
 * seals at rest out of the box. A configured vault is what allows master-key rotation.
 */
function vaultFromSecret(secret: string): KeyVault {
  const key = hkdf(sha256, utf8(secret), undefined, utf8('latchkey/default-vault-key'), 32);
  return localKeyVault({ keys: { 1: toBase64Url(key) }, current: 1 });
}

const noSender: Sender = {
  send: async () => {
    throw new LatchkeyError(
      'sender_unavailable',
      'No sender is configured: pass `sender` to createLatchkey.',
    );
  },
};
