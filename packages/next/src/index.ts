export type { SessionCheck, SessionCookieOptions } from '@latchkey/core';
export { clientIpFromHeaders } from './client-ip.js';
export type {
  LatchkeyFetcher,
  LatchkeyHandlersOptions,
  LatchkeyRouteHandlers,
  LatchkeySource,
  RouteHandler,
} from './handlers.js';
export { latchkeyHandlers } from './handlers.js';
export type {
  GetSessionOptions,
  LatchkeySessionSource,
  SessionRequest,
  SessionRouteHandler,
} from './session.js';
export { checkSession, getSession, withSession } from './session.js';
