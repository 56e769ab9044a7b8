import {
  AddressLookupTableAccount,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { decodeBase58, encodeBase58 } from 'ethers';
import fc from 'fast-check';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { solana } from '../src/chains/index.js';
import { parseSolanaMessage, signSolanaMessage, signSolanaTransaction } from '../src/chains/signing.js';

const MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const wallet = solana.deriveFromMnemonic(MNEMONIC);
const walletKey = new PublicKey(wallet.publicKey);
const other = Keypair.fromSeed(new Uint8Array(32).fill(5));
const recipient = new PublicKey(new Uint8Array(32).fill(77));
const recentBlockhash = new PublicKey(new Uint8Array(32).fill(3)).toBase58();

const transfer = (from: PublicKey) =>
  SystemProgram.transfer({ fromPubkey: from, toPubkey: recipient, lamports: 1000 });

function legacyTransaction(feePayer: PublicKey, from: PublicKey): Uint8Array {
  const tx = new Transaction({ feePayer, recentBlockhash }).add(transfer(from));
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false });
}

function v0Transaction(payerKey: PublicKey, from: PublicKey): Uint8Array {
  const message = new TransactionMessage({
    payerKey,
    recentBlockhash,
    instructions: [transfer(from)],
  }).compileToV0Message();
  return new VersionedTransaction(message).serialize();
}

/** The signature bytes of a base58 string, via ethers (not the source's base58). */
const sigBytes = (b58: string) => {
  const n = decodeBase58(b58);
  return new Uint8Array(Buffer.from(n.toString(16).padStart(128, '0'), 'hex'));
};

const expectRefused = (f: () => Promise<unknown>, errorType = 'invalid_transaction') =>
  expect(f()).rejects.toThrow(expect.objectContaining({ errorType, field: 'sol_transaction.transaction' }));
const expectNotSigner = (f: () => Promise<unknown>) => expectRefused(f, 'wallet_not_a_signer');

