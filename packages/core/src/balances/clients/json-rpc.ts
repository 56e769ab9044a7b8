import { LatchkeyError } from '../../errors.js';
import { type Endpoint, invalidAnswer, isRecord, send } from './transport.js';

/** Calls a JSON-RPC 2.0 method over HTTP POST: returns `result`, or throws a chain error. */
export type JsonRpcCall = (method: string, params: unknown[]) => Promise<unknown>;

export function jsonRpc(ep: Endpoint): JsonRpcCall {
  let nextId = 1;
  return async (method, params) => {
    const id = nextId++;
    const answer = await send(ep, ep.url, {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
    const body = answer.json;
    const envelope = isRecord(body) && body.jsonrpc === '2.0' && body.id === id ? body : undefined;
    if (envelope && 'error' in envelope) {
      const { error } = envelope;
      const code = isRecord(error) && Number.isInteger(error.code) ? error.code : 'unknown';
      throw new LatchkeyError('chain_unavailable', `${ep.label}: ${method} failed with RPC error ${code}.`);
    }
    // Some servers carry a JSON-RPC error on a 4xx; any other non-200 is the endpoint refusing.
    if (answer.status !== 200)
      throw new LatchkeyError(
        'chain_unavailable',
        `${ep.label}: the RPC endpoint answered HTTP ${answer.status}.`,
      );
    if (!envelope)
      throw invalidAnswer(ep, `the answer to ${method} is not a JSON-RPC 2.0 answer to this request.`);
    if (!('result' in envelope))
      throw invalidAnswer(ep, `the answer to ${method} has neither result nor error.`);
    return envelope.result;
  };
}
