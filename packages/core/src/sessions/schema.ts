import { z } from '@hono/zod-openapi';
import { factorSchema } from '../shared/factor.js';
import { FACTOR_TYPES } from './step-up.js';

/** The session fields every proof-of-identity endpoint takes, with the spec's three rules. */
export const sessionFieldsSchema = {
  session_expires_in: z.int().min(5).max(525_600).optional().openapi({
    description: 'Minutes: creates a session (or extends the one sent) lasting this long from now.',
  }),
  session_token: z.string().min(1).max(200).optional(),
  session_jwt: z.string().min(1).max(8000).optional(),
};

export const sessionSchema = z
  .object({
    id: z.string(),
    user_id: z.string(),
    session_token: z.string().optional().openapi({ description: 'Present when the caller holds it.' }),
    started_at: z.int(),
    expires_at: z.int(),
    last_active_at: z.int(),
    factors: z.array(factorSchema),
    device_fingerprint: z.object({ user_agent: z.string(), ip: z.string() }),
    updated_at: z.int(),
    created_at: z.int(),
    organization_id: z.string().optional().openapi({
      description: 'The organization the session is scoped to (`/v1/organizations/{id}/sessions/exchange`).',
    }),
  })
  .openapi('Session');

export type Session = z.infer<typeof sessionSchema>;

/** What a proof-of-identity endpoint adds to its response when a session was created or extended. */
export const issuedSessionSchema = {
  session_token: z.string().optional(),
  session_jwt: z.string().optional(),
  session: sessionSchema.optional(),
};

export const authenticateSessionRequestSchema = z
  .strictObject({
    session_token: z.string().min(1).max(200).optional(),
    session_jwt: z.string().min(1).max(8000).optional(),
    session_expires_in: sessionFieldsSchema.session_expires_in,
  })
  .openapi('AuthenticateSessionRequest');

export const authenticateSessionResponseSchema = z
  .object({
    user_id: z.string(),
    session_token: z.string().optional(),
    session_jwt: z.string(),
    session: sessionSchema,
  })
  .openapi('AuthenticateSessionResponse');

export const revokeSessionRequestSchema = z
  .strictObject({
    session_id: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .openapi({
        description:
          'The session to end: alone with the secret key (any session of the App), or beside the ' +
          "caller's session_token or session_jwt (a session of the caller's own user).",
      }),
    session_token: z.string().min(1).max(200).optional(),
    session_jwt: z.string().min(1).max(8000).optional(),
  })
  .openapi('RevokeSessionRequest');

const currentField = z.boolean().openapi({
  description: "Whether the caller's own session (the one its token or JWT names) was among those ended.",
});

export const revokeSessionResponseSchema = z
  .object({ message: z.string(), session_id: z.string(), user_id: z.string(), current: currentField })
  .openapi('RevokeSessionResponse');

export const revokeAllSessionsRequestSchema = z
  .strictObject({
    user_id: z.string().min(1).max(100).optional().openapi({ description: 'With the secret key.' }),
    session_token: z.string().min(1).max(200).optional(),
    session_jwt: z.string().min(1).max(8000).optional(),
    except_current: z.boolean().optional().openapi({
      description: 'With a session token or JWT: keep that session ("sign out my other devices").',
    }),
    except_session_id: z.string().min(1).max(100).optional().openapi({
      description: 'With user_id: keep this session of the user.',
    }),
  })
  .openapi('RevokeAllSessionsRequest');

export const revokeAllSessionsResponseSchema = z
  .object({
    message: z.string(),
    user_id: z.string(),
    session_ids: z.array(z.string()).openapi({ description: 'The sessions this call ended.' }),
    current: currentField,
  })
  .openapi('RevokeAllSessionsResponse');

export const listSessionsQuerySchema = z.strictObject({
  user_id: z.string().min(1).max(100).optional().openapi({ description: 'With the secret key.' }),
  session_token: z.string().min(1).max(200).optional().openapi({
    description: "The caller's session: lists its user's sessions (public token or secret key).",
  }),
  session_jwt: z.string().min(1).max(8000).optional(),
});

