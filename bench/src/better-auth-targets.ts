import pg from 'pg';
import type { Target } from './measure.js';

/**
 * Signs a user up on the Better Auth peer server (over HTTP, as a browser would) and returns the
 * rows for its host routes, each sending the session cookies Better Auth set.
 */
export async function betterAuthTargets(url: string): Promise<Target[]> {
  const res = await fetch(`${url}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1' },
    body: JSON.stringify({
      email: 'bench.peer@example.com',
      password: 'correct horse battery',
      name: 'Bench',
    }),
  });
  if (!res.ok) throw new Error(`Better Auth sign-up → ${res.status} ${await res.text()}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const check = await fetch(`${url}/me`, { headers: { cookie } });
  if (!check.ok) throw new Error(`Better Auth /me → ${check.status} ${await check.text()}`);
  return [
    { name: 'Better Auth getSession (host route)', url: `${url}/me`, headers: { cookie } },
    {
      name: 'Better Auth getSession, cookie cache (host route)',
      url: `${url}/me-cached`,
      headers: { cookie },
    },
  ];
}

export async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}
