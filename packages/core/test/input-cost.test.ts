import * as bitcoin from 'bitcoinjs-lib';
import { Transaction as EthTransaction, verifyTypedData } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { psbtCounts } from '../src/chains/psbt-counts.js';
import { rlpItemCount } from '../src/chains/rlp-items.js';
import { boundTypedData, TYPED_DATA_LIMITS } from '../src/chains/typed-data-bounds.js';
import {
  evaluatePolicies,
  type SigningRequest,
  type WalletPolicyRecord,
  type WalletRecord,
} from '../src/index.js';
import { expectErrorShape, type TestApp, testApp, testLatchkey } from './helpers.js';

/**
 * Inputs whose cost would be out of proportion to their bytes are refused by a bound checked
 * before the costly work, named in a 400. Proved by behaviour (which check answers, what a pure
 * reader returns), never by timing: the machine is shared.
 */

type W = { id: string; public_address: string };
let t: TestApp;
const wallets = {} as Record<'ethereum' | 'solana' | 'bitcoin', W>;

beforeAll(async () => {
  t = await testApp(testLatchkey().latchkey);
  for (const wallet_type of ['ethereum', 'solana', 'bitcoin'] as const) {
    const user = await t.call('POST', '/v1/auth/users', { email: `${wallet_type}@example.com` });
    const res = await t.call('POST', '/v1/wallets/create', { user_id: user.body.user_id, wallet_type });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    wallets[wallet_type] = res.body;
  }
});

const refused = (res: { status: number; body: any; headers: Headers }, type: string, field: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  const body = expectErrorShape(res);
  expect(body.error_type).toBe(type);
  expect(body.error_field).toBe(field);
  return body.error_message;
};

describe('Solana transactions: at most 1232 bytes (the network packet size)', () => {
  const sign = (transaction: string, encoding: 'base64' | 'base58') =>
    t.call('POST', `/v1/wallets/${wallets.solana.id}/sign_transaction`, {
      sol_transaction: { transaction, encoding },
    });

  it('a longer transaction is refused, naming the field and the limit', async () => {
    const message = refused(
      await sign(Buffer.alloc(1233, 1).toString('base64'), 'base64'),
      'invalid_transaction',
      'sol_transaction.transaction',
    );
    expect(message).toContain('at most 1232 bytes');
  });

  it('base58 text longer than any 1232-byte transaction is refused before it is decoded', async () => {
    // '0' is not a base58 digit: a decode would answer "not valid base58"; the length check answers first.
    const message = refused(
      await sign('0'.repeat(1684), 'base58'),
      'invalid_transaction',
      'sol_transaction.transaction',
    );
    expect(message).toContain('at most 1232 bytes');
    // One character less is within the bound, so it reaches the decoder.
    const decoded = refused(
      await sign('0'.repeat(1683), 'base58'),
      'invalid_transaction',
      'sol_transaction.transaction',
    );
    expect(decoded).toContain('not valid base58');
  });
});

