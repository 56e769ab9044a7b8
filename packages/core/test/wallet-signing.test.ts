import { createHash } from 'node:crypto';
import * as ecc from '@bitcoinerlab/secp256k1';
import { memoryStorage } from '@latchkey/memory';
import { cryptoWaitReady, signatureVerify } from '@polkadot/util-crypto';
import { base58 } from '@scure/base';
import {
  PublicKey,
  Keypair as SolanaKeypair,
  Transaction as SolanaTransaction,
  SystemProgram,
  TransactionMessage,
  VersionedMessage,
} from '@solana/web3.js';
import {
  Asset,
  Networks,
  Operation,
  Account as StellarAccount,
  Keypair as StellarKeypair,
  Transaction as StellarTransaction,
  TransactionBuilder,
} from '@stellar/stellar-base';
import { Verifier } from 'bip322-js';
import * as bitcoin from 'bitcoinjs-lib';
import { Transaction as EthTransaction, getBytes, verifyMessage, verifyTypedData } from 'ethers';
import nacl from 'tweetnacl';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey, type Storage } from '../src/index.js';
import { expectErrorShape, TEST_SECRET, type TestApp, testApp, testLatchkey } from './helpers.js';

type WalletType = 'ethereum' | 'solana' | 'bitcoin' | 'DOT' | 'XLM';
type W = { id: string; public_address: string };

let t: TestApp;
const wallets = {} as Record<WalletType, W>;

