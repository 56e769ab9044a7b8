import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeApp, makeContact, makeUser } from '@latchkey/storage-conformance';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pgliteStorage } from '../src/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'latchkey-pglite-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('keeps what was written in a PGlite data directory across close and reopen', async () => {
  const app = makeApp();
  const user = makeUser(app.id);
  const email = makeContact(app.id, user.id);

  const first = await pgliteStorage(dir, { migrate: true, schema: 'auth' });
  await first.transaction(async (tx) => {
    await tx.apps.insert(app);
    await tx.users.insert(user);
    await tx.emails.insert(email);
  });
  await first.close();

  const second = await pgliteStorage(dir, { migrate: true, schema: 'auth' });
  try {
    expect(await second.apps.get(app.id)).toEqual(app);
    expect(await second.users.get(app.id, user.id)).toEqual(user);
    expect(await second.emails.findByAddress(app.id, email.address)).toEqual(email);
  } finally {
    await second.close();
  }
});
