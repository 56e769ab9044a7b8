import { randomBytes } from 'node:crypto';
import { createLatchkey, type Latchkey, type Storage } from '@latchkey/core';
import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';

export const WALLET_TYPES = ['ethereum', 'solana', 'bitcoin', 'DOT', 'XLM'] as const;

export interface WalletFixture {
  latchkey: Latchkey;
  app_id: string;
  /** `creates` users without a wallet, for the create rows. */
  users: string[];
  /** One wallet of each type, each of its own user. */
  wallets: Record<(typeof WALLET_TYPES)[number], { id: string; public_address: string }>;
  /** An unsigned Solana transfer paid by the Solana wallet, base64. */
  transaction: string;
  message: { message: string; encoding: 'utf8' };
}

/** A latchkey on `storage` with one App, `creates` fresh users and a wallet of each type: what the in-process wallet rows run on. */
export async function walletFixture(storage: Storage, name: string, creates: number): Promise<WalletFixture> {
  const latchkey = createLatchkey({ storage, secret: randomBytes(32).toString('base64url') });
  const { app_id } = await latchkey.apps.create({ name });
  const users: string[] = [];
  for (let i = 0; i < creates + WALLET_TYPES.length; i++)
    users.push((await latchkey.users.create(app_id, {})).user_id);
  const wallets = Object.fromEntries(
    await Promise.all(
      WALLET_TYPES.map(
        async (wallet_type, i) =>
          [
            wallet_type,
            await latchkey.wallets.create(app_id, { user_id: users[creates + i]!, wallet_type }),
          ] as const,
      ),
    ),
  ) as unknown as WalletFixture['wallets'];
  const transaction = unsignedTransfer(wallets.solana.public_address);
  return {
    latchkey,
    app_id,
    users: users.slice(0, creates),
    wallets,
    transaction,
    message: { message: 'Sign in to example.com\nNonce: 8f2a61c0', encoding: 'utf8' },
  };
}

/** An unsigned one-lamport Solana transfer paid by `payerAddress`, base64: what the signing rows sign. */
export function unsignedTransfer(payerAddress: string): string {
  const payer = new PublicKey(payerAddress);
  return new Transaction({ feePayer: payer, recentBlockhash: Keypair.generate().publicKey.toBase58() })
    .add(SystemProgram.transfer({ fromPubkey: payer, toPubkey: Keypair.generate().publicKey, lamports: 1 }))
    .serialize({ requireAllSignatures: false, verifySignatures: false })
    .toString('base64');
}