describe('signSolanaTransaction', () => {
  it('signs a legacy transaction the wallet pays for; web3.js and tweetnacl verify it', async () => {
    const unsigned = legacyTransaction(walletKey, walletKey);
    const { signature, signedTransaction } = await signSolanaTransaction(
      unsigned,
      wallet.privateKey,
      wallet.address,
    );
    const tx = Transaction.from(signedTransaction);
    expect(tx.verifySignatures()).toBe(true);
    expect(encodeBase58(tx.signatures[0]!.signature!)).toBe(signature);
    expect(nacl.sign.detached.verify(tx.serializeMessage(), sigBytes(signature), wallet.publicKey)).toBe(
      true,
    );
    // Only the signature slot changed.
    expect(Buffer.from(signedTransaction.subarray(65)).equals(Buffer.from(unsigned.subarray(65)))).toBe(true);
    expect(signedTransaction.length).toBe(unsigned.length);
  });

  it('signs a v0 transaction; tweetnacl verifies the signature over the message', async () => {
    const unsigned = v0Transaction(walletKey, walletKey);
    expect(unsigned[1 + 64]! & 0x80).toBe(0x80); // versioned
    const { signature, signedTransaction } = await signSolanaTransaction(
      unsigned,
      wallet.privateKey,
      wallet.publicKey,
    );
    const tx = VersionedTransaction.deserialize(signedTransaction);
    expect(encodeBase58(tx.signatures[0]!)).toBe(signature);
    expect(nacl.sign.detached.verify(tx.message.serialize(), tx.signatures[0]!, wallet.publicKey)).toBe(true);
  });

  it('takes the 64-byte secret key form and gives the same signature (ed25519 is deterministic)', async () => {
    const unsigned = v0Transaction(walletKey, walletKey);
    const secret64 = new Uint8Array([...wallet.privateKey, ...wallet.publicKey]);
    expect((await signSolanaTransaction(unsigned, secret64, wallet.address)).signature).toBe(
      (await signSolanaTransaction(unsigned, wallet.privateKey, wallet.address)).signature,
    );
  });

  it('puts the signature in slot 1 when the wallet is the second required signer', async () => {
    for (const build of [legacyTransaction, v0Transaction]) {
      const unsigned = build(other.publicKey, walletKey);
      expect(unsigned[0]).toBe(2);
      const { signature, signedTransaction } = await signSolanaTransaction(
        unsigned,
        wallet.privateKey,
        wallet.address,
      );
      const tx = VersionedTransaction.deserialize(signedTransaction);
      expect(tx.signatures[0]!.every((b) => b === 0)).toBe(true);
      expect(encodeBase58(tx.signatures[1]!)).toBe(signature);
      expect(nacl.sign.detached.verify(tx.message.serialize(), tx.signatures[1]!, wallet.publicKey)).toBe(
        true,
      );
      // The fee payer can still add theirs and the whole transaction verifies.
      tx.sign([other]);
      expect(
        tx.signatures.every((sig, i) =>
          nacl.sign.detached.verify(tx.message.serialize(), sig, tx.message.staticAccountKeys[i]!.toBytes()),
        ),
      ).toBe(true);
    }
  });

  it('refuses a transaction whose signers do not include the wallet', async () => {
    await expectNotSigner(() =>
      signSolanaTransaction(
        legacyTransaction(other.publicKey, other.publicKey),
        wallet.privateKey,
        wallet.address,
      ),
    );
    await expectNotSigner(() =>
      signSolanaTransaction(
        v0Transaction(other.publicKey, other.publicKey),
        wallet.privateKey,
        wallet.address,
      ),
    );
  });

  it('refuses a wallet that is only a non-signing account of the transaction', async () => {
    const tx = new Transaction({ feePayer: other.publicKey, recentBlockhash }).add(
      SystemProgram.transfer({ fromPubkey: other.publicKey, toPubkey: walletKey, lamports: 1 }),
    );
    const bytes = tx.serialize({ requireAllSignatures: false, verifySignatures: false });
    expect(Buffer.from(bytes).includes(Buffer.from(wallet.publicKey))).toBe(true);
    await expectNotSigner(() => signSolanaTransaction(bytes, wallet.privateKey, wallet.address));
  });

  it('refuses garbage, empty, truncated and padded bytes', async () => {
    const good = v0Transaction(walletKey, walletKey);
    const legacy = legacyTransaction(walletKey, walletKey);
    const bad = [
      new Uint8Array(0),
      new Uint8Array([0]),
      new Uint8Array(200).fill(0xff),
      new Uint8Array(Buffer.from('this is not a transaction at all, just some text to sign')),
      good.subarray(0, good.length - 1),
      legacy.subarray(0, legacy.length - 5),
      new Uint8Array([...good, 0]),
      new Uint8Array([...legacy, 1, 2, 3]),
      good.subarray(65), // the message without its signature array
    ];
    for (const bytes of bad)
      await expectRefused(() => signSolanaTransaction(bytes, wallet.privateKey, wallet.address));
  });

  it('refuses a signature count that differs from the required signers', async () => {
    const good = legacyTransaction(walletKey, walletKey);
    const twoSlots = new Uint8Array([2, ...new Uint8Array(64), ...good.subarray(1)]);
    await expectRefused(() => signSolanaTransaction(twoSlots, wallet.privateKey, wallet.address));
  });

  it("fails loudly when the key is not the wallet's", async () => {
    const unsigned = legacyTransaction(walletKey, walletKey);
    await expect(
      signSolanaTransaction(unsigned, other.secretKey.subarray(0, 32), wallet.address),
    ).rejects.toThrow(expect.objectContaining({ errorType: 'internal_error' }));
    const inconsistent = new Uint8Array([...wallet.privateKey, ...other.publicKey.toBytes()]);
    await expect(signSolanaTransaction(unsigned, inconsistent, wallet.address)).rejects.toThrow(
      expect.objectContaining({ errorType: 'internal_error' }),
    );
  });
});

