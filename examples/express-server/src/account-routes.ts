import {
  type AppKeys,
  bearerCredential,
  errorBody,
  type Latchkey,
  LatchkeyError,
  newRequestId,
  systemRandom,
} from '@latchkey/core';
import { latchkeyErrorHandler, requireSession } from '@latchkey/express';
import express, { type Request, type Response, Router } from 'express';

export const ACCOUNT_TOTP = '/account/totp';
export const ACCOUNT_ORGANIZATION = '/account/organization';

/**
 * The host's own routes for TOTP, as a real backend offers them: Latchkey's TOTP routes take the
 * secret key, so the browser asks here and the host acts for the signed-in user only
 * (`requireSession`), never for a user_id the browser names. @latchkey/client's `totp` helpers
 * call these paths.
 */
export function accountRoutes(latchkey: Latchkey, keys: AppKeys): Router {
  const router = Router();
  const signedIn = requireSession(latchkey, { app_id: keys.app_id, mode: 'token' });
  const json = express.json({ limit: '16kb' });
  const appId = keys.app_id;

  const handle =
    (action: (req: Request, userId: string) => Promise<unknown>) => async (req: Request, res: Response) => {
      try {
        res.json(await action(req, req.auth!.user_id));
      } catch (err) {
        const e = err instanceof LatchkeyError ? err : new LatchkeyError('internal_error');
        if (e.retryAfter !== undefined) res.set('retry-after', String(Math.max(1, Math.ceil(e.retryAfter))));
        res.status(e.status).json(errorBody(e, newRequestId(systemRandom)));
      }
    };
  const text = (req: Request, field: string): string => {
    const value = (req.body as Record<string, unknown> | undefined)?.[field];
    if (typeof value !== 'string' || value === '' || value.length > 64)
      throw new LatchkeyError(value === undefined ? 'missing_field' : 'invalid_field', undefined, {
        field,
      });
    return value;
  };
  /** The session the request came with, so the TOTP factor joins that very session. */
  const session = (req: Request) => {
    const minutes = (req.body as { session_expires_in?: unknown }).session_expires_in;
    return {
      ...bearerCredential(req.headers.authorization),
      ...(typeof minutes === 'number' && Number.isInteger(minutes) ? { session_expires_in: minutes } : {}),
    };
  };

  router.post(
    ACCOUNT_TOTP,
    signedIn,
    json,
    handle((_req, user_id) => latchkey.totps.create(appId, { user_id })),
  );
  router.post(
    `${ACCOUNT_TOTP}/verify`,
    signedIn,
    json,
    handle((req, user_id) => latchkey.totps.verify(appId, { user_id, totp_code: text(req, 'totp_code') })),
  );
  router.post(
    `${ACCOUNT_TOTP}/authenticate`,
    signedIn,
    json,
    handle((req, user_id) =>
      latchkey.totps.authenticate(appId, { user_id, totp_code: text(req, 'totp_code'), ...session(req) }),
    ),
  );
  router.post(
    `${ACCOUNT_TOTP}/recover`,
    signedIn,
    json,
    handle((req, user_id) =>
      latchkey.totps.recover(appId, { user_id, recovery_code: text(req, 'recovery_code'), ...session(req) }),
    ),
  );
  // A route only a session of an organization reaches (an SSO sign-in's, or an exchange's),
  // answered from the JWT's claims alone: 403 `permission_denied` for a session of none.
  router.get(
    ACCOUNT_ORGANIZATION,
    requireSession(latchkey, { app_id: appId, mode: 'jwt', organization: true }),
    (req, res) => {
      const { user_id, organization_id, roles, permissions } = req.auth!;
      res.json({ user_id, organization_id, roles, permissions });
    },
  );
  // A body that is not JSON answers in the documented error shape too.
  router.use(ACCOUNT_TOTP, latchkeyErrorHandler());
  return router;
}
