import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { timeout } from 'hono/timeout';
import { registerAppRoutes } from '../apps/routes.js';
import type { AppService } from '../apps/service.js';
import { registerBalanceRoutes } from '../balances/routes.js';
import type { BalanceService } from '../balances/service.js';
import { LatchkeyError } from '../errors.js';
import { registerEventRoutes } from '../events/routes.js';
import type { EventService } from '../events/service.js';
import { APP_CACHE_SECONDS, type Kernel } from '../kernel.js';
import { registerMagicLinkRoutes } from '../magic-links/routes.js';
import type { MagicLinkService } from '../magic-links/service.js';
import { registerOtpRoutes } from '../otps/routes.js';
import type { OtpService } from '../otps/service.js';
import { registerPasswordRoutes } from '../passwords/routes.js';
import type { PasswordService } from '../passwords/service.js';
import { routeLimitMiddleware } from '../rate-limits/route-limits.js';
import { registerSessionRoutes } from '../sessions/routes.js';
import type { SessionService } from '../sessions/service.js';
import { registerTotpRoutes } from '../totps/routes.js';
import type { TotpService } from '../totps/service.js';
import { registerUserRoutes } from '../users/routes.js';
import type { UserService } from '../users/service.js';
import { registerWalletAuthRoutes } from '../wallet-auth/routes.js';
import type { WalletAuthService } from '../wallet-auth/service.js';
import { registerWalletPolicyRoutes } from '../wallet-policies/routes.js';
import type { WalletPolicyService } from '../wallet-policies/service.js';
import { registerWalletRoutes } from '../wallets/routes.js';
import type { WalletService } from '../wallets/service.js';
import { registerWebAuthnRoutes } from '../webauthn/routes.js';
import type { WebAuthnService } from '../webauthn/service.js';
import { registerWebhookRoutes } from '../webhooks/routes.js';
import type { WebhookService } from '../webhooks/service.js';
import { corsMiddleware } from './cors.js';
import type { HttpApp, HttpEnv } from './env.js';
import { errorResponse } from './error-body.js';
import {
  apiKeyMiddleware,
  jsonBodyMiddleware,
  requestIdMiddleware,
  urlTextMiddleware,
} from './middleware.js';
import { routeTable } from './route-table.js';
import { securityHeadersMiddleware } from './security-headers.js';
import { OPENAPI_ROUTE, registerSystemRoutes } from './system-routes.js';
import { useTextResponses } from './text-response.js';
import { validationError } from './validation-hook.js';

export interface HttpServices {
  apps: AppService;
  users: UserService;
  sessions: SessionService;
  otps: OtpService;
  magicLinks: MagicLinkService;
  totps: TotpService;
  wallets: WalletService;
  walletPolicies: WalletPolicyService;
  balances: BalanceService;
  webauthn: WebAuthnService;
  walletAuth: WalletAuthService;
  passwords: PasswordService;
  events: EventService;
  webhooks: WebhookService;
}

export interface HttpOptions {
  maxBodyBytes: number;
  /** A request still unanswered after this long gets 503 `request_timeout`. */
  requestTimeoutMs: number;
  version: string;
  onInternalError: (err: unknown, requestId: string) => void;
}

export function createHttpApp(k: Kernel, services: HttpServices, options: HttpOptions): HttpApp {
  const app: HttpApp = new OpenAPIHono<HttpEnv>({
    defaultHook: async (result, c) => {
      if (!result.success)
        throw validationError(result.error, result.target, await validatedInput(c, result.target));
    },
  });

  const route = routeTable(app, [OPENAPI_ROUTE]);
  app.use('*', async (c, next) => {
    useTextResponses(c);
    return next();
  });
  app.use('*', requestIdMiddleware(k.random));
  app.use('*', securityHeadersMiddleware);
  // Inside the request id and headers, so its answer carries both: turns the not-found answer for a known path into a 405.
  app.use(
    '*',
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) => {
        const res = errorResponse(c, new LatchkeyError('method_not_allowed'));
        res.headers.set('allow', methods.join(', '));
        return res;
      },
    }),
  );
  app.use(
    '/v1/*',
    corsMiddleware({ route, listApps: services.apps.list, now: k.now, cacheSeconds: APP_CACHE_SECONDS }),
  );
  // Hono's timeout rejects with an HTTPException; onError answers with the Latchkey error inside.
  // The work under way is not cancelled, so the request may still take effect: the error says so.
  app.use('/v1/*', timeout(options.requestTimeoutMs, timedOut));
  app.use('/v1/*', urlTextMiddleware);
  app.use('/v1/*', apiKeyMiddleware(services.apps, route.isOpen));
  app.use('/v1/*', jsonBodyMiddleware(options.maxBodyBytes));
  app.use('/v1/*', routeLimitMiddleware(k.rateLimiter, route));

  registerSystemRoutes(app, { version: options.version });
  registerAppRoutes(app, services.apps);
  registerUserRoutes(app, services.users);
  registerOtpRoutes(app, services.otps);
  registerMagicLinkRoutes(app, services.magicLinks);
  registerTotpRoutes(app, services.totps);
  registerSessionRoutes(app, services.sessions);
  registerWalletPolicyRoutes(app, services.walletPolicies);
  registerWalletRoutes(app, services.wallets);
  registerBalanceRoutes(app, services.balances);
  registerWebAuthnRoutes(app, services.webauthn);
  registerWalletAuthRoutes(app, services.walletAuth);
  registerPasswordRoutes(app, services.passwords);
  registerEventRoutes(app, services.events);
  registerWebhookRoutes(app, services.webhooks);

  app.notFound((c) => errorResponse(c, new LatchkeyError('route_not_found')));
  app.onError((thrown, c) => {
    const err =
      thrown instanceof HTTPException && thrown.cause instanceof LatchkeyError ? thrown.cause : thrown;
    if (err instanceof HTTPException && err.status === 400) {
      return errorResponse(c, new LatchkeyError('invalid_json', undefined, { cause: err }));
    }
    if (!(err instanceof LatchkeyError) || err.status >= 500)
      options.onInternalError(err, c.get('requestId') ?? '');
    return errorResponse(c, err);
  });
  return app;
}

async function validatedInput(c: Context<HttpEnv>, target: string): Promise<unknown> {
  if (target === 'json') return c.req.json().catch(() => undefined);
  if (target === 'query') return c.req.query();
  if (target === 'param') return c.req.param();
  return undefined;
}

const timedOut = () => new HTTPException(503, { cause: new LatchkeyError('request_timeout') });
