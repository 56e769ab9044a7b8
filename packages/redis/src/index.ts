export type { RedisRateLimiterOptions } from './redis-rate-limiter.js';
export { redisRateLimiter } from './redis-rate-limiter.js';
export type { RedisRevocationChannelOptions } from './redis-revocation-channel.js';
export { redisRevocationChannel } from './redis-revocation-channel.js';
