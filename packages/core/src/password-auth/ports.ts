export type { BreachedPasswords } from './breach/index.js';
export type { PasswordHasher } from './hashing/index.js';
