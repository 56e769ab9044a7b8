export type { LatchkeyHandler } from './router.js';
export { latchkeyRouter } from './router.js';
