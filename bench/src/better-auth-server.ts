import { appendFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { fromNodeHeaders, toNodeHandler } from 'better-auth/node';
import { emailOTP, magicLink } from 'better-auth/plugins';
import express from 'express';
import pg from 'pg';

/**
 * The peer row: Better Auth as a Node team would embed it, on Express and the same Postgres, in
 * a schema of its own (BENCH_BA_SCHEMA, created here and migrated by Better Auth's own
 * migrations). Host routes check the session on each request with `auth.api.getSession`:
 * `/me` reads the session from the database, `/me-cached` with Better Auth's cookie cache on.
 * Its `emailOTP` and `magicLink` plugins are on for the sign-in rows; what they would send is
 * kept here, one per address, and handed to the bench at `POST /sent` (the addresses asked); the
 * codes and links are also appended to the file `BENCH_BA_OUTBOX` names, as Latchkey's outbox is written.
 * Prints `{ url }` when ready, like the other bench servers.
 */
const databaseUrl = process.env.DATABASE_URL;
const schema = process.env.BENCH_BA_SCHEMA;
if (!databaseUrl || !schema) throw new Error('DATABASE_URL and BENCH_BA_SCHEMA are required');

const setup = new pg.Client({ connectionString: databaseUrl });
await setup.connect();
await setup.query(`create schema if not exists "${schema}"`);
await setup.end();

// What the plugins would have sent, by address: the code, or the link's token.
const sent = new Map<string, string>();
const outbox = process.env.BENCH_BA_OUTBOX;
const pool = new pg.Pool({ connectionString: databaseUrl, options: `-c search_path="${schema}"`, max: 10 });
const base = {
  database: pool,
  secret: 'bench-only-secret-bench-only-secret-0123456789',
  baseURL: 'http://127.0.0.1',
  emailAndPassword: { enabled: true },
  telemetry: { enabled: false },
  rateLimit: { enabled: false },
  advanced: { useSecureCookies: false },
  plugins: [
    // Codes and links live an hour, as the bench's rows run minutes after the sends.
    emailOTP({
      expiresIn: 3600,
      sendVerificationOTP: async ({ email, otp }) => {
        sent.set(email, otp);
        // Written as Latchkey's example server writes its outbox, for the full sign-in row to read.
        if (outbox) await appendFile(outbox, `${JSON.stringify({ to: email, code: otp })}\n`);
      },
    }),
    magicLink({
      expiresIn: 3600,
      // Delivered as the codes are, and as Latchkey's example server delivers its links: before,
      // this peer's link send skipped the file append every other send in the comparison pays.
      sendMagicLink: async ({ email, token, url }) => {
        sent.set(email, token);
        if (outbox) await appendFile(outbox, `${JSON.stringify({ to: email, url })}\n`);
      },
    }),
  ],
};
const auth = betterAuth(base);
const cached = betterAuth({ ...base, session: { cookieCache: { enabled: true, maxAge: 300 } } });
await (await getMigrations(base)).runMigrations();

const app = express();
app.disable('x-powered-by');
app.post('/sent', express.json({ limit: '10mb' }), (req, res) => {
  res.json((req.body as string[]).map((email) => sent.get(email) ?? null));
});
// Sign-up and sign-in through the cached instance: its answers also set the cookie cache.
app.all('/api/auth/*splat', toNodeHandler(cached));
for (const [path, instance] of [
  ['/me', auth],
  ['/me-cached', cached],
] as const) {
  app.get(path, async (req, res) => {
    const session = await instance.api.getSession({ headers: fromNodeHeaders(req.headers) });
    if (!session) {
      res.status(401).json({ error_type: 'unauthorized' });
      return;
    }
    res.json({ user_id: session.user.id });
  });
}

const server = app.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
});
process.on('SIGTERM', () => {
  server.close();
  pool.end().finally(() => process.exit(0));
});
