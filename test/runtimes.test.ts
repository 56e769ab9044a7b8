/**
 * The core on edge runtimes: one bundle of @latchkey/core and @latchkey/memory (esbuild, browser
 * conditions, no Node built-ins: test/runtimes/worker.ts) served by workerd, Cloudflare's
 * Workers runtime (with and without `nodejs_compat`), by Deno's `Deno.serve` and by Bun's
 * `Bun.serve`, each on a loopback port; this test drives the real
 * `/v1` HTTP API into it (user, OTP, TOTP create, Solana wallet create and signing) and checks the
 * answers with independent libraries (jose, jsqr, @solana/web3.js, tweetnacl). The binaries come
 * from npm at test time (test/runtimes/binaries.ts); a runtime whose binary cannot be installed
 * is skipped, and says why.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base58 } from '@scure/base';
import { PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { build } from 'esbuild';
import { createLocalJWKSet, jwtVerify } from 'jose';
import * as jsqrModule from 'jsqr';
import { PNG } from 'pngjs';
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, oracleCode } from '../packages/core/test/totp-oracle.js';
import { installRuntime } from './runtimes/binaries.js';

// jsqr is CommonJS; its default export arrives one level deeper or not, by loader.
type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQR: Decode = (jsqrModule as any).default?.default ?? (jsqrModule as any).default;

const work = mkdtempSync(join(tmpdir(), 'latchkey-runtimes-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(async () => {
  // The `source` condition bundles the packages' TypeScript, so no build step is needed first;
  // `browser` (with workerd's own conditions) is what a Workers or Deno bundler would pick.
  await build({
    entryPoints: {
      worker: new URL('runtimes/worker.ts', import.meta.url).pathname,
      deno: new URL('runtimes/deno.ts', import.meta.url).pathname,
      bun: new URL('runtimes/bun.ts', import.meta.url).pathname,
    },
    outdir: work,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['source', 'workerd', 'worker'],
    logLevel: 'error',
  });
});

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Starts a runtime and waits until its port answers HTTP; the output is kept for failures. */
async function serve(command: string, args: string[], port: number) {
  const child: ChildProcess = spawn(command, args, {
    cwd: work,
    env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${command} exited ${child.exitCode}:\n${output}`);
    try {
      await fetch(`${url}/fixture/last-code?to=nobody`);
      break;
    } catch {
      if (i > 300) throw new Error(`${command} did not answer on ${url}:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { url, output: () => output, stop: () => child.kill() };
}

/**
 * workerd's config for one worker. Since compatibility date 2026-08-04 `nodejs_compat` is on by
 * default; `no_nodejs_compat` turns it off, which shows the core needs no Node API at all.
 */
const workerdConfig = (port: number, flags: string[]) => `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "latchkey", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "latchkey") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2026-11-01",
  compatibilityFlags = ${JSON.stringify(flags)},
);
`;

const workerd = (flags: string[]) => async (bin: string) => {
  const port = await freePort();
  const config = `config-${port}.capnp`;
  writeFileSync(join(work, config), workerdConfig(port, flags));
  return serve(bin, ['serve', config], port);
};

/** Each target: which binary, how it is started. */
const targets = [
  {
    title: 'workerd without Node APIs (no_nodejs_compat)',
    runtime: 'workerd',
    start: workerd(['no_nodejs_compat']),
  },
  { title: 'workerd with nodejs_compat (the default)', runtime: 'workerd', start: workerd([]) },
  {
    title: 'Deno (Deno.serve, --allow-net only)',
    runtime: 'deno',
    start: async (bin: string) => {
      const port = await freePort();
      return serve(bin, ['run', '--allow-net=127.0.0.1', 'deno.js', String(port)], port);
    },
  },
  {
    title: 'Bun (Bun.serve)',
    runtime: 'bun',
    start: async (bin: string) => {
      const port = await freePort();
      return serve(bin, ['run', 'bun.js', String(port)], port);
    },
  },
] as const;

for (const { title, runtime, start } of targets) {
  const installed = await installRuntime(runtime);
  if (installed.why) console.warn(`runtimes.test.ts: skipping ${title}: ${installed.why}`);

  describe.skipIf(!installed.bin)(installed.why ? `${title} (skipped: ${installed.why})` : title, () => {
    let server: Awaited<ReturnType<typeof serve>>;
    let keys: { app_id: string; secret_key: string; public_token: string };

    beforeAll(async () => {
      server = await start(installed.bin!);
      keys = await (await fetch(`${server.url}/fixture/app`)).json();
    });
    afterAll(() => server?.stop());

    const call = async (method: string, path: string, body?: unknown, key = keys.secret_key) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
    };
    const ok = (res: { status: number; body: any }) => {
      expect(res.status, `${JSON.stringify(res.body)}\n${server.output()}`).toBe(200);
      return res.body;
    };

    it('creates a user, and answers a duplicate with the documented error body', async () => {
      const user = ok(await call('POST', '/v1/auth/users', { email: 'user@example.com' }));
      expect(user.user_id).toMatch(/^user_/);
      expect(ok(await call('GET', `/v1/auth/users/${user.user_id}`)).emails[0].email).toBe(
        'user@example.com',
      );
      const dup = await call('POST', '/v1/auth/users', { email: 'user@example.com' });
      expect(dup.status).toBe(409);
      expect(dup.body).toMatchObject({
        status_code: 409,
        request_id: dup.headers.get('x-request-id'),
        error_type: expect.any(String),
        error_message: expect.any(String),
      });
    });

    it('OTP login_or_create sends a code; verify starts a session whose JWT jose verifies', async () => {
      const email = 'otp@example.com';
      const sent = ok(
        await call('POST', '/v1/auth/otps/email/login_or_create', { email }, keys.public_token),
      );
      expect(sent.user_created).toBe(true);
      const { code } = await (await fetch(`${server.url}/fixture/last-code?to=${email}`)).json();
      expect(code).toMatch(/^\d{6}$/);
      const wrong = await call('POST', '/v1/auth/otps/verify', {
        method_id: sent.method_id,
        otp: code === '000000' ? '111111' : '000000',
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error_type).toMatch(/^otp_/);
      const verified = ok(
        await call('POST', '/v1/auth/otps/verify', {
          method_id: sent.method_id,
          otp: code,
          session_expires_in: 60,
        }),
      );
      expect(verified.user_id).toBe(sent.user_id);
      const jwks = ok(await call('GET', '/v1/auth/sessions/jwks'));
      const { payload } = await jwtVerify(verified.session_jwt, createLocalJWKSet(jwks), {
        audience: keys.app_id,
        issuer: 'latchkey',
      });
      expect(payload).toMatchObject({ sub: sent.user_id, sid: verified.session.id });
    });

    it('TOTP create answers a PNG QR code (jsqr reads the otpauth URI); a code from it verifies', async () => {
      const user = ok(await call('POST', '/v1/auth/users', { email: 'totp@example.com' }));
      const created = ok(await call('POST', '/v1/auth/totps/create', { user_id: user.user_id }));
      expect(created.qr_base64.startsWith('data:image/png;base64,')).toBe(true);
      const bytes = Buffer.from(created.qr_base64.split(',')[1], 'base64');
      expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      const png = PNG.sync.read(bytes);
      const qr = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
      const uri = new URL(qr!.data);
      expect(uri.protocol).toBe('otpauth:');
      expect(uri.searchParams.get('secret')).toBe(created.secret);
      expect(uri.searchParams.get('issuer')).toBe('Edge App');
      const totp_code = oracleCode(base32Decode(created.secret), Math.floor(Date.now() / 1000));
      const verified = ok(await call('POST', '/v1/auth/totps/verify', { user_id: user.user_id, totp_code }));
      expect(verified).toEqual({ user_id: user.user_id, totp_id: created.totp_id, status: 'active' });
    });

    it('creates a Solana wallet and signs a legacy transaction; web3.js and tweetnacl verify it', async () => {
      const user = ok(await call('POST', '/v1/auth/users', { email: 'wallet@example.com' }));
      const wallet = ok(
        await call('POST', '/v1/wallets/create', { user_id: user.user_id, wallet_type: 'solana' }),
      );
      const owner = new PublicKey(wallet.public_address);
      const unsigned = new Transaction({
        feePayer: owner,
        recentBlockhash: new PublicKey(new Uint8Array(32).fill(3)).toBase58(),
      })
        .add(
          SystemProgram.transfer({
            fromPubkey: owner,
            toPubkey: new PublicKey(new Uint8Array(32).fill(77)),
            lamports: 1000,
          }),
        )
        .serialize({ requireAllSignatures: false, verifySignatures: false });
      const signed = ok(
        await call('POST', `/v1/wallets/${wallet.id}/sign_transaction`, {
          sol_transaction: { transaction: unsigned.toString('base64'), encoding: 'base64' },
        }),
      );
      const tx = Transaction.from(Buffer.from(signed.signed_transaction, 'base64'));
      expect(tx.verifySignatures()).toBe(true);
      expect(
        nacl.sign.detached.verify(tx.serializeMessage(), base58.decode(signed.signature), owner.toBytes()),
      ).toBe(true);
    });
  });
}
