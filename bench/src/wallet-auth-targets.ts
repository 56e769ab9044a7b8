import { Wallet } from 'ethers';
import type { Target } from './measure.js';

type Call = (method: string, route: string, body?: unknown, key?: string) => Promise<Record<string, string>>;

const hexToBase64 = (hex: string) => Buffer.from(hex.slice(2), 'hex').toString('base64');

/**
 * wallets/verify of `verifies` single-use challenges, signed here with ethers as a browser
 * wallet would: 20 wallets that have signed in once already, so each request is a returning
 * sign-in (no session asked, as in the otps/verify run). Also wallets/challenge and
 * passwords/strength_check, all with the public token.
 */
export async function walletAuthTargets(
  url: string,
  publicToken: string,
  call: Call,
  verifies: number,
): Promise<Target[]> {
  const wallets = Array.from({ length: 20 }, () => Wallet.createRandom());
  const signIn = async (wallet: (typeof wallets)[number]) => {
    const c = await call(
      'POST',
      '/v1/auth/wallets/challenge',
      { wallet_type: 'ethereum', public_address: wallet.address },
      publicToken,
    );
    return {
      wallet_type: 'ethereum',
      public_address: wallet.address,
      nonce: c.nonce,
      signature: hexToBase64(await wallet.signMessage(c.challenge!)),
    };
  };
  for (const wallet of wallets)
    await call('POST', '/v1/auth/wallets/verify', await signIn(wallet), publicToken);
  const bodies: unknown[] = [];
  for (let i = 0; i < verifies; i += 50) {
    const n = Math.min(50, verifies - i);
    bodies.push(...(await Promise.all(Array.from({ length: n }, (_, j) => signIn(wallets[(i + j) % 20]!)))));
  }
  // The first check loads zxcvbn's dictionaries (a fraction of a second): not what is measured.
  await call('POST', '/v1/auth/passwords/strength_check', { password: 'warm up' }, publicToken);
  let next = 0;
  const headers = { authorization: `Bearer ${publicToken}` };
  return [
    {
      name: 'POST wallets/challenge',
      url: `${url}/v1/auth/wallets/challenge`,
      method: 'POST',
      headers,
      body: { wallet_type: 'ethereum', public_address: wallets[0]!.address },
    },
    {
      name: `POST wallets/verify (${verifies} single-use challenges)`,
      url: `${url}/v1/auth/wallets/verify`,
      method: 'POST',
      headers,
      nextBody: () => bodies[next++ % bodies.length],
      amount: verifies,
    },
    {
      name: 'POST passwords/strength_check',
      url: `${url}/v1/auth/passwords/strength_check`,
      method: 'POST',
      headers,
      body: { password: 'correct horse battery staple' },
    },
  ];
}
