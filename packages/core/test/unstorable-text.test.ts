import { PGlite } from '@electric-sql/pglite';
import { createLatchkey, type Latchkey, type Storage } from '@latchkey/core';
import { kyselyStorage, postgresStorage } from '@latchkey/kysely-postgres';
import { memoryStorage } from '@latchkey/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, TEST_SECRET, type TestApp, testApp } from './helpers.js';

/**
 * Text Postgres cannot hold (NUL) and text that is not Unicode (unpaired surrogates), in every
 * string a route reads: refused with a 400 before it reaches the database. Run on the real
 * storages, where these used to surface as 500s.
 */
const schema = `latchkey_text_${Math.random().toString(36).slice(2, 10)}`;
const targets: Array<readonly [string, () => Promise<{ storage: Storage; dispose(): Promise<void> }>]> = [
  ['memory', async () => ({ storage: memoryStorage(), dispose: async () => {} })],
  [
    'pglite',
    async () => {
      const pglite = await PGlite.create();
      const storage = await kyselyStorage({ pglite, migrate: true });
      return { storage, dispose: async () => void (await pglite.close()) };
    },
  ],
  ...(process.env.DATABASE_URL
    ? ([
        [
          'postgres',
          async () => {
            const storage = await postgresStorage(process.env.DATABASE_URL!, { migrate: true, schema });
            return {
              storage,
              dispose: async () => {
                const pg = (await import('pg')).default;
                const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
                await client.connect();
                await client.query(`drop schema if exists "${schema}" cascade`);
                await client.end();
              },
            };
          },
        ],
      ] as const)
    : []),
];

const BAD = ['a\u0000b', '\ud800', 'x\udfffy'];

describe.each(targets)('unstorable text on %s', (_name, open) => {
  let t: TestApp;
  let latchkey: Latchkey;
  let dispose: () => Promise<void>;
  let operations: Array<{ method: string; path: string; op: any }>;

  beforeAll(async () => {
    const opened = await open();
    dispose = async () => {
      await opened.storage.close();
      await opened.dispose();
    };
    latchkey = createLatchkey({ storage: opened.storage, secret: TEST_SECRET, onInternalError: () => {} });
    t = await testApp(latchkey);
    const doc = (await t.call('GET', '/v1/openapi.json', undefined, null)).body;
    operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, item]) =>
        Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('refuses them in path ids and query strings of every route', async () => {
    for (const { method, path } of operations) {
      const body = method === 'POST' ? {} : undefined;
      for (const bad of ['%00', '%ED%A0%80', 'a%00b']) {
        if (path.includes('{')) {
          const res = await t.call(method, path.replace(/\{[^}]+\}/g, bad), body);
          expect(res.status, `${method} ${path} with ${bad}`).toBeLessThan(500);
          expectErrorShape(res);
        }
        const q = await t.call(
          method,
          `${path.replace(/\{[^}]+\}/g, 'x')}?cursor=${bad}&user_id=${bad}`,
          body,
        );
        expect(q.status, `${method} ${path}?…${bad}`).toBeLessThan(500);
      }
    }
  });

  it('refuses them in every string field of every JSON body, naming the field', async () => {
    for (const { method, path, op } of operations) {
      const schemaRef = op.requestBody?.content?.['application/json']?.schema;
      if (!schemaRef) continue;
      const url = path.replace(/\{[^}]+\}/g, 'x');
      for (const bad of BAD) {
        for (const field of [
          'email',
          'user_id',
          'method_id',
          'token',
          'password',
          'public_address',
          'phone_number',
          'domain',
          'session_token',
        ]) {
          const res = await t.call(method, url, { [field]: bad });
          expect(res.status, `${method} ${path} ${field}=${JSON.stringify(bad)}`).toBe(400);
          expect(expectErrorShape(res)).toMatchObject({ error_type: 'invalid_field', error_field: field });
        }
        const nested = await t.call(method, url, {
          name: { first_name: bad },
          device_fingerprint: { ip: bad },
        });
        expect(nested.status).toBe(400);
        expect(expectErrorShape(nested).error_field).toMatch(/^(name\.first_name|device_fingerprint\.ip)$/);
        const inKey = await t.call(method, url, { [`k${bad}`]: 1 });
        expect(inKey.status).toBe(400);
      }
    }
  });

  it('still stores ordinary unicode', async () => {
    const res = await t.call('POST', '/v1/auth/users', {
      email: 'unicode@example.com',
      name: { first_name: 'Zoë 😀 李' },
    });
    expect(res.status).toBe(200);
    expect((await t.call('GET', `/v1/auth/users/${res.body.user_id}`)).body.name.first_name).toBe(
      'Zoë 😀 李',
    );
  });

  it.skipIf(_name === 'memory')(
    'maps text the database refuses to a 400 for direct library calls too',
    async () => {
      await expect(
        latchkey.users.create(t.app_id, { name: { first_name: 'a\u0000b' } }),
      ).rejects.toMatchObject({
        errorType: 'invalid_field',
        status: 400,
      });
    },
  );
});
