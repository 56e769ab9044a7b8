import { LatchkeyError } from '../../errors.js';
import type { ChainClient } from '../../ports/chain-client.js';
import { parseUnits } from '../decimal.js';
import { type Endpoint, invalidAnswer, isRecord, send } from './transport.js';

const STELLAR_DECIMALS = 7;
const G_ADDRESS = /^G[A-Z2-7]{55}$/;

/**
 * Stellar Horizon: `GET {base}/accounts/{id}`, the `native` entry of `balances` (a decimal
 * string with 7 places) parsed exactly to stroops. A 404 in Horizon's own problem format is an
 * account that was never funded: balance 0. Any other 404 (a wrong base URL) is an error.
 */
export function horizonClient(ep: Endpoint): ChainClient {
  const base = ep.url.replace(/\/+$/, '');
  return {
    async getBalance({ address, asset }) {
      if (asset !== 'native') throw new LatchkeyError('internal_error', 'Horizon reads only XLM here.');
      if (!G_ADDRESS.test(address))
        throw new LatchkeyError('internal_error', 'The wallet address is not a G… account id.');
      const answer = await send(ep, `${base}/accounts/${address}`, { method: 'GET' });
      const body = answer.json;
      if (answer.status === 404) {
        if (
          isRecord(body) &&
          body.status === 404 &&
          typeof body.type === 'string' &&
          body.type.endsWith('/not_found')
        )
          return 0n;
        throw new LatchkeyError(
          'chain_unavailable',
          `${ep.label}: the Horizon URL answered 404 without Horizon's not_found.`,
        );
      }
      if (answer.status !== 200)
        throw new LatchkeyError('chain_unavailable', `${ep.label}: Horizon answered HTTP ${answer.status}.`);
      if (!isRecord(body) || !Array.isArray(body.balances))
        throw invalidAnswer(ep, 'the account has no balances list.');
      if (body.account_id !== address) throw invalidAnswer(ep, 'the answer is about another account.');
      const natives = body.balances.filter((b) => isRecord(b) && b.asset_type === 'native');
      if (natives.length !== 1)
        throw invalidAnswer(ep, 'the account does not have exactly one native balance.');
      const text = natives[0].balance;
      const stroops = typeof text === 'string' ? parseUnits(text, STELLAR_DECIMALS) : undefined;
      if (stroops === undefined)
        throw invalidAnswer(ep, 'the native balance is not a decimal with at most 7 places.');
      return stroops;
    },
  };
}
