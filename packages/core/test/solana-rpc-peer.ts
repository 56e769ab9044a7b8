import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base58, base64 } from '@scure/base';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';

/**
 * A Solana JSON-RPC endpoint over HTTP backed by LiteSVM, which executes real Solana transactions
 * (the System and SPL Token programs, signature checks, blockhash checks, fees) in process. It
 * answers the methods Latchkey's sends and balance reads call, in the wire format of a real RPC
 * node: `getLatestBlockhash`, `isBlockhashValid`, `sendTransaction` (base64, with the preflight
 * simulation), `getSignatureStatuses`, `getTransaction`, `getBalance`, `getTokenAccountsByOwner`
 * (jsonParsed). Every transaction it executes is confirmed at once, in a slot of its own.
 */
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
/** LiteSVM's default fee: lamports per signature. */
export const LAMPORTS_PER_SIGNATURE = 5000n;

interface Landed {
  slot: number;
  err: unknown;
  fee: bigint;
}

export interface SolanaPeer {
  url: string;
  svm: LiteSVM;
  /** Every sendTransaction the peer received (base64), accepted or not. */
  received: string[];
  /** When set, sendTransaction answers with the signature but executes nothing (a lost transaction). */
  swallow: boolean;
  /** When set, sendTransaction skips the preflight and executes even a failing transaction. */
  skipPreflight: boolean;
  /**
   * The next sendTransaction's answer is lost (HTTP 503): `before` executing it, or `after` (the
   * transaction landed, the sender does not hear so).
   */
  loseNextSend: 'before' | 'after' | null;
  stop(): Promise<void>;
}

/** Splits a wire transaction into what LiteSVM takes: the message and each signer's signature. */
function kitTransaction(wire: Uint8Array) {
  let at = 0;
  const shortvec = () => {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const byte = wire[at++]!;
      value |= (byte & 0x7f) << (7 * i);
      if ((byte & 0x80) === 0) return value;
    }
    throw new Error('bad shortvec');
  };
  const count = shortvec();
  const sigs = Array.from({ length: count }, (_, i) => wire.slice(at + i * 64, at + (i + 1) * 64));
  at += count * 64;
  const messageBytes = wire.slice(at);
  if (wire[at]! & 0x80) at += 1;
  at += 3;
  const keys = shortvec();
  if (keys < count) throw new Error('fewer keys than signatures');
  const signatures: Record<string, Uint8Array | null> = {};
  for (let i = 0; i < count; i++) {
    const key = base58.encode(wire.slice(at + i * 32, at + (i + 1) * 32));
    signatures[key] = sigs[i]!.every((b) => b === 0) ? null : sigs[i]!;
  }
  return { messageBytes, signatures, firstSignature: base58.encode(sigs[0]!), count };
}

const u64At = (data: { buffer: ArrayBufferLike; byteOffset: number }, at: number) =>
  new DataView(data.buffer, data.byteOffset + at, 8).getBigUint64(0, true);