describe('signSolanaMessage', () => {
  it('signs the raw bytes; tweetnacl verifies', async () => {
    const message = new TextEncoder().encode('Sign in to example.com\nNonce: 12345');
    const { signature } = await signSolanaMessage(message, wallet.privateKey, wallet.address);
    expect(nacl.sign.detached.verify(message, sigBytes(signature), wallet.publicKey)).toBe(true);
  });

  /**
   * The oracle: how web3.js reads a message from the start of the bytes (it ignores what
   * follows), and whether that message passes the runtime's sanitize rules (from the validator's
   * source, written here over web3.js's reading of the fields). `canonical`: the bytes begin
   * with the message's own serialization, as a validator would read it; `loose`: only web3.js's
   * looser reading of counts (any length, cut off at the end) finds it.
   */
  const web3Reads = (bytes: Uint8Array): 'canonical' | 'loose' | 'nothing' => {
    let m: VersionedMessage;
    try {
      m = VersionedMessage.deserialize(bytes);
    } catch {
      return 'nothing';
    }
    const keys = m.staticAccountKeys.length;
    const lookups = m.addressTableLookups.reduce(
      (n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length,
      0,
    );
    const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } = m.header;
    const runnable =
      numReadonlySignedAccounts < numRequiredSignatures &&
      numRequiredSignatures + numReadonlyUnsignedAccounts <= keys &&
      m.compiledInstructions.every(
        (ix) =>
          ix.programIdIndex > 0 &&
          ix.programIdIndex < keys &&
          ix.accountKeyIndexes.every((a) => a < keys + lookups),
      );
    if (!runnable) return 'nothing';
    const own = m.serialize();
    return Buffer.from(bytes.subarray(0, own.length)).equals(Buffer.from(own)) ? 'canonical' : 'loose';
  };
  const web3ReadsPrefix = (bytes: Uint8Array) => web3Reads(bytes) === 'canonical';
  const refusedAsTransaction = (bytes: Uint8Array) =>
    expect(signSolanaMessage(bytes, wallet.privateKey, wallet.address)).rejects.toThrow(
      expect.objectContaining({ errorType: 'invalid_field', field: 'message' }),
    );

  it('refuses a transaction message followed by anything: one byte, many bytes, text', async () => {
    const legacy = legacyTransaction(walletKey, walletKey).subarray(65);
    const v0 = v0Transaction(walletKey, walletKey).subarray(65);
    const tails = [
      new Uint8Array([0]),
      new Uint8Array([0xff]),
      new Uint8Array(900).fill(0x41),
      new TextEncoder().encode(' and a note to make it look like text'),
    ];
    for (const message of [legacy, v0])
      for (const tail of tails) {
        const bytes = new Uint8Array([...message, ...tail]);
        expect(web3ReadsPrefix(bytes)).toBe(true);
        await refusedAsTransaction(bytes);
      }
  });

  it('refuses all bytes web3.js reads a runnable message off the front of, and signs what it reads none from', async () => {
    const messages = [
      legacyTransaction(walletKey, walletKey).subarray(65),
      v0Transaction(walletKey, walletKey).subarray(65),
      v0Transaction(other.publicKey, walletKey).subarray(129),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...messages),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }),
        fc.uint8Array({ maxLength: 40 }),
        fc.integer({ min: 0, max: 4 }),
        async (base, edits, tail, cut) => {
          const bytes = new Uint8Array([...base.subarray(0, base.length - cut), ...tail]);
          for (const [at, value] of edits) bytes[at % bytes.length] = value;
          const read = web3Reads(bytes);
          if (read === 'canonical') await refusedAsTransaction(bytes);
          if (read === 'nothing') {
            const { signature } = await signSolanaMessage(bytes, wallet.privateKey, wallet.address);
            expect(nacl.sign.detached.verify(bytes, sigBytes(signature), wallet.publicKey)).toBe(true);
          }
          // 'loose' (a count in a form no validator reads) may go either way.
        },
      ),
      { numRuns: 200 },
    );
  });

  it("holds the runtime's sanitize rules at their boundaries, with web3.js as the reader", async () => {
    for (const base of [
      legacyTransaction(walletKey, walletKey).subarray(65),
      v0Transaction(walletKey, walletKey).subarray(65),
    ]) {
      const h = base[0]! & 0x80 ? 1 : 0; // the header's first byte
      const keys = base[h + 3]!;
      const ix = h + 4 + 32 * keys + 32 + 1; // the first instruction's program index
      expect([base[h]!, base[h + 1]!, base[h + 2]!, keys, base[ix]!, base[ix + 1]!]).toEqual([
        1, 0, 1, 3, 2, 2,
      ]);
      const edit = (...changes: [number, number][]) => {
        const bytes = new Uint8Array([...base, 9]);
        for (const [at, value] of changes) bytes[at] = value;
        return bytes;
      };
      const cases: [string, Uint8Array, boolean][] = [
        ['as built', edit(), true],
        ['read-only signers = signers', edit([h + 1, 1]), false],
        ['read-only signers = signers - 1', edit([h, 2], [h + 1, 1], [h + 2, 0]), true],
        ['signers + read-only unsigned = keys', edit([h + 2, 2]), true],
        ['signers + read-only unsigned = keys + 1', edit([h + 2, 3]), false],
        ['program is the fee payer', edit([ix, 0]), false],
        ['program is the last key', edit([ix, keys - 1]), true],
        ['program past the keys', edit([ix, keys]), false],
        ['account is the last key', edit([ix + 3, keys - 1]), true],
        ['account past the keys', edit([ix + 3, keys]), false],
      ];
      for (const [name, bytes, runnable] of cases) {
        expect(web3Reads(bytes), name).toBe(runnable ? 'canonical' : 'nothing');
        if (runnable) await refusedAsTransaction(bytes);
        else {
          const { signature } = await signSolanaMessage(bytes, wallet.privateKey, wallet.address);
          expect(nacl.sign.detached.verify(bytes, sigBytes(signature), wallet.publicKey), name).toBe(true);
        }
      }
    }
  });

  it('counts the accounts a v0 message loads from lookup tables', async () => {
    const table = new AddressLookupTableAccount({
      key: new PublicKey(new Uint8Array(32).fill(44)),
      state: {
        deactivationSlot: 2n ** 64n - 1n,
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        addresses: [recipient],
      },
    });
    const message = new TransactionMessage({
      payerKey: walletKey,
      recentBlockhash,
      instructions: [transfer(walletKey)],
    })
      .compileToV0Message([table])
      .serialize();
    const m = VersionedMessage.deserialize(message);
    // The recipient comes from the table: its index is past the static keys.
    expect(m.staticAccountKeys.length).toBe(2);
    expect(m.compiledInstructions[0]!.accountKeyIndexes).toEqual([0, 2]);
    const bytes = new Uint8Array([...message, 1]);
    expect(web3Reads(bytes)).toBe('canonical');
    await refusedAsTransaction(bytes);
  });

  it('reads counts as loosely as web3.js: cut off at the end, or in more than 3 bytes', async () => {
    const v0 = v0Transaction(walletKey, walletKey).subarray(65);
    const legacy = legacyTransaction(walletKey, walletKey).subarray(65);
    const count = 4 + 32 * 3 + 32; // the legacy message's instruction count
    expect(legacy[count]).toBe(1);
    const fourByteCount = new Uint8Array([
      ...legacy.subarray(0, count),
      0x81,
      0x80,
      0x80,
      0x00,
      ...legacy.subarray(count + 1),
    ]);
    for (const bytes of [
      v0.subarray(0, v0.length - 1),
      new Uint8Array([...v0.subarray(0, v0.length - 1), 0x80]),
      fourByteCount,
    ]) {
      expect(web3Reads(bytes)).toBe('loose');
      await refusedAsTransaction(bytes);
    }
  });

  it("signs Solana's off-chain message format, even with a transaction message inside", async () => {
    // '\xffsolana offchain', version 0: a first byte of 0xff is no transaction version.
    const body = new Uint8Array([...legacyTransaction(walletKey, walletKey).subarray(65)]);
    const offchain = new Uint8Array([...Buffer.from('\xffsolana offchain', 'latin1'), 0, 0, ...body]);
    expect(web3ReadsPrefix(offchain)).toBe(false);
    const { signature } = await signSolanaMessage(offchain, wallet.privateKey, wallet.address);
    expect(nacl.sign.detached.verify(offchain, sigBytes(signature), wallet.publicKey)).toBe(true);
  });

  it('refuses bytes that are a transaction message', async () => {
    for (const tx of [legacyTransaction(walletKey, walletKey), v0Transaction(walletKey, walletKey)]) {
      const messageBytes = tx.subarray(65);
      await expect(signSolanaMessage(messageBytes, wallet.privateKey, wallet.address)).rejects.toThrow(
        expect.objectContaining({ errorType: 'invalid_field', field: 'message' }),
      );
    }
  });
});