describe('EIP-712 typed data: bounded types, fields and type encodings', () => {
  const signTyped = (typed_data: unknown) =>
    t.call('POST', `/v1/wallets/${wallets.ethereum.id}/sign_typed_data`, { typed_data });

  /** T0 uses T1, which uses T2…: every type's encoding holds all the types after it. */
  const chain = (n: number, nameLength = 2) => {
    const name = (i: number) => `T${i}`.padEnd(nameLength, 'x');
    const types: Record<string, { name: string; type: string }[]> = {};
    for (let i = 0; i < n; i++)
      types[name(i)] = i + 1 < n ? [{ name: 'next', type: name(i + 1) }] : [{ name: 'v', type: 'uint256' }];
    let message: Record<string, unknown> = { v: '1' };
    for (let i = n - 2; i >= 0; i--) message = { next: message };
    return { domain: { name: 'x', chainId: 1 }, types, primaryType: name(0), message };
  };

  it('a chain of 32 types signs; 33 is refused, naming typed_data.types', async () => {
    const res = await signTyped(chain(TYPED_DATA_LIMITS.types));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const message = refused(
      await signTyped(chain(TYPED_DATA_LIMITS.types + 1)),
      'invalid_field',
      'typed_data.types',
    );
    expect(message).toContain('at most 32 types');
  });

  it('more fields than the limit over all types are refused', async () => {
    const fields = Array.from({ length: 129 }, (_, i) => ({ name: `f${i}`, type: 'uint8' }));
    const typed = { domain: { name: 'x' }, types: { A: fields, B: fields }, primaryType: 'A', message: {} };
    const message = refused(await signTyped(typed), 'invalid_field', 'typed_data.types');
    expect(message).toContain('at most 256 fields');
  });

  it('type encodings that grow with the square of the types are refused', async () => {
    // 30 types of 40-character names: each encoding repeats every later definition, ~19,000 characters in all.
    const message = refused(await signTyped(chain(30, 40)), 'invalid_field', 'typed_data.types');
    expect(message).toContain('16384 characters');
  });

  it('typed data longer than 100,000 characters as JSON is refused, naming typed_data', async () => {
    const typed = {
      domain: { name: 'x' },
      types: { M: [{ name: 's', type: 'string' }] },
      primaryType: 'M',
      message: { s: 'a'.repeat(100_000) },
    };
    const message = refused(await signTyped(typed), 'invalid_field', 'typed_data');
    expect(message).toContain('100000 characters');
  });

  it('types are handed to the signer dependencies first, cycles included', () => {
    const types = {
      Mail: [
        { name: 'from', type: 'Person' },
        { name: 'cc', type: 'Person[]' },
      ],
      Person: [
        { name: 'name', type: 'string' },
        { name: 'team', type: 'Team' },
      ],
      Team: [{ name: 'lead', type: 'Person' }],
      Unused: [{ name: 'x', type: 'uint8' }],
    };
    const ordered = boundTypedData({ types: { EIP712Domain: [], ...types } }, '{}');
    expect(Object.keys(ordered)).toEqual(['Team', 'Person', 'Mail', 'Unused']);
  });

  it('typed data listed dependents first signs the hash ethers verifies', async () => {
    const types = {
      Mail: [
        { name: 'from', type: 'Person' },
        { name: 'cc', type: 'Person[]' },
      ],
      Person: [
        { name: 'name', type: 'string' },
        { name: 'wallet', type: 'address' },
      ],
    };
    const domain = { name: 'Mail', chainId: 1 };
    const person = { name: 'Ada', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' };
    const message = { from: person, cc: [person, person] };
    const res = await signTyped({ domain, types, primaryType: 'Mail', message });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(verifyTypedData(domain, types, message, res.body.signature)).toBe(wallets.ethereum.public_address);
  });
});

describe('PSBTs: at most 64 inputs and 256 outputs, counted before the full parse', () => {
  const other = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
  const psbtOf = (inputs: number, outputs: number) => {
    const psbt = new bitcoin.Psbt();
    for (let i = 0; i < inputs; i++) {
      psbt.addInput({
        hash: (i + 1).toString(16).padStart(64, '0'),
        index: 0,
        // Only the first input is the wallet's: the others are parsed, not signed.
        witnessUtxo: {
          script: bitcoin.address.toOutputScript(i === 0 ? wallets.bitcoin.public_address : other),
          value: 1_000n,
        },
      });
    }
    for (let i = 0; i < outputs; i++) psbt.addOutput({ address: other, value: 10n });
    return psbt;
  };
  const sign = (psbt: string) =>
    t.call('POST', `/v1/wallets/${wallets.bitcoin.id}/sign_transaction`, { btc_psbt: { psbt } });

  it('64 inputs and 256 outputs sign; one more input or output is refused', async () => {
    const res = await sign(psbtOf(64, 256).toBase64());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const [inputs, outputs] of [
      [65, 1],
      [1, 257],
    ] as const) {
      const message = refused(
        await sign(psbtOf(inputs, outputs).toBase64()),
        'invalid_transaction',
        'btc_psbt.psbt',
      );
      expect(message).toContain('at most 64 inputs and 256 outputs');
    }
  });

  it('the counts are read from the global map alone: a PSBT cut after it still answers the limit', async () => {
    const bytes = Buffer.from(psbtOf(65, 1).toBuffer());
    // The global map ends at its first zero-length key; nothing after it is read by the count.
    const globalEnd = globalMapEnd(bytes);
    const cut = bytes.subarray(0, globalEnd);
    expect(psbtCounts(cut)).toEqual({ inputs: 65, outputs: 1 });
    const message = refused(await sign(cut.toString('base64')), 'invalid_transaction', 'btc_psbt.psbt');
    expect(message).toContain('at most 64 inputs');
    // Without the count check, the full parse refuses the cut PSBT as malformed.
    const within = Buffer.from(psbtOf(2, 1).toBuffer());
    const malformed = refused(
      await sign(within.subarray(0, globalMapEnd(within)).toString('base64')),
      'invalid_transaction',
      'btc_psbt.psbt',
    );
    expect(malformed).toContain('not a base64 PSBT');
  });

  it('a forged input count stops at the end of the bytes', () => {
    // Magic, key 0x00, a 9-byte "transaction": version, then a CompactSize of 2^32 − 1 inputs.
    const forged = Uint8Array.from([
      0x70, 0x73, 0x62, 0x74, 0xff, 0x01, 0x00, 0x09, 2, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x00,
    ]);
    expect(psbtCounts(forged)).toBeUndefined();
  });
});

