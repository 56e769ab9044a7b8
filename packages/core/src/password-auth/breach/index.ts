export type { BreachedPasswords } from './port.js';
export { countInRange, type PwnedPasswordsRangeOptions, pwnedPasswordsRange } from './pwned-range.js';