describe('parseSolanaMessage against @solana/web3.js', () => {
  /** The oracle: web3.js reads the bytes as a message and serializes exactly them back. */
  const web3Accepts = (bytes: Uint8Array) => {
    try {
      return Buffer.from(VersionedMessage.deserialize(bytes).serialize()).equals(Buffer.from(bytes));
    } catch {
      return false;
    }
  };

  it('accepts exactly the messages web3.js round-trips, for real messages and every mutation of them', () => {
    const messages = [
      legacyTransaction(walletKey, walletKey).subarray(65),
      v0Transaction(walletKey, walletKey).subarray(65),
      legacyTransaction(other.publicKey, walletKey).subarray(129),
      v0Transaction(other.publicKey, walletKey).subarray(129),
    ];
    for (const m of messages) expect(parseSolanaMessage(m)).toBeDefined();
    fc.assert(
      fc.property(
        fc.constantFrom(...messages),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        fc.integer({ min: -3, max: 3 }),
        (base, edits, resize) => {
          const bytes = new Uint8Array(Math.max(0, base.length + resize));
          bytes.set(base.subarray(0, bytes.length));
          for (const [at, value] of edits) if (bytes.length) bytes[at % bytes.length] = value;
          expect(parseSolanaMessage(bytes) !== undefined).toBe(web3Accepts(bytes));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('refuses a compact-u16 in a longer form than needed, as the round trip does', () => {
    const m = legacyTransaction(walletKey, walletKey).subarray(65);
    // The account count (byte 3) re-encoded in two bytes: same value, longer form.
    const long = new Uint8Array([...m.subarray(0, 3), m[3]! | 0x80, 0x00, ...m.subarray(4)]);
    expect(web3Accepts(long)).toBe(false);
    expect(parseSolanaMessage(long)).toBeUndefined();
  });
});
