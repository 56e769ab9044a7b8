export { evmClient } from './evm.js';
export { horizonClient } from './horizon.js';
export { parseJsonExact } from './json.js';
export { solanaClient } from './solana.js';
export { decodeFreeBalance, substrateClient, systemAccountKey } from './substrate.js';
export type { Endpoint } from './transport.js';
export { twox128, xxhash64 } from './twox.js';
