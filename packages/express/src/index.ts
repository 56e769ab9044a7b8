export type { SessionCookieOptions } from './cookies.js';
export type { LatchkeyErrorHandlerOptions, LatchkeyHandler, LatchkeyRouterOptions } from './router.js';
export { latchkeyErrorHandler, latchkeyRouter } from './router.js';
export type { LatchkeySessions, SessionMiddlewareOptions } from './session.js';
export { looksLikeJwt, optionalSession, requireSession, revokeSession } from './session.js';
