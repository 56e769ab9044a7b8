export {
  createPasswordHasher,
  dummyVerify,
  type PasswordHasher,
  type PasswordHasherOptions,
} from './hasher.js';
export {
  HASH_TYPES,
  type HashType,
  type ImportedHash,
  importedHashSchema,
  storedFromImport,
} from './import.js';
export { type Argon2Params, argon2ParamsSchema, OWASP_ARGON2ID } from './params.js';
export { COST_LIMITS } from './stored.js';