/** Where a serialized PSBT's global map ends (after its zero-length separator key). */
function globalMapEnd(bytes: Uint8Array): number {
  let at = 5;
  const compactSize = () => {
    const first = bytes[at++]!;
    if (first < 0xfd) return first;
    const width = first === 0xfd ? 2 : 4;
    let value = 0;
    for (let i = 0; i < width; i++) value += bytes[at++]! * 2 ** (8 * i);
    return value;
  };
  for (;;) {
    const keyLength = compactSize();
    if (keyLength === 0) return at;
    at += keyLength;
    const valueLength = compactSize();
    at += valueLength;
  }
}

describe('records in request bodies: the key count is checked before any entry is parsed', () => {
  const keys = (n: number, value: unknown) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));

  it('typed data: types, domain and message are bounded, and named', async () => {
    const sign = (typed_data: unknown) =>
      t.call('POST', `/v1/wallets/${wallets.ethereum.id}/sign_typed_data`, { typed_data });
    const base = { domain: {}, types: { M: [] }, primaryType: 'M', message: {} };
    // Entries that are each invalid: were they parsed, the first of them would be the field named.
    refused(await sign({ ...base, types: keys(34, 'not an array') }), 'invalid_field', 'typed_data.types');
    refused(await sign({ ...base, domain: keys(33, 1) }), 'invalid_field', 'typed_data.domain');
    refused(await sign({ ...base, message: keys(257, 1) }), 'invalid_field', 'typed_data.message');
    // Within the bound, entries are parsed as before.
    refused(await sign({ ...base, types: keys(2, 'not an array') }), 'invalid_field', 'typed_data.types.k0');
  });

  it('WebAuthn: clientExtensionResults, reachable with the public token, holds at most 64 keys', async () => {
    const res = await t.call(
      'POST',
      '/v1/auth/webauthn/authentications/complete',
      {
        public_key_credential: {
          id: 'AAAA',
          rawId: 'AAAA',
          type: 'public-key',
          clientExtensionResults: keys(65, {}),
          response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' },
        },
      },
      t.public_token,
    );
    const message = refused(res, 'invalid_field', 'public_key_credential.clientExtensionResults');
    expect(message).toContain('At most 64 keys');
  });
});

