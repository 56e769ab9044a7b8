import type { MiddlewareHandler } from 'hono';
import { LatchkeyError } from '../errors.js';
import type { HttpEnv } from './env.js';

/**
 * Answers 503 `request_timeout` when the rest of the chain (reading the body included, so a
 * client that trickles its body is cut off too) takes longer than `ms`. The work under way is
 * not cancelled, so the request may still take effect: the error says so.
 */
export function timeoutMiddleware(ms: number): MiddlewareHandler<HttpEnv> {
  return async (_c, next) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LatchkeyError('request_timeout')), ms);
    });
    try {
      await Promise.race([next(), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
