import { blake2b } from '@noble/hashes/blake2.js';
import { ss58Decode } from '../../chains/index.js';
import { LatchkeyError } from '../../errors.js';
import type { ChainClient } from '../../ports/chain-client.js';
import { jsonRpc } from './json-rpc.js';
import { type Endpoint, invalidAnswer } from './transport.js';
import { twox128 } from './twox.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const toHex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/** twox128("System") ++ twox128("Account"): the prefix of every `System.Account` entry. */
const SYSTEM_ACCOUNT_PREFIX = new Uint8Array([...twox128(utf8('System')), ...twox128(utf8('Account'))]);

/** `AccountInfo<u32, AccountData<u128>>`: four u32 counters, then free, reserved, frozen, flags (u128 each). */
const ACCOUNT_INFO_BYTES = 4 * 4 + 4 * 16;
const FREE_OFFSET = 16;

/** The `System.Account` storage key of an account id: prefix ++ blake2_128_concat(id). */
export function systemAccountKey(accountId: Uint8Array): string {
  const hash = blake2b(accountId, { dkLen: 16 });
  return `0x${toHex(SYSTEM_ACCOUNT_PREFIX)}${toHex(hash)}${toHex(accountId)}`;
}

/** The free balance in a SCALE-encoded `AccountInfo`, or undefined when the bytes are not one. */
export function decodeFreeBalance(scale: Uint8Array): bigint | undefined {
  if (scale.length !== ACCOUNT_INFO_BYTES) return undefined;
  let free = 0n;
  for (let i = FREE_OFFSET + 15; i >= FREE_OFFSET; i--) free = (free << 8n) | BigInt(scale[i]!);
  return free;
}

/**
 * Substrate JSON-RPC: `state_getStorage` of `System.Account` for the account, its SCALE bytes
 * decoded to the free balance; no entry (null) is an account the chain has never seen.
 * Polkadot moved balances from the relay chain to Asset Hub (Paseo too), so the endpoint to
 * configure is an Asset Hub one; the storage layout is the same there.
 */
export function substrateClient(ep: Endpoint): ChainClient {
  const call = jsonRpc(ep);
  return {
    async getBalance({ address, asset }) {
      if (asset !== 'native')
        throw new LatchkeyError('internal_error', 'Substrate reads only the native coin.');
      const accountId = ss58Decode(address);
      if (!accountId) throw new LatchkeyError('internal_error', 'The wallet address is not an SS58 address.');
      const result = await call('state_getStorage', [systemAccountKey(accountId)]);
      if (result === null) return 0n;
      if (typeof result !== 'string' || !/^0x(?:[0-9a-fA-F]{2})*$/.test(result))
        throw invalidAnswer(ep, 'state_getStorage did not return hex bytes or null.');
      const bytes = Uint8Array.from(result.slice(2).match(/../g) ?? [], (h) => parseInt(h, 16));
      const free = decodeFreeBalance(bytes);
      if (free === undefined)
        throw invalidAnswer(
          ep,
          `System.Account is ${bytes.length} bytes, not an AccountInfo of ${ACCOUNT_INFO_BYTES}.`,
        );
      return free;
    },
  };
}