describe('serialized ethereum transactions: at most 512 RLP items, counted before the decode', () => {
  const sign = (serialized: string) =>
    t.call('POST', `/v1/wallets/${wallets.ethereum.id}/sign_transaction`, {
      eth_transaction: { serialized },
    });
  /** An unsigned EIP-1559 transaction with `entries` access-list addresses of `keys` storage keys each. */
  const withAccessList = (entries: number, keys: number) =>
    EthTransaction.from({
      type: 2,
      chainId: 1,
      nonce: 0,
      maxPriorityFeePerGas: 1,
      maxFeePerGas: 2,
      gasLimit: 100_000,
      to: '0x1111111111111111111111111111111111111111',
      value: 0,
      data: '0x',
      accessList: Array.from({ length: entries }, (_, i) => ({
        address: `0x${(i + 1).toString(16).padStart(40, '0')}`,
        storageKeys: Array.from({ length: keys }, (_, j) => `0x${(j + 1).toString(16).padStart(64, '0')}`),
      })),
    }).unsignedSerialized;

  it('an access list within the bound signs; past it the field is named', async () => {
    // Nine fields, the access list, and per entry: a list, an address, a list and its keys.
    const within = withAccessList(3, 164);
    expect(rlpItemCount(Buffer.from(within.slice(4), 'hex'), 10_000)).toBe(511);
    expect((await sign(within)).status).toBe(200);
    const message = refused(
      await sign(withAccessList(3, 165)),
      'invalid_transaction',
      'eth_transaction.serialized',
    );
    expect(message).toContain('at most 512 RLP items');
  });

  it('junk of many tiny lists is refused by the count, not decoded', async () => {
    // A list header claiming the rest, then 100,000 empty lists: the decoder would walk them all.
    const message = refused(
      await sign(`0x02f9ffff${'c0'.repeat(100_000)}`),
      'invalid_transaction',
      'eth_transaction.serialized',
    );
    expect(message).toContain('at most 512 RLP items');
  });

  it('the count stops one past the bound, whatever the length', () => {
    expect(rlpItemCount(new Uint8Array(1_000_000).fill(0xc0), 512)).toBe(513);
    // Strings are skipped whole: a 100 KB string is one item.
    expect(rlpItemCount(Uint8Array.from([0xba, 0x01, 0x86, 0xa0, ...new Uint8Array(100_000)]), 512)).toBe(1);
  });
});

describe('wallet policies: an allow-list is made a set once per rule, not per signature', () => {
  it('a thousand signatures judged against a 1,000-address allow-list read the list once', () => {
    const addresses = Array.from({ length: 1000 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
    let reads = 0;
    const map = addresses.map;
    // Counts every pass over the list (the set is built with map).
    Object.defineProperty(addresses, 'map', {
      value(this: string[], ...args: Parameters<typeof map>) {
        reads++;
        return map.apply(this, args);
      },
    });
    const policy = {
      id: 'policy_a',
      app_id: 'app_1',
      name: 'p',
      wallet_id: null,
      rules: [{ kind: 'evm_to_allowlist', addresses }],
      created_at: 0,
      updated_at: 0,
    } as WalletPolicyRecord;
    const request = (to: string): SigningRequest => ({
      app_id: 'app_1',
      wallet: {
        id: 'wallet_1',
        public_address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      } as WalletRecord,
      chain: 'ethereum',
      method: 'sign_transaction',
      payload_digest: '00'.repeat(32),
      key_kind: 'secret',
      evm: { chain_id: 1n, to, value: 0n },
    });
    for (let i = 0; i < 1000; i++) {
      expect(
        evaluatePolicies(request(addresses[i]!.toUpperCase().replace('0X', '0x')), [policy]).allowed,
      ).toBe(true);
    }
    expect(evaluatePolicies(request(`0x${'f'.repeat(40)}`), [policy]).allowed).toBe(false);
    expect(reads).toBe(1);
  });
});
