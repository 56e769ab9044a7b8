import { z } from 'zod';
import { chainsOptionsSchema } from './balances/config.js';
import type { Logger } from './logging/logger.js';
import type { BreachedPasswords, PasswordHasher } from './password-auth/ports.js';
import type { Clock } from './ports/clock.js';
import type { KeyVault } from './ports/key-vault.js';
import type { RandomSource } from './ports/random.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import type { RevocationChannel } from './ports/revocation-channel.js';
import type { Sender } from './ports/sender.js';
import type { Storage } from './ports/storage.js';
import type { TelemetryTracer } from './telemetry/tracer.js';

const port = <T>(name: string, methods: string[]) =>
  z.custom<T>(
    (v) => typeof v === 'object' && v !== null && methods.every((m) => m in v),
    `${name} must be an object with ${methods.join(', ')}`,
  );

export const latchkeyOptionsSchema = z.object({
  storage: port<Storage>('storage', ['apps', 'users', 'transaction']),
  /**
   * At least 32 characters, kept secret and stable: the key of every stored hash (API keys,
   * session tokens, passcodes). Changing it invalidates all of them.
   */
  secret: z.string().min(32, 'secret must be at least 32 characters'),
  keyVault: port<KeyVault>('keyVault', ['seal', 'open']).optional(),
  sender: port<Sender>('sender', ['send']).optional(),
  rateLimiter: port<RateLimiter>('rateLimiter', ['hit']).optional(),
  clock: port<Clock>('clock', ['now']).optional(),
  random: port<RandomSource>('random', ['bytes']).optional(),
  /**
   * Hashes and checks passwords (password-auth): Argon2id at OWASP's costs through a bounded
   * queue by default (`createPasswordHasher()`); pass one for other costs or queue sizes.
   */
  passwordHasher: port<PasswordHasher>('passwordHasher', ['hash', 'verify']).optional(),
  /**
   * Refuses passwords found in a breach corpus when given (docs/passwords.md): none by default,
   * since the Pwned Passwords adapter calls out over the network.
   */
  breachedPasswords: port<BreachedPasswords>('breachedPasswords', ['isBreached']).optional(),
  /**
   * Where unexpected failures (500s) are reported, with the request id the client saw. Never
   * given request bodies, so no passcode, token or key reaches it. Defaults to `logger.error`.
   */
  onInternalError: z
    .custom<(err: unknown, requestId: string) => void>((v) => typeof v === 'function')
    .optional(),
  /**
   * Where Latchkey logs (failed requests, webhook workers, proxy hints): pino's call shape,
   * `(fields, message)`, so a pino logger is passed as it is. Defaults to the console
   * (docs/observability.md).
   */
  logger: port<Logger>('logger', ['info', 'warn', 'error']).optional(),
  /**
   * An OpenTelemetry tracer (`trace.getTracer('latchkey')`): a span per API request and per
   * storage call. Left out, nothing is traced and nothing of OpenTelemetry is loaded
   * (docs/observability.md).
   */
  tracer: port<TelemetryTracer>('tracer', ['startActiveSpan']).optional(),
  /**
   * How revocations reach the other processes, in place of the storage's own (`@latchkey/redis`'s
   * `redisRevocationChannel`, for a Postgres behind a pooler that cannot LISTEN).
   */
  revocationChannel: port<RevocationChannel>('revocationChannel', ['subscribe']).optional(),
  /** Wallet balances: RPC endpoints per chain and network, timeouts, retries, cache (docs/balances.md). */
  chains: chainsOptionsSchema,
  /** The `iss` of session JWTs. */
  jwtIssuer: z.string().min(1).max(200).optional(),
  /** Sign-in through OAuth and OpenID Connect providers (docs/oauth.md). */
  oauth: z
    .object({
      /**
       * The absolute URL at which providers reach `/v1/auth/oauth/callback`: the one redirect URI
       * to register with every provider. Without it, OAuth sign-in answers 501.
       */
      callbackUrl: z.url({ protocol: /^https?$/ }).optional(),
      /**
       * Accept `http` issuers and endpoints on loopback or private addresses (a provider in a test,
       * or on a developer's machine). The operator's decision, never an App's: off, every issuer
       * and endpoint must be `https`.
       */
      allowInsecureIssuers: z.boolean().default(false),
      /** How Latchkey calls providers (discovery, token exchange, UserInfo); the global fetch when absent. */
      fetch: z.custom<typeof fetch>((v) => typeof v === 'function').optional(),
      /** A provider call without an answer after this many milliseconds fails the sign-in (502). */
      timeoutMs: z.int().min(100).max(60_000).default(10_000),
    })
    .prefault({}),
  /** Single sign-on per organization through OpenID Connect (docs/organizations.md); calls providers as `oauth` does. */
  sso: z
    .object({
      /**
       * The absolute URL at which organizations' providers reach `/v1/auth/sso/callback`: the
       * redirect URI to register with each. Without it, SSO sign-in answers 501.
       */
      callbackUrl: z.url({ protocol: /^https?$/ }).optional(),
    })
    .prefault({}),
  webhooks: z
    .object({
      /**
       * Let webhook endpoints reach loopback, private, link-local and other non-public addresses
       * (a receiver on the host's own network, in development). The operator's decision, never
       * an App's: off, such URLs are refused at registration and every delivery to one (stored
       * earlier, or a name that resolves to one) is refused as `address_not_allowed`.
       */
      allowPrivateTargets: z.boolean().default(false),
      /**
       * How deliveries are sent. On Node the default resolves each name once and connects to the
       * address it checked (no DNS rebinding); a custom fetch resolves names itself, so pinning
       * them becomes its job (Latchkey still checks what `lookup` answers before calling it).
       */
      fetch: z.custom<typeof fetch>((v) => typeof v === 'function').optional(),
      /** An attempt without an answer after this many milliseconds counts as failed. */
      timeoutMs: z.int().min(100).max(60_000).default(10_000),
      /**
       * Attempts one App may have in flight at once, counted across every process on the
       * storage: an App's slow receivers or backlog hold at most this many of the workers' slots.
       */
      maxInFlightPerApp: z.int().min(1).max(10_000).default(10),
      /** Attempts one endpoint may have in flight at once; one while it is failing. */
      maxInFlightPerEndpoint: z.int().min(1).max(10_000).default(5),
      /**
       * Resolves a host name to its addresses for deliveries; on Node `dns.promises.lookup` with
       * `{ all: true }` when absent. Elsewhere, without it, only literal addresses are checked.
       */
      lookup: z
        .custom<(host: string) => Promise<Array<{ address: string }>>>((v) => typeof v === 'function')
        .optional(),
    })
    .prefault({}),
  http: z
    .object({
      /** Largest accepted request body, bytes. */
      maxBodyBytes: z
        .int()
        .min(1024)
        .max(64 * 1024 * 1024)
        .default(1024 * 1024),
      /** A request still unanswered after this many milliseconds gets 503 `request_timeout`. */
      requestTimeoutMs: z.int().min(1).max(600_000).default(30_000),
    })
    .prefault({}),
});

export type LatchkeyOptions = z.input<typeof latchkeyOptionsSchema>;
