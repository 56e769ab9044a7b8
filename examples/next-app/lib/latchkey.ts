import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createLatchkey, type Latchkey } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { outboxSender } from '@latchkey/senders';

export interface DemoAppKeys {
  app_id: string;
  secret_key: string;
  public_token: string;
}

interface Instance {
  latchkey: Latchkey;
  demoApp: Promise<DemoAppKeys>;
}

// Next can evaluate this module more than once in one process (per route bundle, per worker);
// a key on globalThis keeps one latchkey, and so one demo App, per process.
const INSTANCE = Symbol.for('@latchkey/example-next-app');
const store = globalThis as typeof globalThis & { [INSTANCE]?: Instance };

/**
 * The process's latchkey, built on first use together with a demo App whose keys are written to
 * `$LATCHKEY_DATA_DIR/demo-app.json`. Resolves only once that file is written, so any response
 * the API has given means the file holds this process's keys.
 */
export async function getLatchkey(): Promise<Latchkey> {
  store[INSTANCE] ??= createInstance();
  const instance = store[INSTANCE];
  try {
    await instance.demoApp;
  } catch (err) {
    // Let the next request try again (e.g. after the data directory was made writable).
    if (store[INSTANCE] === instance) delete store[INSTANCE];
    throw err;
  }
  return instance.latchkey;
}

/**
 * What a browser may hold of the demo App: its id and public token (never the secret key), for the
 * home page's sign-in through `@latchkey/react`.
 */
export async function getDemoApp(): Promise<Pick<DemoAppKeys, 'app_id' | 'public_token'>> {
  await getLatchkey();
  const { app_id, public_token } = await store[INSTANCE]!.demoApp;
  return { app_id, public_token };
}

function createInstance(): Instance {
  const latchkey = createLatchkey({
    storage: memoryStorage(),
    secret: secret(),
    // A development sender: each email passcode is written as a line of `outbox.jsonl` in the
    // data directory instead of being delivered (a real app passes smtpSender or its own).
    sender: outboxSender({ path: path.join(dataDir(), 'outbox.jsonl') }),
  });
  return { latchkey, demoApp: createDemoApp(latchkey) };
}

function dataDir(): string {
  // A runtime data path, not a source file: keep Turbopack from tracing the whole project for it.
  return path.resolve(/*turbopackIgnore: true*/ process.env.LATCHKEY_DATA_DIR ?? '.latchkey');
}

function secret(): string {
  const configured = process.env.LATCHKEY_SECRET;
  if (configured) return configured;
  // Memory storage forgets everything on restart anyway, so a fresh dev secret loses nothing.
  return randomBytes(32).toString('base64url');
}

async function createDemoApp(latchkey: Latchkey): Promise<DemoAppKeys> {
  const { app_id, secret_key, public_token } = await latchkey.apps.create({
    name: 'Next.js demo',
    // A role of the App's own beside owner, admin and member: /api/invoices asks for its permission.
    settings: { organizations: { roles: { billing: ['invoices:read'] } } },
  });
  const keys: DemoAppKeys = { app_id, secret_key, public_token };
  const dir = dataDir();
  const file = path.join(dir, 'demo-app.json');
  await mkdir(dir, { recursive: true });
  // Write then rename, so a reader never sees half a file; mode 600: it holds a secret key.
  const partial = `${file}.${process.pid}.tmp`;
  await writeFile(partial, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  await rename(partial, file);
  console.log(`latchkey: demo App ${app_id}; keys in ${file}`);
  return keys;
}
