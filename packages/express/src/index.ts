export type { SessionCookieOptions } from '@latchkey/core';
export type { LatchkeyErrorHandlerOptions, LatchkeyHandler, LatchkeyRouterOptions } from './router.js';
export { latchkeyErrorHandler, latchkeyRequestGuard, latchkeyRouter } from './router.js';
export type { LatchkeySessions, SessionMiddlewareOptions } from './session.js';
export { optionalSession, requireSession, revokeSession } from './session.js';
