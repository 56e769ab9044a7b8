import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readOutbox } from '@latchkey/senders';
import { betterAuthTargets, dropSchema } from './better-auth-targets.js';
import { startChild } from './child.js';
import { CREATE_BOUND_ROW, createBoundTarget } from './create-bound.js';
import { PRIMITIVE_OF, signingPrimitiveRates } from './ed25519-rate.js';
import { frameworkHostRates } from './framework-host-rates.js';
import { type Measurement, measureInRounds, type Target } from './measure.js';
import { OAUTH_AUTHENTICATE_ROW, oauthTargets } from './oauth-targets.js';
import { outboxSecret } from './outbox-secret.js';
import { passwordHashingRates } from './password-hashing-rates.js';
import { passwordSignInRates } from './password-sign-in-rates.js';
import { peerSignInTargets } from './peer-sign-in-targets.js';
import { revocationLatency } from './revocation-latency.js';
import { sessionCheckRates } from './session-check-rate.js';
import { signInTargets } from './sign-in-targets.js';
import { BOUND_CHAINS, signingBoundTargets } from './signing-bounds.js';
import { signingCeilingTargets } from './signing-ceilings.js';
import { tracingCostRates } from './tracing-cost.js';
import { walletAuthTargets } from './wallet-auth-targets.js';
import { walletServiceRates, walletTargets } from './wallet-targets.js';

/**
 * `npm run bench`: the example server (PGlite, or Postgres when DATABASE_URL is set) under
 * autocannon from this process, endpoint by endpoint, beside a bare Express and a bare node:http
 * route in the same run. Prints one table and writes bench/results/latest.json.
 */
// `npm run bench -- --growth` (npm hands the flag over as npm_config_growth) or BENCH_GROWTH=1.
if (process.argv.includes('--growth') || process.env.BENCH_GROWTH === '1' || process.env.npm_config_growth) {
  await import('./growth.js');
  process.exit(0);
}

const MAGIC_LINK_SEND_CEILING =
  'sign-in ceiling (magic-link send): one counter upsert committed early, a user, an email and a link inserted by one durable statement';
let ceilingSends = 0;
const duration = Number(process.env.BENCH_DURATION ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const verifyCodes = Number(process.env.BENCH_OTP_CODES ?? 2000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);

interface ServerInfo {
  url: string;
  storage: string;
  app_id: string;
  secret_key: string;
  public_token: string;
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'latchkey-bench-'));
const server = await startChild<ServerInfo>(
  './serve.ts',
  [],
  {
    LATCHKEY_DATA_DIR: dataDir,
    PORT: '0',
    // The oauth rows sign in through a provider on a loopback port, over http.
    LATCHKEY_OAUTH_ALLOW_INSECURE_ISSUERS: '1',
  },
  // BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=…': a profile of the example server alone
  // (Node 20 refuses --cpu-prof in NODE_OPTIONS).
  process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean),
);
const bareExpress = await startChild<{ url: string }>('./bare-servers.ts', ['express']);
const bareNode = await startChild<{ url: string }>('./bare-servers.ts', ['node']);
// A host app with Latchkey embedded, its own routes behind requireSession (same storage kind).
const host = await startChild<{
  url: string;
  session_jwt: string;
  session_token: string;
  organization_session_jwt: string;
}>('./host-session-server.ts', []);
// The peer, on the same Postgres (its own schema): only when DATABASE_URL is set.
const databaseUrl = process.env.DATABASE_URL || undefined;
const peerSchema = `bench_better_auth_${randomBytes(4).toString('hex')}`;
const peer = databaseUrl
  ? await startChild<{ url: string }>('./better-auth-server.ts', [], {
      BENCH_BA_SCHEMA: peerSchema,
      BENCH_BA_OUTBOX: path.join(dataDir, 'better-auth-outbox.jsonl'),
    })
  : undefined;