async function newWallet(app: TestApp, wallet_type: WalletType): Promise<W> {
  const user = await app.call('POST', '/v1/auth/users', {
    email: `s${Math.random().toString(36).slice(2)}@example.com`,
  });
  const res = await app.call('POST', '/v1/wallets/create', { user_id: user.body.user_id, wallet_type });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

beforeAll(async () => {
  await cryptoWaitReady();
  t = await testApp(testLatchkey().latchkey);
  for (const type of ['ethereum', 'solana', 'bitcoin', 'DOT', 'XLM'] as const)
    wallets[type] = await newWallet(t, type);
});

const ok = (res: { status: number; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const signMessage = (w: W, message: string, encoding?: string, app = t) =>
  app.call('POST', `/v1/wallets/${w.id}/sign_message`, encoding ? { message, encoding } : { message });

const TYPED = {
  domain: {
    name: 'Ether Mail',
    version: '1',
    chainId: 1,
    verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
  },
  types: {
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallet', type: 'address' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'to', type: 'Person' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  message: {
    from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
    contents: 'Hello, Bob!',
  },
};

const ETH_TO = '0x3535353535353535353535353535353535353535';
const eip1559 = {
  chain_id: '1',
  to: ETH_TO,
  value: '1000000000000000000',
  nonce: '9',
  gas_limit: '21000',
  max_fee_per_gas: '30000000000',
  max_priority_fee_per_gas: '1000000000',
};
const legacy = {
  chain_id: '1',
  to: ETH_TO,
  value: '1',
  nonce: '9',
  gas_limit: '21000',
  gas_price: '20000000000',
};

describe('sign_message, each signature checked by an independent library', () => {
  it('ethereum: EIP-191 personal_sign, ethers recovers the wallet (utf8 and hex)', async () => {
    const w = wallets.ethereum;
    const text = ok(await signMessage(w, 'Sign in to example.com'));
    expect(text).toMatchObject({ wallet_id: w.id, encoding: 'hex' });
    expect(text.signature).toMatch(/^0x[0-9a-f]{130}$/);
    expect(verifyMessage('Sign in to example.com', text.signature)).toBe(w.public_address);
    const bytes = ok(await signMessage(w, '0xdeadbeef', 'hex'));
    expect(verifyMessage(getBytes('0xdeadbeef'), bytes.signature)).toBe(w.public_address);
  });

  it('solana: ed25519 over the bytes, tweetnacl verifies (utf8 and base64)', async () => {
    const w = wallets.solana;
    for (const [message, encoding, bytes] of [
      ['Hello solana', 'utf8', Buffer.from('Hello solana')],
      [Buffer.from([1, 2, 3, 250]).toString('base64'), 'base64', Buffer.from([1, 2, 3, 250])],
    ] as const) {
      const res = ok(await signMessage(w, message, encoding));
      expect(res.encoding).toBe('base58');
      expect(
        nacl.sign.detached.verify(bytes, base58.decode(res.signature), base58.decode(w.public_address)),
      ).toBe(true);
    }
  });

  it('DOT: sr25519 over <Bytes>…</Bytes>, @polkadot/util-crypto signatureVerify', async () => {
    const w = wallets.DOT;
    const res = ok(await signMessage(w, 'Hello polkadot'));
    expect(res.signature).toMatch(/^0x[0-9a-f]{128}$/);
    const wrapped = `<Bytes>Hello polkadot</Bytes>`;
    const verified = signatureVerify(wrapped, res.signature, w.public_address);
    expect(verified.isValid).toBe(true);
    expect(verified.crypto).toBe('sr25519');
    expect(signatureVerify('Hello polkadot!', res.signature, w.public_address).isValid).toBe(false);
  });

  it('XLM: SEP-53, tweetnacl verifies over SHA-256 of the prefixed message', async () => {
    const w = wallets.XLM;
    const res = ok(await signMessage(w, 'Hello stellar'));
    expect(res.encoding).toBe('base64');
    const hash = createHash('sha256').update('Stellar Signed Message:\nHello stellar').digest();
    const publicKey = StellarKeypair.fromPublicKey(w.public_address).rawPublicKey();
    expect(nacl.sign.detached.verify(hash, Buffer.from(res.signature, 'base64'), publicKey)).toBe(true);
  });

  it('bitcoin: BIP-322 simple for P2WPKH, bip322-js verifies', async () => {
    const w = wallets.bitcoin;
    const res = ok(await signMessage(w, 'Hello World'));
    expect(res.encoding).toBe('base64');
    expect(Verifier.verifySignature(w.public_address, 'Hello World', res.signature)).toBe(true);
    expect(Verifier.verifySignature(w.public_address, 'Hello World!', res.signature)).toBe(false);
  });

  it('bitcoin: signing again with a remembered public key, and with another wallet between, verifies', async () => {
    const other = await newWallet(t, 'bitcoin');
    for (const [w, message] of [
      [wallets.bitcoin, 'first'],
      [other, 'between'],
      [wallets.bitcoin, 'again'],
    ] as const) {
      const res = ok(await signMessage(w, message));
      expect(Verifier.verifySignature(w.public_address, message, res.signature)).toBe(true);
    }
  });

  it('refuses a message that is not in its encoding, and a Solana transaction as a message', async () => {
    for (const [message, encoding] of [
      ['xyz', 'hex'],
      ['abc', 'hex'],
      ['0x', 'hex'],
      ['***', 'base64'],
    ]) {
      const res = await signMessage(wallets.ethereum, message!, encoding);
      expect(res.status, `${message} ${encoding}`).toBe(400);
      expect(expectErrorShape(res).error_field).toBe('message');
    }
    const payer = new PublicKey(wallets.solana.public_address);
    const tx = new SolanaTransaction({
      feePayer: payer,
      recentBlockhash: base58.encode(new Uint8Array(32).fill(7)),
    });
    tx.add(
      SystemProgram.transfer({
        fromPubkey: payer,
        toPubkey: SolanaKeypair.generate().publicKey,
        lamports: 5,
      }),
    );
    const asMessage = await signMessage(wallets.solana, tx.serializeMessage().toString('base64'), 'base64');
    expect(asMessage.status).toBe(400);
  });
});

describe('solana sign_message: a transaction message with bytes after it is still a transaction', () => {
  const payer = () => new PublicKey(wallets.solana.public_address);
  const transfer = () =>
    SystemProgram.transfer({
      fromPubkey: payer(),
      toPubkey: SolanaKeypair.generate().publicKey,
      lamports: 5,
    });
  const recentBlockhash = base58.encode(new Uint8Array(32).fill(7));
  const legacy = () =>
    new SolanaTransaction({ feePayer: payer(), recentBlockhash }).add(transfer()).serializeMessage();
  const v0 = () =>
    Buffer.from(
      new TransactionMessage({ payerKey: payer(), recentBlockhash, instructions: [transfer()] })
        .compileToV0Message()
        .serialize(),
    );

  it('refuses legacy + 1 byte, v0 + 1 byte and v0 + many bytes (web3.js reads the message off the front)', async () => {
    for (const [name, bytes] of [
      ['legacy + 1', Buffer.concat([legacy(), Buffer.from([0])])],
      ['v0 + 1', Buffer.concat([v0(), Buffer.from([1])])],
      ['v0 + many', Buffer.concat([v0(), Buffer.alloc(5000, 0x61)])],
    ] as const) {
      const read = VersionedMessage.deserialize(bytes).serialize();
      expect(bytes.subarray(0, read.length).equals(Buffer.from(read)), name).toBe(true);
      const res = await signMessage(wallets.solana, bytes.toString('base64'), 'base64');
      expect(res.status, name).toBe(400);
      const body = expectErrorShape(res);
      expect(body.error_type, name).toBe('invalid_field');
      expect(body.error_field, name).toBe('message');
      expect(body.error_message, name).toMatch(/Solana transaction/);
    }
  });

  it('still signs plain text, long text and the off-chain message format; tweetnacl verifies', async () => {
    const prose = 'Sign in to example.com. By signing you accept the terms of service. ';
    const offchain = Buffer.concat([
      Buffer.from('\xffsolana offchain', 'latin1'),
      Buffer.from([0, 0]),
      legacy(),
    ]);
    for (const [message, encoding] of [
      ['Sign in to example.com\nNonce: 8f2a', 'utf8'],
      [prose.repeat(1400), 'utf8'], // about 95 kB of text: long enough to read as keys and instructions
      [offchain.toString('base64'), 'base64'],
    ] as const) {
      const bytes = encoding === 'utf8' ? Buffer.from(message) : Buffer.from(message, 'base64');
      const res = ok(await signMessage(wallets.solana, message, encoding));
      expect(
        nacl.sign.detached.verify(
          bytes,
          base58.decode(res.signature),
          base58.decode(wallets.solana.public_address),
        ),
      ).toBe(true);
    }
  });
});

describe('wallets whose row has no sealed key (made before keys were sealed on the row)', () => {
  it('still sign, from the seed, on every chain; each signature checked by its library', async () => {
    const storage = memoryStorage();
    // The row as such a wallet has it: the key only reachable from the user's sealed seed.
    const oldRows: Storage = {
      ...storage,
      wallets: {
        ...storage.wallets,
        get: async (appId, walletId) => {
          const w = await storage.wallets.get(appId, walletId);
          return w && { ...w, sealed_private_key: null };
        },
      },
    };
    const app = await testApp(createLatchkey({ storage: oldRows, secret: TEST_SECRET }));
    const message = 'Sign in to example.com';
    const eth = await newWallet(app, 'ethereum');
    expect(verifyMessage(message, ok(await signMessage(eth, message, undefined, app)).signature)).toBe(
      eth.public_address,
    );
    const sol = await newWallet(app, 'solana');
    const solSig = ok(await signMessage(sol, message, undefined, app)).signature;
    expect(
      nacl.sign.detached.verify(
        Buffer.from(message),
        base58.decode(solSig),
        base58.decode(sol.public_address),
      ),
    ).toBe(true);
    const dot = await newWallet(app, 'DOT');
    const dotSig = ok(await signMessage(dot, message, undefined, app)).signature;
    expect(signatureVerify(`<Bytes>${message}</Bytes>`, dotSig, dot.public_address).isValid).toBe(true);
    const btc = await newWallet(app, 'bitcoin');
    const btcSig = ok(await signMessage(btc, message, undefined, app)).signature;
    expect(Verifier.verifySignature(btc.public_address, message, btcSig)).toBe(true);
  });
});

describe('sign_typed_data', () => {
  it('EIP-712 v4: ethers verifyTypedData recovers the wallet', async () => {
    const w = wallets.ethereum;
    const res = ok(await t.call('POST', `/v1/wallets/${w.id}/sign_typed_data`, { typed_data: TYPED }));
    expect(res.wallet_id).toBe(w.id);
    expect(verifyTypedData(TYPED.domain, TYPED.types, TYPED.message, res.signature)).toBe(w.public_address);
    // The EIP712Domain entry eth_signTypedData_v4 callers include, and a chain id as a string.
    const withDomainType = {
      ...TYPED,
      domain: { ...TYPED.domain, chainId: '1' },
      types: {
        ...TYPED.types,
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
      },
    };
    const again = ok(
      await t.call('POST', `/v1/wallets/${w.id}/sign_typed_data`, { typed_data: withDomainType }),
    );
    expect(verifyTypedData(TYPED.domain, TYPED.types, TYPED.message, again.signature)).toBe(w.public_address);
  });

  it('refuses typed data on a non-ethereum wallet and typed data that does not match its types', async () => {
    const onSolana = await t.call('POST', `/v1/wallets/${wallets.solana.id}/sign_typed_data`, {
      typed_data: TYPED,
    });
    expect(expectErrorShape(onSolana).error_type).toBe('wallet_type_mismatch');
    const bad = [
      { ...TYPED, primaryType: 'Nope' },
      { ...TYPED, message: { ...TYPED.message, from: { name: 'Cow', wallet: 'not an address' } } },
      { ...TYPED, domain: { ...TYPED.domain, chainId: 'one' } },
      { ...TYPED, domain: { ...TYPED.domain, verifyingContract: '0x12' } },
      { ...TYPED, types: { Mail: [{ name: 'x', type: 'NoSuchType' }] } },
    ];
    for (const typed_data of bad) {
      const res = await t.call('POST', `/v1/wallets/${wallets.ethereum.id}/sign_typed_data`, { typed_data });
      expect(res.status, JSON.stringify(typed_data)).toBe(400);
      expectErrorShape(res);
    }
  });
});

describe('sign_transaction', () => {
  const signTx = (w: W, body: unknown, app = t) =>
    app.call('POST', `/v1/wallets/${w.id}/sign_transaction`, body);

  it('ethereum EIP-1559 and legacy EIP-155 from fields: ethers reads the sender and hash', async () => {
    const w = wallets.ethereum;
    for (const fields of [eip1559, legacy]) {
      const res = ok(await signTx(w, { eth_transaction: fields }));
      const tx = EthTransaction.from(res.signed_transaction);
      expect(tx.from).toBe(w.public_address);
      expect(tx.hash).toBe(res.transaction_hash);
      expect(tx.chainId).toBe(1n);
      expect(tx.to).toBe(ETH_TO);
      expect(tx.type).toBe(fields === legacy ? 0 : 2);
      expect(res.wallet).toMatchObject({ id: w.id, wallet_client_type: 'latchkey' });
    }
  });

  it('ethereum from an unsigned serialization made by ethers', async () => {
    const w = wallets.ethereum;
    for (const type of [0, 2]) {
      const unsigned = EthTransaction.from({
        type,
        chainId: 137,
        nonce: 1,
        gasLimit: 60000,
        to: ETH_TO,
        value: 5,
        data: '0xa9059cbb',
        ...(type === 0 ? { gasPrice: 10 } : { maxFeePerGas: 10, maxPriorityFeePerGas: 1 }),
      });
      const res = ok(await signTx(w, { eth_transaction: { serialized: unsigned.unsignedSerialized } }));
      const tx = EthTransaction.from(res.signed_transaction);
      expect(tx.from).toBe(w.public_address);
      expect(tx.chainId).toBe(137n);
      expect(tx.unsignedHash).toBe(unsigned.unsignedHash);
    }
  });

  it('bitcoin PSBT: the wallet input is signed; bitcoinjs-lib validates it and finalises', async () => {
    const w = wallets.bitcoin;
    const other = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
    const psbt = new bitcoin.Psbt();
    psbt.addInput({
      hash: 'aa'.repeat(32),
      index: 1,
      witnessUtxo: { script: bitcoin.address.toOutputScript(w.public_address), value: 100_000n },
    });
    psbt.addOutput({ address: other, value: 90_000n });
    const res = ok(await signTx(w, { btc_psbt: { psbt: psbt.toBase64() } }));
    const signed = bitcoin.Psbt.fromBase64(res.signed_transaction);
    expect(
      signed.validateSignaturesOfInput(0, (pubkey, hash, signature) => ecc.verify(hash, pubkey, signature)),
    ).toBe(true);
    signed.finalizeAllInputs();
    const tx = signed.extractTransaction();
    expect(tx.ins[0]!.witness).toHaveLength(2);
  });

  it('XLM envelope: @stellar/stellar-base verifies the signature with the wallet key', async () => {
    const w = wallets.XLM;
    const build = (passphrase: string) =>
      new TransactionBuilder(new StellarAccount(w.public_address, '100'), {
        fee: '100',
        networkPassphrase: passphrase,
      })
        .addOperation(
          Operation.payment({
            destination: StellarKeypair.random().publicKey(),
            asset: Asset.native(),
            amount: '1',
          }),
        )
        .setTimeout(30)
        .build();
    for (const passphrase of [undefined, Networks.TESTNET]) {
      const tx = build(passphrase ?? Networks.PUBLIC);
      const res = ok(
        await signTx(w, {
          xlm_transaction: {
            transaction: tx.toEnvelope().toXDR('base64'),
            ...(passphrase ? { network_passphrase: passphrase } : {}),
          },
        }),
      );
      const signed = new StellarTransaction(res.signed_transaction, passphrase ?? Networks.PUBLIC);
      expect(signed.signatures).toHaveLength(1);
      const keypair = StellarKeypair.fromPublicKey(w.public_address);
      expect(keypair.verify(signed.hash(), signed.signatures[0]!.signature())).toBe(true);
      expect(signed.signatures[0]!.hint().equals(keypair.signatureHint())).toBe(true);
      expect(res.transaction_hash).toBe(signed.hash().toString('hex'));
    }
  });

  it('refuses malformed transactions of every kind, the wrong kind for the wallet, and inputs it cannot sign', async () => {
    const cases: Array<[W, unknown, string]> = [
      [wallets.ethereum, { eth_transaction: { serialized: '0xzz' } }, 'invalid_transaction'],
      [wallets.ethereum, { eth_transaction: { serialized: '0x02c0' } }, 'invalid_transaction'],
      [wallets.ethereum, { eth_transaction: { serialized: '0xdeadbeef' } }, 'invalid_transaction'],
      [wallets.ethereum, { eth_transaction: { ...legacy, gas_price: undefined } }, 'invalid_transaction'],
      [wallets.ethereum, { eth_transaction: { ...eip1559, gas_price: '1' } }, 'invalid_transaction'],
      [
        wallets.ethereum,
        { eth_transaction: { ...eip1559, max_priority_fee_per_gas: '99999999999999' } },
        'invalid_transaction',
      ],
      // A field missing inside the union's branch is named at its path, as a missing field.
      [wallets.ethereum, { eth_transaction: { ...eip1559, chain_id: undefined } }, 'missing_field'],
      [wallets.ethereum, { eth_transaction: { ...eip1559, to: '0x12' } }, 'invalid_field'],
      [wallets.ethereum, { eth_transaction: { ...eip1559, value: '-1' } }, 'invalid_field'],
      [wallets.ethereum, { sol_transaction: { transaction: 'AAAA' } }, 'wallet_type_mismatch'],
      [wallets.ethereum, {}, 'missing_field'],
      [wallets.solana, { eth_transaction: eip1559 }, 'wallet_type_mismatch'],
      [wallets.DOT, { eth_transaction: eip1559 }, 'wallet_type_mismatch'],
      [wallets.bitcoin, { btc_psbt: { psbt: 'not base64!' } }, 'invalid_transaction'],
      [
        wallets.bitcoin,
        { btc_psbt: { psbt: Buffer.from('psbt\xff').toString('base64') } },
        'invalid_transaction',
      ],
      [wallets.XLM, { xlm_transaction: { transaction: 'AAAA' } }, 'invalid_transaction'],
      [
        wallets.XLM,
        { xlm_transaction: { transaction: Buffer.alloc(100, 7).toString('base64') } },
        'invalid_transaction',
      ],
      [wallets.XLM, { btc_psbt: { psbt: 'AAAA' } }, 'wallet_type_mismatch'],
    ];
    for (const [w, body, errorType] of cases) {
      const res = await signTx(w, body);
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status, JSON.stringify(body)).toBeLessThan(500);
      expect(expectErrorShape(res).error_type, JSON.stringify(body)).toBe(errorType);
    }
    // A signed ethereum transaction, and a legacy one without a chain id.
    const signed = ok(await signTx(wallets.ethereum, { eth_transaction: eip1559 })).signed_transaction;
    const preEip155 = EthTransaction.from({ type: 0, nonce: 1, gasLimit: 21000, gasPrice: 1, to: ETH_TO });
    for (const serialized of [signed, preEip155.unsignedSerialized]) {
      const res = await signTx(wallets.ethereum, { eth_transaction: { serialized } });
      expect(expectErrorShape(res).error_type).toBe('invalid_transaction');
    }
    // A PSBT with no input of this wallet.
    const psbt = new bitcoin.Psbt();
    psbt.addInput({
      hash: 'bb'.repeat(32),
      index: 0,
      witnessUtxo: {
        script: bitcoin.address.toOutputScript('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'),
        value: 5n,
      },
    });
    psbt.addOutput({ address: wallets.bitcoin.public_address, value: 4n });
    const notMine = await signTx(wallets.bitcoin, { btc_psbt: { psbt: psbt.toBase64() } });
    expect(expectErrorShape(notMine).error_type).toBe('wallet_not_a_signer');
  });
});

describe('policies and the audit trail on the new methods', () => {
  async function fresh() {
    const { latchkey, clock } = testLatchkey();
    const app = await testApp(latchkey);
    const policy = async (body: unknown) => {
      clock.advance(0.001);
      return ok(await app.call('POST', '/v1/wallets/policies', body)) as { policy_id: string };
    };
    return { app, policy };
  }
  const violation = (
    res: { status: number; body: any; headers: Headers },
    policy_id: string,
    rule_kind: string,
  ) => {
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(expectErrorShape(res).error_type).toBe('policy_violation');
    expect(res.body.policy_rule).toMatchObject({ policy_id, rule_kind });
  };

  it('EVM rules judge transactions and typed data; method rules judge messages', async () => {
    const { app, policy } = await fresh();
    const w = await newWallet(app, 'ethereum');
    const tx = (fields: object) =>
      app.call('POST', `/v1/wallets/${w.id}/sign_transaction`, {
        eth_transaction: { ...eip1559, ...fields },
      });
    const p = await policy({
      name: 'EVM',
      rules: [
        { kind: 'evm_chain_allowlist', chain_ids: ['1'] },
        { kind: 'evm_to_allowlist', addresses: [ETH_TO, TYPED.domain.verifyingContract] },
        { kind: 'evm_selector_allowlist', selectors: ['0xa9059cbb'] },
        { kind: 'evm_max_value', max_wei: '1000' },
      ],
    });
    expect(
      EthTransaction.from(ok(await tx({ value: '1000', data: '0xa9059cbb00' })).signed_transaction).from,
    ).toBe(w.public_address);
    violation(await tx({ chain_id: '5', value: '0' }), p.policy_id, 'evm_chain_allowlist');
    violation(await tx({ to: `0x${'44'.repeat(20)}`, value: '0' }), p.policy_id, 'evm_to_allowlist');
    violation(await tx({ value: '0', data: '0x095ea7b3' }), p.policy_id, 'evm_selector_allowlist');
    violation(await tx({ value: '0', data: '0x09' }), p.policy_id, 'evm_selector_allowlist');
    violation(await tx({ value: '1001' }), p.policy_id, 'evm_max_value');
    const typed = (typed_data: unknown) =>
      app.call('POST', `/v1/wallets/${w.id}/sign_typed_data`, { typed_data });
    ok(await typed(TYPED));
    violation(
      await typed({ ...TYPED, domain: { ...TYPED.domain, chainId: 10 } }),
      p.policy_id,
      'evm_chain_allowlist',
    );
    violation(
      await typed({ ...TYPED, domain: { ...TYPED.domain, verifyingContract: `0x${'44'.repeat(20)}` } }),
      p.policy_id,
      'evm_to_allowlist',
    );
    const { verifyingContract: _, ...noContract } = TYPED.domain;
    violation(await typed({ ...TYPED, domain: noContract }), p.policy_id, 'evm_to_allowlist');
    // A message carries no EVM facts: these rules do not apply to it.
    ok(await signMessage(w, 'hi', undefined, app));
    const m = await policy({
      name: 'No messages',
      rules: [{ kind: 'allowed_methods', methods: ['sign_transaction'] }],
    });
    violation(await signMessage(w, 'hi', undefined, app), m.policy_id, 'allowed_methods');
    violation(await typed(TYPED), m.policy_id, 'allowed_methods');
  });

  it('a daily EVM cap counts signed transactions; bitcoin rules judge PSBT outputs', async () => {
    const { app, policy } = await fresh();
    const w = await newWallet(app, 'ethereum');
    const p = await policy({
      name: 'Daily',
      rules: [{ kind: 'evm_daily_value', max_wei: '2500', chain_id: '1' }],
    });
    const tx = (value: string) =>
      app.call('POST', `/v1/wallets/${w.id}/sign_transaction`, { eth_transaction: { ...eip1559, value } });
    ok(await tx('1000'));
    ok(await tx('1000'));
    violation(await tx('1000'), p.policy_id, 'evm_daily_value');
    ok(await tx('500'));

    const b = await newWallet(app, 'bitcoin');
    const allowed = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
    const q = await policy({
      name: 'BTC',
      wallet_id: b.id,
      rules: [
        { kind: 'bitcoin_address_allowlist', addresses: [allowed] },
        { kind: 'bitcoin_max_output_value', max_sats: '50000' },
      ],
    });
    const psbt = (to: string, value: bigint) => {
      const p = new bitcoin.Psbt();
      p.addInput({
        hash: 'cc'.repeat(32),
        index: 0,
        witnessUtxo: { script: bitcoin.address.toOutputScript(b.public_address), value: 100_000n },
      });
      p.addOutput({ address: to, value });
      p.addOutput({ address: b.public_address, value: 100_000n - value - 500n }); // change
      return app.call('POST', `/v1/wallets/${b.id}/sign_transaction`, { btc_psbt: { psbt: p.toBase64() } });
    };
    ok(await psbt(allowed, 50_000n));
    violation(await psbt(allowed, 50_001n), q.policy_id, 'bitcoin_max_output_value');
    violation(
      await psbt('bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l', 10n),
      q.policy_id,
      'bitcoin_address_allowlist',
    );
    // The policy on one wallet does not bind another.
    const b2 = await newWallet(app, 'bitcoin');
    const other = new bitcoin.Psbt();
    other.addInput({
      hash: 'dd'.repeat(32),
      index: 0,
      witnessUtxo: { script: bitcoin.address.toOutputScript(b2.public_address), value: 100_000n },
    });
    other.addOutput({ address: 'bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l', value: 90_000n });
    ok(
      await app.call('POST', `/v1/wallets/${b2.id}/sign_transaction`, {
        btc_psbt: { psbt: other.toBase64() },
      }),
    );
  });

  it('records allowed and refused requests of every method; another App sees none and signs nothing (404)', async () => {
    const { app, policy } = await fresh();
    const w = await newWallet(app, 'ethereum');
    ok(await signMessage(w, 'one', undefined, app));
    ok(await app.call('POST', `/v1/wallets/${w.id}/sign_typed_data`, { typed_data: TYPED }));
    ok(await app.call('POST', `/v1/wallets/${w.id}/sign_transaction`, { eth_transaction: eip1559 }));
    const p = await policy({
      name: 'Tx only',
      rules: [{ kind: 'allowed_methods', methods: ['sign_transaction'] }],
    });
    expect((await signMessage(w, 'two', undefined, app)).status).toBe(403);
    const trail = ok(await app.call('GET', `/v1/wallets/${w.id}/signatures`)).signatures;
    expect(trail.map((s: any) => [s.method, s.decision])).toEqual([
      ['sign_message', 'refused'],
      ['sign_transaction', 'allowed'],
      ['sign_typed_data', 'allowed'],
      ['sign_message', 'allowed'],
    ]);
    expect(trail[0]).toMatchObject({
      chain: 'ethereum',
      policy_id: p.policy_id,
      rule_kind: 'allowed_methods',
    });
    expect(trail[3].payload_digest).toBe(createHash('sha256').update('one').digest('hex'));

    const other = await testApp(app.latchkey);
    for (const [path, body] of [
      ['sign_message', { message: 'x' }],
      ['sign_typed_data', { typed_data: TYPED }],
      ['sign_transaction', { eth_transaction: eip1559 }],
    ] as const) {
      const res = await other.call('POST', `/v1/wallets/${w.id}/${path}`, body);
      expect(res.status, path).toBe(404);
      expect(expectErrorShape(res).error_type).toBe('wallet_not_found');
    }
    expect((await other.call('GET', `/v1/wallets/${w.id}/signatures`)).status).toBe(404);
    expect(ok(await app.call('GET', `/v1/wallets/${w.id}/signatures`)).signatures).toHaveLength(4);
  });
});
