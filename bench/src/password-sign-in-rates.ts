import { type Measurement, measure, type Target } from './measure.js';

type Call = (method: string, route: string, body?: unknown, key?: string) => Promise<Record<string, string>>;

interface Latchkey {
  url: string;
  secretKey: string;
  publicToken: string;
  call: Call;
}

const PASSWORD = 'violet lantern harbour 1987';
const SIGN_IN_ROW = 'password sign-in: Latchkey POST passwords/authenticate → session';
const PEER_ROW = 'password sign-in: Better Auth POST sign-in/email';

/**
 * Issue 32's password sign-in rows over HTTP: `passwords/authenticate` on the example server
 * (the Express router, on the run's storage) and, when the run has the Better Auth peer (on the
 * same Postgres), its `sign-in/email`. Each signs `users` accounts in by turns with the right
 * password, for `seconds` with `connections` in flight, and answers with a new session.
 * `summary` sets them beside the rows of password-hashing-rates.ts from the same run: the
 * Argon2id verify primitive on the pool, and each side's cost of one hash.
 */
export async function passwordSignInRates(
  lk: Latchkey,
  peerUrl: string | undefined,
  options: { seconds: number; connections: number; users?: number },
): Promise<{ rows: Measurement[]; summary: (results: Measurement[]) => string[] }> {
  const users = options.users ?? 20;
  const run = Date.now().toString(36);
  const address = (who: string, i: number) => `bench.pw.${who}.${run}.${i}@example.com`;
  // The per-IP password limit (100 per 10 minutes) would refuse the bench, which comes from one IP.
  await lk.call('PATCH', '/v1/app/settings', { passwords: { per_ip: { limit: 1_000_000 } } });
  for (let i = 0; i < users; i++)
    await lk.call('POST', '/v1/auth/passwords/create', { email: address('lk', i), password: PASSWORD });
  const json = { 'content-type': 'application/json', origin: 'http://127.0.0.1' };
  if (peerUrl)
    for (let i = 0; i < users; i++) {
      const res = await fetch(`${peerUrl}/api/auth/sign-up/email`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ email: address('ba', i), password: PASSWORD, name: 'Bench' }),
      });
      if (!res.ok) throw new Error(`Better Auth sign-up → ${res.status} ${await res.text()}`);
    }

  // A few sign-ins a second at most: long enough for a steady queue, and the rate to a tenth
  // (autocannon's own average is whole requests per second).
  const duration = Math.max(options.seconds, 10);
  const timed = async (target: Target) => {
    const m = await measure(target, { duration, connections: options.connections });
    return { ...m, requests_per_second: Math.round((m.total / duration) * 10) / 10 };
  };
  let next = 0;
  const rows = [
    await timed({
      name: SIGN_IN_ROW,
      url: `${lk.url}/v1/auth/passwords/authenticate`,
      method: 'POST',
      headers: { authorization: `Bearer ${lk.publicToken}` },
      nextBody: () => ({
        email: address('lk', next++ % users),
        password: PASSWORD,
        session_expires_in: 60,
      }),
    }),
  ];
  if (peerUrl)
    rows.push(
      await timed({
        name: PEER_ROW,
        url: `${peerUrl}/api/auth/sign-in/email`,
        method: 'POST',
        headers: json,
        nextBody: () => ({ email: address('ba', next++ % users), password: PASSWORD }),
      }),
    );

  const summary = (results: Measurement[]) => {
    const find = (prefix: string) => results.find((r) => r.name.startsWith(prefix));
    const [lkRow, peerRow] = [find(SIGN_IN_ROW), find(PEER_ROW)];
    const primitive = find('primitive: Argon2id verify on the pool');
    const argon = find('password: Argon2id hash');
    const scrypt = find('password: Better Auth hashPassword');
    const lines: string[] = [];
    if (lkRow && primitive)
      lines.push(
        `password sign-in over HTTP: ${lkRow.requests_per_second}/s (${lkRow.non_2xx + lkRow.errors} failed) = ${(lkRow.requests_per_second / primitive.requests_per_second).toFixed(2)}× the Argon2id verify primitive on the pool, ${primitive.requests_per_second}/s (target ≥ 0.8)`,
      );
    if (lkRow && peerRow)
      lines.push(
        `side by side: Latchkey ${lkRow.requests_per_second}/s, Better Auth sign-in/email ${peerRow.requests_per_second}/s (${peerRow.non_2xx + peerRow.errors} failed)`,
      );
    if (argon && scrypt)
      lines.push(
        `one hash: Latchkey Argon2id (19 MiB, t=2) p50 ${argon.p50_ms} ms; Better Auth scrypt (N=16384, r=16: 32 MiB) p50 ${scrypt.p50_ms} ms`,
      );
    return lines;
  };
  return { rows, summary };
}
