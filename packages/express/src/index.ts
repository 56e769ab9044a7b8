export type { SessionCookieOptions } from '@latchkey/core';
export type { LatchkeyHandler, LatchkeyRouterOptions } from './router.js';
export { latchkeyErrorHandler, latchkeyRouter } from './router.js';
export type { LatchkeySessions, SessionMiddlewareOptions } from './session.js';
export { optionalSession, requireSession, revokeSession } from './session.js';
