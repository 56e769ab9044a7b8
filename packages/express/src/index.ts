export type { LatchkeyHandler } from './router.js';
export { latchkeyErrorHandler, latchkeyRouter } from './router.js';
