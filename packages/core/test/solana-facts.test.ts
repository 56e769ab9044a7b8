import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair,
  NONCE_ACCOUNT_LENGTH,
  PublicKey,
  SystemInstruction,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { solanaTransactionFacts } from '../src/chains/signing.js';

const wallet = Keypair.fromSeed(new Uint8Array(32).fill(9)).publicKey;
const other = Keypair.fromSeed(new Uint8Array(32).fill(4)).publicKey;
const to = new PublicKey(new Uint8Array(32).fill(77));
const recentBlockhash = new PublicKey(new Uint8Array(32).fill(3)).toBase58();
const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

const memo = (text: string): TransactionInstruction =>
  ({
    programId: MEMO,
    keys: [{ pubkey: wallet, isSigner: true, isWritable: false }],
    data: Buffer.from(text),
  }) as TransactionInstruction;

/** What web3.js's own decoders say the System instructions move on the wallet's authority. */
function oracleLamports(instructions: TransactionInstruction[]): bigint {
  let total = 0n;
  for (const ix of instructions) {
    if (!ix.programId.equals(SystemProgram.programId)) continue;
    const type = SystemInstruction.decodeInstructionType(ix);
    if (type === 'Transfer') {
      const d = SystemInstruction.decodeTransfer(ix);
      if (d.fromPubkey.equals(wallet)) total += d.lamports;
    } else if (type === 'Create') {
      const d = SystemInstruction.decodeCreateAccount(ix);
      if (d.fromPubkey.equals(wallet)) total += BigInt(d.lamports);
    } else if (type === 'CreateWithSeed') {
      const d = SystemInstruction.decodeCreateWithSeed(ix);
      if (d.fromPubkey.equals(wallet)) total += BigInt(d.lamports);
    } else if (type === 'TransferWithSeed') {
      const d = SystemInstruction.decodeTransferWithSeed(ix);
      if (d.basePubkey.equals(wallet)) total += d.lamports;
    } else if (type === 'WithdrawNonceAccount') {
      const d = SystemInstruction.decodeNonceWithdraw(ix);
      if (d.authorizedPubkey.equals(wallet)) total += BigInt(d.lamports);
    }
  }
  return total;
}

const legacy = (payer: PublicKey, ixs: TransactionInstruction[]) =>
  new Transaction({ feePayer: payer, recentBlockhash }).add(...ixs).serialize({
    requireAllSignatures: false,
    verifySignatures: false,
  });
const v0 = (payer: PublicKey, ixs: TransactionInstruction[], tables: AddressLookupTableAccount[] = []) =>
  new VersionedTransaction(
    new TransactionMessage({ payerKey: payer, recentBlockhash, instructions: ixs }).compileToV0Message(
      tables,
    ),
  ).serialize();

const seeded = PublicKey.createWithSeed(wallet, 'vault', SystemProgram.programId);

describe('solanaTransactionFacts', async () => {
  const derived = await seeded;
  const instructions: TransactionInstruction[] = [
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 5 }),
    SystemProgram.transfer({ fromPubkey: wallet, toPubkey: to, lamports: 1_000_000_007n }),
    SystemProgram.transfer({ fromPubkey: other, toPubkey: wallet, lamports: 999 }),
    SystemProgram.createAccount({
      fromPubkey: wallet,
      newAccountPubkey: Keypair.generate().publicKey,
      lamports: 2_039_280,
      space: 165,
      programId: to,
    }),
    SystemProgram.createAccountWithSeed({
      fromPubkey: wallet,
      newAccountPubkey: derived,
      basePubkey: wallet,
      seed: 'vault',
      lamports: 31_337,
      space: 0,
      programId: SystemProgram.programId,
    }),
    SystemProgram.transfer({
      fromPubkey: derived,
      basePubkey: wallet,
      toPubkey: to,
      lamports: 4_444,
      seed: 'vault',
      programId: SystemProgram.programId,
    }),
    SystemProgram.nonceWithdraw({
      noncePubkey: Keypair.generate().publicKey,
      authorizedPubkey: wallet,
      toPubkey: to,
      lamports: NONCE_ACCOUNT_LENGTH,
    }),
    memo('hello'),
  ];

  it('sums what web3.js decodes as moved on the wallet’s authority, legacy and v0', () => {
    const expected = oracleLamports(instructions);
    expect(expected).toBe(1_000_000_007n + 2_039_280n + 31_337n + 4_444n + BigInt(NONCE_ACCOUNT_LENGTH));
    for (const bytes of [legacy(wallet, instructions), v0(wallet, instructions)]) {
      const facts = solanaTransactionFacts(bytes, wallet.toBase58());
      expect(facts.lamports).toBe(expected);
      expect(facts.walletSigns).toBe(true);
      expect(new Set(facts.programs)).toEqual(
        new Set([ComputeBudgetProgram.programId, SystemProgram.programId, MEMO].map((p) => p.toBase58())),
      );
    }
  });

  it('counts nothing another account pays, and knows when the wallet does not sign', () => {
    const bytes = legacy(other, [
      SystemProgram.transfer({ fromPubkey: other, toPubkey: wallet, lamports: 5 }),
    ]);
    expect(solanaTransactionFacts(bytes, wallet.toBase58())).toEqual({
      programs: [SystemProgram.programId.toBase58()],
      lamports: 0n,
      walletSigns: false,
    });
    expect(solanaTransactionFacts(bytes, other.toBase58())).toMatchObject({
      lamports: 5n,
      walletSigns: true,
    });
  });

  it('reads v0 transactions whose accounts come from lookup tables', () => {
    const table = new AddressLookupTableAccount({
      key: Keypair.generate().publicKey,
      state: {
        deactivationSlot: BigInt('18446744073709551615'),
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        addresses: [to, Keypair.generate().publicKey],
      },
    });
    const ixs = [SystemProgram.transfer({ fromPubkey: wallet, toPubkey: to, lamports: 12 })];
    const bytes = v0(wallet, ixs, [table]);
    expect(VersionedTransaction.deserialize(bytes).message.addressTableLookups).toHaveLength(1);
    expect(solanaTransactionFacts(bytes, wallet.toBase58()).lamports).toBe(12n);
  });

  it('refuses truncated and garbled bytes as invalid_transaction', () => {
    const bytes = legacy(wallet, instructions);
    for (const bad of [
      bytes.subarray(0, 70),
      bytes.subarray(0, bytes.length - 3),
      new Uint8Array([1]),
      new Uint8Array([0xff, 0xff, 0xff]),
    ]) {
      expect(() => solanaTransactionFacts(bad, wallet.toBase58())).toThrow(
        expect.objectContaining({ errorType: 'invalid_transaction', field: 'sol_transaction.transaction' }),
      );
    }
    // A versioned message of an unknown version.
    const unknownVersion = v0(wallet, instructions).slice();
    // The message starts after the compact-u16 count (one byte here) and the 64-byte slots.
    unknownVersion[1 + 64 * unknownVersion[0]!] = 0x81;
    expect(() => solanaTransactionFacts(unknownVersion, wallet.toBase58())).toThrow(
      expect.objectContaining({ errorType: 'invalid_transaction' }),
    );
  });
});