export type ListSessionsInput = z.input<typeof listSessionsQuerySchema>;

export const listedSessionSchema = sessionSchema
  .omit({ session_token: true })
  .extend({
    device_label: z.string().openapi({
      description: 'A coarse label from the user agent, e.g. "Chrome on macOS".',
    }),
    current: z.boolean().openapi({ description: "Whether this is the caller's own session." }),
  })
  .openapi('ListedSession');

export type ListedSession = z.infer<typeof listedSessionSchema>;

export const listSessionsResponseSchema = z
  .object({ sessions: z.array(listedSessionSchema) })
  .openapi('ListSessionsResponse');

export const revocationsQuerySchema = z.strictObject({
  since: z.coerce.number().int().min(0).max(1e11).optional().openapi({
    description:
      "Unix seconds: revocations at or after it. Left out, or older than the App's JWT lifetime: from as far back as a JWT can still be live.",
  }),
});

export const revocationsResponseSchema = z
  .object({
    revocations: z.array(z.object({ session_id: z.string(), revoked_at: z.number().int() })),
    since: z.number().int().openapi({ description: 'Where this answer starts (Unix seconds).' }),
    until: z.number().int().openapi({
      description: 'The time of this answer: the next poll sends it (less a few seconds) as `since`.',
    }),
  })
  .openapi('SessionRevocations');

export const jwksSchema = z
  .object({
    keys: z.array(z.looseObject({ kid: z.string(), kty: z.string(), alg: z.string(), use: z.string() })),
  })
  .openapi('JWKS');

export const sessionCheckInputSchema = z.strictObject({
  app_id: z.string().min(1).max(100),
  session_token: z.string().min(1).max(200).optional(),
  session_jwt: z.string().min(1).max(8000).optional(),
  /**
   * `jwt`: the JWT's signature only, no storage (revocation lags by up to the JWT's lifetime);
   * `token`: storage is read, so revocation takes effect at once. A session token is always
   * checked against storage. Default: `jwt` for a JWT, `token` for a token.
   */
  mode: z.enum(['jwt', 'token']).optional(),
  /**
   * Step-up: refuse with `step_up_required` unless a factor (one of `factors`, when given) was
   * proven on the session within this many seconds, or `'30s'`, `'5m'`, `'1h'`.
   */
  fresh_within: z.union([z.int().min(0), z.string().regex(/^\d{1,7}[smhd]$/)]).optional(),
  /** Step-up: refuse with `step_up_required` unless the session holds one of these kinds of factor. */
  factors: z.array(z.enum(FACTOR_TYPES)).min(1).max(FACTOR_TYPES.length).optional(),
});

export type SessionCheckInput = z.input<typeof sessionCheckInputSchema>;
export type SessionCheckMode = NonNullable<SessionCheckInput['mode']>;

export const sessionCheckSchema = z.object({
  app_id: z.string(),
  user_id: z.string(),
  session_id: z.string(),
  factors: z.array(factorSchema),
  /** Unix seconds: the last time the user proved a factor on this session (the latest factor's). */
  auth_time: z.int(),
  /** Unix seconds: the session's end when storage was read, the JWT's `exp` in jwt mode. */
  expires_at: z.int(),
  /** A session scoped to an organization (docs/organizations.md): its id. */
  organization_id: z.string().optional(),
  /** The member's roles: from storage in token mode, the JWT's claims in jwt mode. */
  roles: z.array(z.string()).optional(),
  /** What those roles grant in the App's roles settings; `*` (an owner's) is every permission. */
  permissions: z.array(z.string()).optional(),
});

/** Who a checked request comes from: `latchkey.sessions.check`, `req.auth` in the adapters. */
export type SessionCheck = z.infer<typeof sessionCheckSchema>;