/** The OpenID Connect provider the oauth rows signed in through, when they ran. */
let closeOAuthProvider: (() => Promise<void>) | undefined;
try {
  const { url, secret_key, public_token } = server.info;
  const call = async (method: string, route: string, body?: unknown, key = secret_key) => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${route} → ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, string>>;
  };
  const secret = { authorization: `Bearer ${secret_key}` };
  const publicKey = { authorization: `Bearer ${public_token}` };

  console.log(`Preparing data on ${server.info.storage} …`);
  const user = await call('POST', '/v1/auth/users', {
    email: 'bench.user@example.com',
    name: { first_name: 'Bench' },
  });
  const login = await call('POST', '/v1/auth/otps/email/login_or_create', {
    email: 'bench.session@example.com',
  });
  const outbox = path.join(dataDir, 'outbox.jsonl');
  const sessionCode = (await readOutbox(outbox)).at(-1)!.code;
  const session = await call('POST', '/v1/auth/otps/verify', {
    method_id: login.method_id,
    otp: sessionCode,
    session_expires_in: 600,
  });

  // Passcodes are single use: send one per address first, then verify each once.
  const methods: string[] = [];
  for (let i = 0; i < verifyCodes; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, verifyCodes - i) }, (_, j) =>
        call(
          'POST',
          '/v1/auth/otps/email/login_or_create',
          { email: `bench.${i + j}@example.com` },
          public_token,
        ),
      ),
    );
    methods.push(...batch.map((b) => b.method_id as string));
  }
  const codeByAddress = new Map((await readOutbox(outbox)).map((m) => [m.to, m.code]));
  const verifyBodies = methods.map((method_id, i) => ({
    method_id,
    otp: codeByAddress.get(`bench.${i}@example.com`),
  }));
  let nextVerify = 0;

  const wallets = await walletTargets(url, secret_key, call, Number(process.env.BENCH_WALLET_CREATES ?? 300));
  const walletAuth = await walletAuthTargets(
    url,
    public_token,
    call,
    Number(process.env.BENCH_WALLET_VERIFIES ?? 1000),
  );

  const peerTargets = peer ? await betterAuthTargets(peer.info.url) : [];
  const peerSignIns = peer
    ? await peerSignInTargets(
        {
          url,
          publicToken: public_token,
          call,
          sent: async () => new Map((await readOutbox(outbox)).map((m) => [m.to, outboxSecret(m)!])),
          outbox,
        },
        { url: peer.info.url, outbox: path.join(dataDir, 'better-auth-outbox.jsonl') },
        Number(process.env.BENCH_SIGN_IN_PEER ?? 1000),
      )
    : [];

  const signIns = await signInTargets(
    { url, secretKey: secret_key, publicToken: public_token, outbox, call },
    Number(process.env.BENCH_SIGN_INS ?? 500),
  );

  // Sign-ins through an OpenID Connect provider: prepared only when the row is asked for.
  const oauth =
    !process.env.BENCH_ONLY || new RegExp(process.env.BENCH_ONLY, 'i').test(OAUTH_AUTHENTICATE_ROW)
      ? await oauthTargets(
          { url, publicToken: public_token, call },
          Number(process.env.BENCH_OAUTH_SIGN_INS ?? 500),
        )
      : undefined;
  closeOAuthProvider = oauth?.close;

  const targets: Target[] = [
    { name: 'bare node:http', url: `${bareNode.info.url}/bare` },
    { name: 'bare Express', url: `${bareExpress.info.url}/bare` },
    { name: 'GET /v1/health', url: `${url}/v1/health` },
    {
      name: 'host Express route, requireSession (jwt mode)',
      url: `${host.info.url}/jwt/me`,
      headers: { authorization: `Bearer ${host.info.session_jwt}` },
    },
    {
      name: 'host Express route, requireSession with an organization permission (jwt mode)',
      url: `${host.info.url}/jwt/invoices`,
      headers: { authorization: `Bearer ${host.info.organization_session_jwt}` },
    },
    {
      name: 'host Express route, requireSession (token mode)',
      url: `${host.info.url}/token/me`,
      headers: { authorization: `Bearer ${host.info.session_token}` },
    },
    ...(databaseUrl
      ? [
          {
            name: 'host Express route, ceiling of token mode: one indexed session read',
            url: `${host.info.url}/ceiling/token`,
          },
          {
            name: 'sign-in ceiling (oauth): one proof spent, one session inserted, one ES256 JWT',
            url: `${host.info.url}/ceiling/sign-in`,
            method: 'POST' as const,
          },
          {
            name: MAGIC_LINK_SEND_CEILING,
            url: `${host.info.url}/ceiling/magic-link-send`,
            method: 'POST' as const,
            nextBody: () => ({ email: `ceiling.${Date.now()}.${ceilingSends++}@example.com` }),
          },
        ]
      : []),
    ...peerTargets,
    { name: 'GET /v1/auth/users/{id}', url: `${url}/v1/auth/users/${user.user_id}`, headers: secret },
    {
      name: 'POST sessions/authenticate (token)',
      url: `${url}/v1/auth/sessions/authenticate`,
      method: 'POST',
      headers: publicKey,
      body: { session_token: session.session_token },
    },
    {
      name: 'POST sessions/authenticate (JWT)',
      url: `${url}/v1/auth/sessions/authenticate`,
      method: 'POST',
      headers: publicKey,
      body: { session_jwt: session.session_jwt },
    },
    {
      name: `POST otps/verify (${verifyCodes} single-use codes)`,
      url: `${url}/v1/auth/otps/verify`,
      method: 'POST',
      headers: publicKey,
      nextBody: () => verifyBodies[nextVerify++ % verifyBodies.length],
      amount: verifyCodes,
    },
    ...wallets,
    ...signingCeilingTargets(`${bareExpress.info.url}/ceiling`),
    // The same plus one durable audit insert each, on the run's Postgres (signing-bounds.ts).
    ...(databaseUrl ? signingBoundTargets(`${bareExpress.info.url}/bound`) : []),
    // The create ceiling plus its seed and wallet sealed and stored durably (create-bound.ts).
    ...(databaseUrl ? [createBoundTarget(`${bareExpress.info.url}/bound`)] : []),
    ...walletAuth,
    ...signIns,
    ...(oauth?.targets ?? []),
    ...peerSignIns,
  ];

  // BENCH_ONLY=<regex>: only the rows whose name matches (the bare Express row always runs).
  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : undefined;
  const chosen = targets.filter((t) => !only || t.name === 'bare Express' || only.test(t.name));
  // The primitives run before the rows as well as after: the load on a shared machine drifts, and
  // each ratio below is taken against the faster of the two (the stricter comparison).
  const primitivesBefore = await signingPrimitiveRates(Math.min(duration, 3));
  const results: Measurement[] = await measureInRounds(chosen, { duration, connections, rounds });
  // Hono and Fastify host routes, each ÷ its own framework's bare route (framework-host-rates.ts).
  const frameworks = await frameworkHostRates({ duration, connections, rounds, only });
  results.push(...frameworks.rows);
  const revocations =
    !only || only.test('revocation')
      ? await revocationLatency({ count: Number(process.env.BENCH_REVOCATIONS ?? 200), connections })
      : undefined;
  if (!only || only.test('sessions.check')) results.push(...(await sessionCheckRates(duration, connections)));
  if (!only || only.test('wallets.signMessage'))
    results.push(
      ...(await walletServiceRates(duration, connections, Number(process.env.BENCH_WALLET_CREATES ?? 300))),
    );
  // Many one-second rounds, alternating: the ratios are within each round (tracing-cost.ts).
  const tracing =
    !only || only.test('tracing') ? await tracingCostRates(1, connections, Math.max(12, rounds * 6)) : [];
  results.push(...tracing);
  results.push(...(await signingPrimitiveRates(Math.min(duration, 3))));
  const byPassword =
    !only || only.test('password')
      ? await passwordSignInRates(
          { url, secretKey: secret_key, publicToken: public_token, call },
          peer?.info.url,
          { seconds: duration, connections },
        )
      : undefined;
  // Password hashing last: its worker threads and 50-deep bursts would load the other rows.
  const passwords =
    !only || only.test('password') ? await passwordHashingRates(Math.min(duration, 5)) : undefined;
  if (passwords) results.push(...passwords.rows);
  if (byPassword) results.push(...byPassword.rows);
  const ceiling = results.find((r) => r.name === 'bare Express')!.requests_per_second;
  // A row measured in rounds carries its own ratio (each round against that round's bare route);
  // the in-process rows are compared with the bare route's mean.
  const rows = results.map((r) => ({
    ...r,
    vs_bare_express: Number((r.vs_bare_express ?? r.requests_per_second / ceiling).toFixed(3)),
  }));
  console.log(
    `\nLatchkey bench: ${server.info.storage}, ${connections} connections, ${duration} s per endpoint, ${rounds} round(s)\n`,
  );
  console.table(
    Object.fromEntries(
      rows.map((r) => [
        r.name,
        {
          'req/s': r.requests_per_second,
          'p50 ms': r.p50_ms,
          'p99 ms': r.p99_ms,
          errors: r.errors,
          'non-2xx': r.non_2xx,
          'vs Express': r.vs_bare_express,
        },
      ]),
    ),
  );
  // Each wallet signing row beside the primitive it is built on (issue 18's target: ≥ 0.8).
  const rateOf = (name: string) =>
    Math.max(
      ...[...results, ...primitivesBefore].filter((r) => r.name === name).map((r) => r.requests_per_second),
      0,
    );
  const walletRatios = results.flatMap((r) => {
    const primitive = PRIMITIVE_OF.find(([pattern]) => pattern.test(r.name))?.[1];
    return primitive && !r.name.startsWith('primitive') && rateOf(primitive) > 0
      ? [
          [
            r.name,
            {
              'req/s': r.requests_per_second,
              primitive,
              'primitive/s': rateOf(primitive),
              ratio: Number((r.requests_per_second / rateOf(primitive)).toFixed(2)),
            },
          ] as const,
        ]
      : [];
  });
  if (walletRatios.length > 0) console.table(Object.fromEntries(walletRatios));
  // A row beside its ceiling and its bound, and the bound beside the ceiling (what the
  // unavoidable write costs).
  const beside = (r: Measurement, ceiling?: number, bound?: number) => {
    if (!ceiling && !bound) return [];
    const ratio = (n: number, of?: number) => (of ? Number((n / of).toFixed(2)) : undefined);
    return [
      [
        r.name,
        {
          'req/s': r.requests_per_second,
          ceiling,
          '÷ ceiling': ratio(r.requests_per_second, ceiling),
          bound,
          '÷ bound': ratio(r.requests_per_second, bound),
          'bound ÷ ceiling': bound ? ratio(bound, ceiling) : undefined,
        },
      ] as const,
    ];
  };
  // Each signing route ÷ its ceiling (the cryptography alone) and ÷ its bound (the cryptography
  // and one durable audit insert): issue 35's target is ≥ 0.85 of the ceiling.
  const signingRatios = results.flatMap((r) => {
    const chain =
      /sign_message (\w+)$/.exec(r.name)?.[1] ?? (/sign_transaction$/.test(r.name) ? 'solana' : undefined);
    if (!chain || !r.name.startsWith('POST wallets/')) return [];
    const named = Object.values(BOUND_CHAINS).find((c) => c.split('/').includes(chain))!;
    const rate = (prefix: string, suffix: string) =>
      results.find(
        (x) => x.name === `${prefix}: bare Express route + sign_message ${named} primitive ${suffix}`,
      )?.requests_per_second;
    return beside(r, rate('ceiling', 'only'), rate('bound', '+ one durable audit insert'));
  });
  // A new user's ethereum create ÷ its ceiling (the cryptography alone) and ÷ its bound (the
  // cryptography, the two seals and the one durable statement): issue 35's target is ≥ 0.85.
  const createRow = results.find((r) => /^POST wallets\/create ethereum \(\d+ new users/.test(r.name));
  if (createRow)
    signingRatios.push(
      ...beside(
        createRow,
        results.find(
          (x) =>
            x.name === 'ceiling: bare Express route + wallets/create ethereum cryptography only (new seed)',
        )?.requests_per_second,
        results.find((x) => x.name === CREATE_BOUND_ROW)?.requests_per_second,
      ),
    );
  if (signingRatios.length > 0) console.table(Object.fromEntries(signingRatios));
  // What tracing costs a request, each row's CPU per request against the untraced one's.
  if (tracing.length > 0)
    console.table(
      Object.fromEntries(
        tracing.map((r) => [r.name, { 'CPU µs/req': r.cpu_us_per_request, 'vs untraced': r.vs_untraced }]),
      ),
    );
  // Each Latchkey sign-in row ÷ the Better Auth row after it (issue 38's targets: ≥ 1.5).
  const peerRatios = results.flatMap((r, i) => {
    const peerRow = results[i + 1];
    return r.name.startsWith('sign-in: Latchkey') && peerRow?.name.startsWith('sign-in: Better Auth')
      ? [
          `${r.name}: ${(r.requests_per_second / Math.max(peerRow.requests_per_second, 1)).toFixed(2)}× Better Auth`,
        ]
      : [];
  });
  if (peerRatios.length > 0)
    console.log(`\nSign-in beside Better Auth (issue 38):\n  ${peerRatios.join('\n  ')}`);
  // The magic-link send's floor in the same run: each send row ÷ that ceiling, and the ceiling ÷
  // Better Auth's row (the most a send doing the unavoidable work could lead it by).
  const rateNamed = (prefix: string) => results.find((r) => r.name.startsWith(prefix))?.requests_per_second;
  const linkCeiling = rateNamed(MAGIC_LINK_SEND_CEILING);
  const lkLinkSend = rateNamed('sign-in: Latchkey magic_links/email/login_or_create');
  const baLinkSend = rateNamed('sign-in: Better Auth sign-in/magic-link');
  if (linkCeiling && lkLinkSend && baLinkSend)
    console.log(
      `  magic-link send: Latchkey ÷ its ceiling ${(lkLinkSend / linkCeiling).toFixed(2)}, ` +
        `Better Auth ÷ that ceiling ${(baLinkSend / linkCeiling).toFixed(2)}, ` +
        `the ceiling ÷ Better Auth ${(linkCeiling / baLinkSend).toFixed(2)}`,
    );
  if (frameworks.summary.length > 0)
    console.log(`\nFramework host routes (issue 36):\n  ${frameworks.summary.join('\n  ')}`);
  if (revocations)
    console.log(`\nRevocation across processes (issue 34):\n  ${revocations.summary.join('\n  ')}`);
  else if (!only || only.test('revocation'))
    console.log(
      '\nRevocation across processes (issue 34): needs DATABASE_URL (two processes, one Postgres).',
    );
  if (passwords) console.log(`\nPassword hashing (issue 32):\n  ${passwords.summary.join('\n  ')}`);
  if (byPassword) console.log(`  ${byPassword.summary(results).join('\n  ')}`);
  const report = {
    at: new Date().toISOString(),
    storage: server.info.storage,
    node: process.version,
    connections,
    duration_seconds: duration,
    rounds,
    results: rows,
    ...(revocations
      ? { revocation: { p99_ms: revocations.p99_ms, accepted_after: revocations.accepted_after } }
      : {}),
  };
  await writeFile(new URL('../results/latest.json', import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
  console.log('Written to bench/results/latest.json');
} finally {
  await Promise.all([
    server.stop(),
    bareExpress.stop(),
    bareNode.stop(),
    host.stop(),
    peer?.stop(),
    closeOAuthProvider?.(),
  ]);
  if (peer && databaseUrl) await dropSchema(databaseUrl, peerSchema);
  await rm(dataDir, { recursive: true, force: true });
}
