import { LatchkeyError } from '../../errors.js';
import type { ChainClient } from '../../ports/chain-client.js';
import { jsonRpc } from './json-rpc.js';
import { type Endpoint, invalidAnswer } from './transport.js';

// keccak256("balanceOf(address)")[0..4]
const BALANCE_OF = '0x70a08231';
// Quantities have no leading zeros by the spec; some nodes pad them anyway, which is harmless.
const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const WORD = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Ethereum-style JSON-RPC (Ethereum, Avalanche C-Chain, Polygon PoS): `eth_getBalance` for the
 * native coin, ERC-20 `balanceOf(address)` through `eth_call` for tokens, both at `latest`.
 * Before the first read it checks `eth_chainId` against `chainId`, so an endpoint of another
 * chain or network gives an error instead of its numbers.
 */
export function evmClient(ep: Endpoint, chainId: number): ChainClient {
  const call = jsonRpc(ep);
  let verified: Promise<void> | undefined;

  const verifyChain = () => {
    verified ??= (async () => {
      const reported = parseQuantity(ep, await call('eth_chainId', []), 'eth_chainId');
      if (reported !== BigInt(chainId))
        throw invalidAnswer(ep, `the endpoint serves chain id ${reported}, not ${chainId}.`);
    })().catch((err) => {
      verified = undefined;
      throw err;
    });
    return verified;
  };

  return {
    async getBalance({ address, asset }) {
      if (!ADDRESS.test(address))
        throw new LatchkeyError('internal_error', 'The wallet address is not an EVM address.');
      await verifyChain();
      if (asset === 'native') {
        return parseQuantity(ep, await call('eth_getBalance', [address, 'latest']), 'eth_getBalance');
      }
      const data = BALANCE_OF + address.slice(2).toLowerCase().padStart(64, '0');
      const result = await call('eth_call', [{ to: asset.contract, data }, 'latest']);
      // `0x` is what a call to an address without code returns: the token is not on this chain.
      if (result === '0x') throw invalidAnswer(ep, `no contract at ${asset.contract} on this chain.`);
      if (typeof result !== 'string' || !WORD.test(result))
        throw invalidAnswer(ep, 'balanceOf did not return one 32-byte word.');
      return BigInt(result);
    },
  };
}

function parseQuantity(ep: Endpoint, result: unknown, method: string): bigint {
  if (typeof result !== 'string' || !QUANTITY.test(result))
    throw invalidAnswer(ep, `${method} did not return a hex quantity.`);
  return BigInt(result);
}
