import { readOutbox } from '@latchkey/senders';
import { Secret, TOTP } from 'otpauth';
import type { Target } from './measure.js';

type Call = (method: string, route: string, body?: unknown, key?: string) => Promise<Record<string, string>>;

interface Context {
  url: string;
  secretKey: string;
  publicToken: string;
  outbox: string;
  call: Call;
}

/**
 * The other sign-in methods, each on fresh single-use inputs: magic_links/authenticate (one link
 * per address), totps/authenticate (one TOTP per user, each used at the next 30-second step), and
 * webauthn/authentications/begin (discoverable, no user named).
 */
export async function signInTargets(ctx: Context, count: number): Promise<Target[]> {
  const { url, call, publicToken, secretKey } = ctx;
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, (_, j) =>
        call(
          'POST',
          '/v1/auth/magic_links/email/login_or_create',
          { email: `bench.link.${i + j}@example.com` },
          publicToken,
        ),
      ),
    );
  }
  const tokens = (await readOutbox(ctx.outbox))
    .filter((m) => m.kind === 'magic_link' && m.to.startsWith('bench.link.'))
    .map((m) => new URL(m.url!).searchParams.get('token')!);

  const totps: Array<{ user_id: string; totp: TOTP }> = [];
  for (let i = 0; i < count; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, count - i) }, async () => {
        const { user_id } = await call('POST', '/v1/auth/users', {}, secretKey);
        const created = await call('POST', '/v1/auth/totps/create', { user_id }, secretKey);
        const totp = new TOTP({ secret: Secret.fromBase32(created.secret!) });
        await call('POST', '/v1/auth/totps/verify', { user_id, totp_code: totp.generate() }, secretKey);
        return { user_id: user_id!, totp };
      }),
    );
    totps.push(...batch);
  }

  let link = 0;
  let totp = 0;
  const secret = { authorization: `Bearer ${secretKey}` };
  const pub = { authorization: `Bearer ${publicToken}` };
  return [
    {
      name: `POST magic_links/authenticate (${tokens.length} single-use links)`,
      url: `${url}/v1/auth/magic_links/authenticate`,
      method: 'POST',
      headers: pub,
      nextBody: () => ({ token: tokens[link++ % tokens.length] }),
      amount: tokens.length,
    },
    {
      name: `POST totps/authenticate (${totps.length} TOTPs)`,
      url: `${url}/v1/auth/totps/authenticate`,
      method: 'POST',
      headers: secret,
      // The verifying step is used: send the next step's code (one step either side is accepted),
      // computed when the request goes out, however long the setup took.
      nextBody: () => {
        const { user_id, totp: t } = totps[totp++ % totps.length]!;
        return { user_id, totp_code: t.generate({ timestamp: Date.now() + 30_000 }) };
      },
      amount: totps.length,
    },
    {
      name: 'POST webauthn/authentications/begin',
      url: `${url}/v1/auth/webauthn/authentications/begin`,
      method: 'POST',
      headers: pub,
      body: { domain: 'localhost' },
    },
  ];
}