export async function startSolanaPeer(svm = new LiteSVM()): Promise<SolanaPeer> {
  const landed = new Map<string, Landed>();
  const peer = {
    svm,
    received: [] as string[],
    swallow: false,
    skipPreflight: false,
    loseNextSend: null as SolanaPeer['loseNextSend'],
  };
  let slot = 1;
  const context = () => ({ slot });

  const methods: Record<string, (params: any[]) => unknown> = {
    getLatestBlockhash: () => ({
      context: context(),
      value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: slot + 150 },
    }),
    isBlockhashValid: ([hash]) => ({ context: context(), value: hash === svm.latestBlockhash() }),
    getBalance: ([address]) => ({ context: context(), value: Number(svm.getBalance(address) ?? 0n) }),
    getSignatureStatuses: ([signatures]) => ({
      context: context(),
      value: (signatures as string[]).map((s) => {
        const l = landed.get(s);
        return l
          ? {
              slot: l.slot,
              confirmations: null,
              err: l.err,
              status: l.err ? { Err: l.err } : { Ok: null },
              confirmationStatus: 'confirmed',
            }
          : null;
      }),
    }),
    getTransaction: ([signature]) => {
      const l = landed.get(signature);
      return l ? { slot: l.slot, meta: { err: l.err, fee: Number(l.fee) }, blockTime: null } : null;
    },
    getTokenAccountsByOwner: ([owner, { mint }]) => ({
      context: context(),
      value: svm
        .getProgramAccounts(TOKEN_PROGRAM as never)
        .filter((a) => a.data.length === 165)
        .filter(
          (a) =>
            base58.encode(a.data.subarray(0, 32)) === mint &&
            base58.encode(a.data.subarray(32, 64)) === owner,
        )
        .map((a) => {
          const mintAccount = svm.getAccount(mint);
          const decimals = mintAccount.exists ? mintAccount.data[44]! : 0;
          const amount = u64At(a.data, 64).toString();
          return {
            pubkey: a.address,
            account: {
              data: {
                parsed: {
                  info: {
                    isNative: false,
                    mint,
                    owner,
                    state: 'initialized',
                    tokenAmount: { amount, decimals, uiAmountString: amount },
                  },
                  type: 'account',
                },
                program: 'spl-token',
                space: 165,
              },
              executable: false,
              lamports: Number(a.lamports),
              owner: TOKEN_PROGRAM,
              space: 165,
            },
          };
        }),
    }),
    sendTransaction: ([encoded, config]) => {
      if (config?.encoding !== 'base64') throw rpcError(-32602, 'this peer takes base64 only');
      peer.received.push(encoded);
      const wire = base64.decode(encoded);
      const tx = kitTransaction(wire);
      if (peer.swallow) return tx.firstSignature;
      if (landed.has(tx.firstSignature))
        throw rpcError(-32002, 'Transaction simulation failed: This transaction has already been processed');
      if (!peer.skipPreflight) {
        const simulated = svm.simulateTransaction(tx as never);
        if (simulated instanceof FailedTransactionMetadata)
          throw rpcError(-32002, `Transaction simulation failed: ${String(simulated.err())}`);
      }
      const result = svm.sendTransaction(tx as never);
      const err =
        result instanceof FailedTransactionMetadata ? { InstructionError: String(result.err()) } : null;
      landed.set(tx.firstSignature, { slot, err, fee: LAMPORTS_PER_SIGNATURE * BigInt(tx.count) });
      slot += 1;
      svm.warpToSlot(BigInt(slot));
      return tx.firstSignature;
    },
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const request = JSON.parse(body) as { id: unknown; method: string; params: any[] };
      const lose = request.method === 'sendTransaction' ? peer.loseNextSend : null;
      if (lose) peer.loseNextSend = null;
      if (lose === 'before') {
        res.statusCode = 503;
        res.end();
        return;
      }
      let answer: Record<string, unknown>;
      try {
        const method = methods[request.method];
        if (!method) throw rpcError(-32601, `Method not found: ${request.method}`);
        answer = { jsonrpc: '2.0', id: request.id, result: method(request.params ?? []) };
      } catch (err) {
        const e = err as { code?: number; message: string };
        answer = { jsonrpc: '2.0', id: request.id, error: { code: e.code ?? -32603, message: e.message } };
      }
      if (lose === 'after') {
        res.statusCode = 503;
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(peer, {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

function rpcError(code: number, message: string) {
  return Object.assign(new Error(message), { code });
}

/** An SPL Mint account's data: `decimals`, initialized, with an authority and no freeze authority. */
export function mintData(authority: Uint8Array, supply: bigint, decimals: number): Uint8Array {
  const data = new Uint8Array(82);
  const view = new DataView(data.buffer);
  view.setUint32(0, 1, true);
  data.set(authority, 4);
  view.setBigUint64(36, supply, true);
  data[44] = decimals;
  data[45] = 1;
  return data;
}

/** An SPL token Account's data: initialized, holding `amount` of `mint` for `owner`. */
export function tokenAccountData(mint: Uint8Array, owner: Uint8Array, amount: bigint): Uint8Array {
  const data = new Uint8Array(165);
  data.set(mint, 0);
  data.set(owner, 32);
  new DataView(data.buffer).setBigUint64(64, amount, true);
  data[108] = 1; // AccountState::Initialized
  return data;
}

/** A token account's balance as LiteSVM holds it. */
export function tokenAmount(svm: LiteSVM, account: string): bigint {
  const a = svm.getAccount(account as never);
  if (!a.exists) throw new Error(`no account ${account}`);
  return u64At(a.data, 64);
}
