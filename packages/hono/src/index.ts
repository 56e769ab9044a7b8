export type { SessionCheck, SessionCookieOptions } from '@latchkey/core';
export type { LatchkeyHandler, LatchkeyRoutesOptions } from './routes.js';
export { latchkeyRoutes } from './routes.js';
export type {
  LatchkeyEnv,
  LatchkeySessions,
  LatchkeyVariables,
  SessionMiddlewareOptions,
} from './session.js';
export { optionalSession, requireSession, revokeSession } from './session.js';
