import type { Factor } from '../shared/factor.js';

/**
 * When the session's user last proved who they are: the latest `last_verified_at` of its
 * factors (each factor keeps the time its method was last proven on this session). 0 for a
 * session without factors, which sign-in never makes.
 */
export const authTime = (factors: readonly Factor[]): number =>
  factors.reduce((latest, f) => Math.max(latest, f.method.last_verified_at), 0);
