/**
 * `@latchkey/core/jwt`: what a server that only verifies session JWTs needs, without the services,
 * the HTTP app or the chain libraries that `@latchkey/core` brings in (jose is its one dependency).
 */
export { isLatchkeyError, LatchkeyError } from './errors.js';
export type { SessionClaims, VerifySessionJwtOptions } from './sessions/jwt.js';
export { DEFAULT_JWT_ISSUER, verifySessionJwt } from './sessions/jwt.js';
