export type { RedisRateLimiterOptions } from './redis-rate-limiter.js';
export { redisRateLimiter } from './redis-rate-limiter.js';
