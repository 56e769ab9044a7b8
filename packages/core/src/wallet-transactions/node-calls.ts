import type { LatchkeyError } from '../errors.js';
import type { EvmNode, NodeRefusal } from './evm-node.js';

/** One node per key (a chain id, a cluster), made when first asked for and kept. */
export function nodeCache<K>(make: (key: K) => EvmNode): (key: K) => EvmNode {
  const nodes = new Map<K, EvmNode>();
  return (key) => {
    let node = nodes.get(key);
    if (!node) {
      node = make(key);
      nodes.set(key, node);
    }
    return node;
  };
}

/** How a chain's refusals read in the catalogue's terms: each chain words them its own way. */
export type RefusalReader = (node: EvmNode, method: string, refusal: NodeRefusal) => LatchkeyError;

/** The node's result, or its refusal as the caller's error. */
export async function callNode(
  node: EvmNode,
  method: string,
  params: unknown[],
  refusalError: RefusalReader,
): Promise<unknown> {
  const answer = await node.call(method, params);
  if ('refusal' in answer) throw refusalError(node, method, answer.refusal);
  return answer.result;
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
