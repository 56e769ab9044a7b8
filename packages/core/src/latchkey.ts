import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { appService } from './apps/service.js';
import { chainClients } from './balances/chain-clients.js';
import { balanceService } from './balances/service.js';
import { toBase64Url, utf8 } from './crypto/encoding.js';
import { monotonicIds } from './crypto/ids.js';
import { keyedHasher } from './crypto/keyed-hash.js';
import { LatchkeyError } from './errors.js';
import { eventHooks } from './events/hooks.js';
import { recordingStorage } from './events/recording-storage.js';
import { eventService } from './events/service.js';
import { writeRules } from './events/storage-events.js';
import { createHttpApp } from './http/app.js';
import { createKernel } from './kernel.js';
import { magicLinkService } from './magic-links/service.js';
import { type LatchkeyOptions, latchkeyOptionsSchema } from './options.js';
import { otpService } from './otps/service.js';
import { passwordService } from './passwords/service.js';
import { nowSeconds, systemClock } from './ports/clock.js';
import type { KeyVault } from './ports/key-vault.js';
import { systemRandom } from './ports/random.js';
import type { Sender } from './ports/sender.js';
import { storageRateLimiter } from './rate-limits/storage-rate-limiter.js';
import { DEFAULT_JWT_ISSUER } from './sessions/jwt.js';
import { sessionService } from './sessions/service.js';
import { signingKeys } from './sessions/signing-keys.js';
import { totpService } from './totps/service.js';
import { userService } from './users/service.js';
import { localKeyVault } from './vault/local-key-vault.js';
import { VERSION } from './version.js';
import { walletAuthService } from './wallet-auth/service.js';
import { walletPolicyService } from './wallet-policies/service.js';
import { walletService } from './wallets/service.js';
import { webauthnService } from './webauthn/service.js';
import { webhookDelivery } from './webhooks/delivery.js';
import { webhookService } from './webhooks/service.js';

export type Latchkey = ReturnType<typeof createLatchkey>;

/**
 * Builds Latchkey over the given ports. The result holds every service, callable directly
 * (`latchkey.users.create(appId, …)`), and `fetch`, the Web-standard handler of the `/v1` API.
 */
export function createLatchkey(options: LatchkeyOptions) {
  const opts = latchkeyOptionsSchema.parse(options);
  const clock = opts.clock ?? systemClock;
  const random = opts.random ?? systemRandom;
  const hooks = eventHooks(opts.onInternalError ? (err) => opts.onInternalError?.(err, '') : logHookError);
  const eventId = monotonicIds('evt', clock, random);
  const recorded = recordingStorage(
    opts.storage,
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
    rateLimiter: opts.rateLimiter ?? storageRateLimiter(opts.storage.rateLimits, clock),
  });
  const apps = appService(kernel);
  const users = userService(kernel);
  const sessions = sessionService(kernel, signingKeys(kernel, kernel.vault), {
    issuer: opts.jwtIssuer ?? DEFAULT_JWT_ISSUER,
  });
  const otps = otpService(kernel, sessions);
  const magicLinks = magicLinkService(kernel, sessions);
  const totps = totpService(kernel, sessions);
  const walletPolicies = walletPolicyService(kernel);
  const wallets = walletService(kernel, { signUnder: walletPolicies.signUnder });
  const webauthn = webauthnService(kernel, sessions);
  const walletAuth = walletAuthService(kernel, sessions);
  const passwords = passwordService(kernel);
  const balances = balanceService(kernel, chainClients(opts.chains, clock));
  const events = eventService(kernel, hooks);
  const webhooks = webhookService(kernel);
  const delivery = webhookDelivery(kernel, {
    fetch: opts.webhooks.fetch ?? ((input, init) => fetch(input, init)),
    timeoutMs: opts.webhooks.timeoutMs,
    lookup: opts.webhooks.lookup,
    userAgent: `Latchkey-Webhooks/${VERSION}`,
  });
  const http = createHttpApp(
    kernel,
    {
      apps,
      users,
      sessions,
      otps,
      magicLinks,
      totps,
      webauthn,
      wallets,
      walletPolicies,
      balances,
      walletAuth,
      passwords,
      events,
      webhooks,
    },
    {
      maxBodyBytes: opts.http.maxBodyBytes,
      requestTimeoutMs: opts.http.requestTimeoutMs,
      version: VERSION,
      onInternalError: opts.onInternalError ?? logInternalError,
    },
  );

  return {
    apps,
    users,
    sessions,
    otps,
    magicLinks,
    totps,
    webauthn,
    wallets,
    walletPolicies,
    balances,
    walletAuth,
    passwords,
    /** The App's events: `events.on(type, handler)` listens in-process, after commit. */
    events,
    /**
     * Webhook endpoints, and their delivery: `webhooks.startDelivery()` in each server process
     * (any number may run on one database), or `webhooks.deliverDue()` from a job runner.
     */
    webhooks: { ...webhooks, deliverDue: delivery.deliverDue, startDelivery: delivery.start },
    storage: opts.storage,
    /** The `/v1` HTTP API as a Web-standard handler. `env.clientIp` feeds device fingerprints. */
    fetch: (request: Request, env: { clientIp?: string | undefined } = {}): Promise<Response> =>
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

/**
 * Without a configured vault, seal with a key derived from the secret: every deployment then
 * seals at rest out of the box. A configured vault is what allows master-key rotation.
 */
function vaultFromSecret(secret: string): KeyVault {
  const key = hkdf(sha256, utf8(secret), undefined, utf8('latchkey/default-vault-key'), 32);
  return localKeyVault({ keys: { 1: toBase64Url(key) }, current: 1 });
}

const logHookError = (err: unknown) => {
  console.error('latchkey: an event listener failed:', err);
};

const logInternalError = (err: unknown, requestId: string) => {
  console.error(`latchkey: request ${requestId} failed:`, err);
};

const noSender: Sender = {
  send: async () => {
    throw new LatchkeyError(
      'sender_unavailable',
      'No sender is configured: pass `sender` to createLatchkey.',
    );
  },
};
