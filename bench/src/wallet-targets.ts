import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import type { Target } from './measure.js';

type Call = (method: string, route: string, body?: unknown) => Promise<Record<string, string>>;

const WALLET_TYPES = ['ethereum', 'solana', 'bitcoin', 'DOT', 'XLM'] as const;

/**
 * wallets/create for each type (each request a user without that wallet yet, so every one
 * derives and stores a wallet), wallets/list, and sign_transaction of a Solana transfer.
 */
export async function walletTargets(
  url: string,
  secretKey: string,
  call: Call,
  creates: number,
): Promise<Target[]> {
  const users: string[] = [];
  for (let i = 0; i < creates; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, creates - i) }, () => call('POST', '/v1/auth/users', {})),
    );
    users.push(...batch.map((b) => b.user_id!));
  }
  // Each user's seed is made by their first wallet; make it now so every type measures the same work.
  for (let i = 0; i < users.length; i += 50) {
    await Promise.all(
      users
        .slice(i, i + 50)
        .map((user_id) => call('POST', '/v1/wallets/create', { user_id, wallet_type: 'ethereum' })),
    );
  }
  // Users with no wallet yet: their first create also makes (and seals) their seed.
  const newUsers: string[] = [];
  for (let i = 0; i < creates; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, creates - i) }, () => call('POST', '/v1/auth/users', {})),
    );
    newUsers.push(...batch.map((b) => b.user_id!));
  }
  const messageSigners = Object.fromEntries(
    await Promise.all(
      WALLET_TYPES.map(async (wallet_type) => {
        const user = await call('POST', '/v1/auth/users', {});
        const w = await call('POST', '/v1/wallets/create', { user_id: user.user_id, wallet_type });
        return [wallet_type, w.id!] as const;
      }),
    ),
  );
  const signer = (await call('POST', '/v1/wallets/create', { user_id: users[0], wallet_type: 'solana' })) as {
    id: string;
    public_address: string;
  };
  const payer = new PublicKey(signer.public_address);
  const transaction = new Transaction({
    feePayer: payer,
    recentBlockhash: Keypair.generate().publicKey.toBase58(),
  })
    .add(SystemProgram.transfer({ fromPubkey: payer, toPubkey: Keypair.generate().publicKey, lamports: 1 }))
    .serialize({ requireAllSignatures: false, verifySignatures: false })
    .toString('base64');

  const headers = { authorization: `Bearer ${secretKey}` };
  const perType = WALLET_TYPES.filter((t) => t !== 'ethereum' && t !== 'solana');
  return [
    ...[...perType, 'solana' as const].map((wallet_type): Target => {
      let next = 1; // users[0] already has its solana wallet
      return {
        name: `POST wallets/create ${wallet_type} (${creates - 1} new)`,
        url: `${url}/v1/wallets/create`,
        method: 'POST',
        headers,
        nextBody: () => ({ user_id: users[next++ % users.length], wallet_type }),
        amount: creates - 1,
      };
    }),
    (() => {
      let next = 0;
      return {
        name: `POST wallets/create ethereum (${creates} new users: seed made too)`,
        url: `${url}/v1/wallets/create`,
        method: 'POST' as const,
        headers,
        nextBody: () => ({ user_id: newUsers[next++ % newUsers.length], wallet_type: 'ethereum' }),
        amount: creates,
      };
    })(),
    ...WALLET_TYPES.map(
      (wallet_type): Target => ({
        name: `POST wallets/{id}/sign_message ${wallet_type}`,
        url: `${url}/v1/wallets/${messageSigners[wallet_type]}/sign_message`,
        method: 'POST',
        headers,
        body: { message: 'Sign in to example.com\nNonce: 8f2a61c0', encoding: 'utf8' },
      }),
    ),
    {
      name: 'POST wallets/create ethereum (existing)',
      url: `${url}/v1/wallets/create`,
      method: 'POST',
      headers,
      body: { user_id: users[0], wallet_type: 'ethereum' },
    },
    { name: 'GET wallets/list (100)', url: `${url}/v1/wallets/list?limit=100`, headers },
    {
      name: 'POST wallets/{id}/sign_transaction',
      url: `${url}/v1/wallets/${signer.id}/sign_transaction`,
      method: 'POST',
      headers,
      body: { sol_transaction: { transaction, encoding: 'base64' } },
    },
  ];
}
