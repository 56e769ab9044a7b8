export type { LocalKeyVault, LocalKeyVaultOptions } from './local-key-vault.js';
export { generateVaultKey, localKeyVault } from './local-key-vault.js';
export { sealedKeyVersion } from './sealed-format.js';
