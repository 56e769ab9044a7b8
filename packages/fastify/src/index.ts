export type { SessionCheck, SessionCookieOptions } from '@latchkey/core';
export type { LatchkeyPluginOptions } from './plugin.js';
export { latchkeyPlugin } from './plugin.js';
export type { LatchkeySessions, SessionHook, SessionHookOptions } from './session.js';
export { optionalSession, requireSession, revokeSession } from './session.js';
