import { PGlite } from '@electric-sql/pglite';
import { kyselyStorage } from '@latchkey/kysely-postgres';
import { memoryStorage } from '@latchkey/memory';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createLatchkey,
  defaultCapabilities,
  defineCapability,
  type Latchkey,
  type LatchkeyWith,
  type OtpService,
  type RoutePolicy,
  type Storage,
  type WebhookService,
} from '../src/index.js';
import { notesCapability } from './fixtures/notes/capability.js';
import type { NotesStorage } from './fixtures/notes/repo.js';
import type { NoteService } from './fixtures/notes/service.js';
import { memoryNoteRepo, pgliteNoteRepo, withNotes } from './fixtures/notes/storage.js';
import { expectErrorShape, TEST_SECRET, testApp } from './helpers.js';

/**
 * Adding a capability takes its folder (fixtures/notes), one list entry and its repo in the
 * storage adapter: nothing in core changes. The fixture's routes are served, documented with
 * their policy, and held to it by the same middleware as the built-in ones.
 */
const capabilities = [...defaultCapabilities, notesCapability] as const;

type Doc = {
  paths: Record<string, Record<string, { security: unknown; 'x-latchkey-policy'?: RoutePolicy }>>;
};

const closing: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closing) await close();
});

const backends: Array<{ name: string; storage: () => Promise<Storage & NotesStorage> }> = [
  { name: 'memory', storage: async () => withNotes(memoryStorage(), memoryNoteRepo()) },
  {
    name: 'pglite',
    storage: async () => {
      const pglite = new PGlite();
      closing.push(() => pglite.close());
      const storage = await kyselyStorage({ pglite, migrate: true });
      return withNotes(storage, await pgliteNoteRepo(pglite));
    },
  },
];

describe.each(backends)('a fixture capability on $name', ({ storage }) => {
  it('is served through fetch, documented with its policy, and held to it', async () => {
    const latchkey = createLatchkey({
      storage: await storage(),
      secret: TEST_SECRET,
      capabilities,
    });
    const t = await testApp(latchkey);
    await latchkey.apps.updateSettings(t.app_id, {
      rate_limits: { public_routes: { verify: { limit: 2, window_seconds: 60 } } },
    });

    const created = await t.call('POST', '/v1/notes', { text: 'first' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ text: 'first', note_id: expect.stringMatching(/^note_/) });

    // A public token on the secret-key route is refused, as the declaration says.
    const refused = await t.call('POST', '/v1/notes', { text: 'nope' }, t.public_token);
    expect(refused.status).toBe(403);
    expect(expectErrorShape(refused).error_type).toBe('secret_key_required');

    // The service is on the Latchkey object, over the same storage as the route.
    expect(await latchkey.notes.list(t.app_id)).toEqual({ notes: [created.body] });

    // The public-token route falls under its declared rate class ('verify', limit 2 here).
    const listed = await t.call('GET', '/v1/notes', undefined, t.public_token);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ notes: [created.body] });
    expect((await t.call('GET', '/v1/notes', undefined, t.public_token)).status).toBe(200);
    const limited = await t.call('GET', '/v1/notes', undefined, t.public_token);
    expect(limited.status).toBe(429);
    expect(expectErrorShape(limited).error_type).toBe('rate_limited');
  });
});

describe('the fixture capability in the document and the route list', () => {
  const latchkey = createLatchkey({
    storage: withNotes(memoryStorage(), memoryNoteRepo()),
    secret: TEST_SECRET,
    capabilities,
  });
  const plain = createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET });

  it('adds its paths, with its policy, and changes nothing else', () => {
    const doc = latchkey.openapi() as unknown as Doc;
    const notes = doc.paths['/v1/notes'];
    expect(notes?.post?.['x-latchkey-policy']).toEqual({ key: 'secret' });
    expect(notes?.post?.security).toEqual([{ secretKey: [] }]);
    expect(notes?.get?.['x-latchkey-policy']).toEqual({ key: 'public', rate: 'verify' });
    expect(notes?.get?.security).toEqual([{ secretKey: [] }, { publicToken: [] }]);

    const { '/v1/notes': _added, ...rest } = doc.paths;
    expect(rest).toEqual((plain.openapi() as unknown as Doc).paths);
    expect(latchkey.routes()).toEqual([...plain.routes(), 'POST /v1/notes', 'GET /v1/notes']);
  });

  it('keeps every built-in service', () => {
    expect(Object.keys(latchkey)).toEqual([
      ...Object.keys(plain).slice(0, -6),
      'notes',
      ...Object.keys(plain).slice(-6),
    ]);
  });
});

describe('a list that cannot be built', () => {
  it('names the storage repo the adapter lacks', () => {
    expect(() =>
      // @ts-expect-error the storage has no `notes` repo, which the fixture capability needs
      createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET, capabilities }),
    ).toThrow(/"notes" needs the storage repo\(s\) notes/);
  });

  it('names a capability needed but not listed, a name taken twice, a reserved name, and a list without apps', () => {
    const otps = defaultCapabilities.find((c) => c.name === 'otps')!;
    expect(() =>
      createLatchkey({
        storage: memoryStorage(),
        secret: TEST_SECRET,
        capabilities: [defaultCapabilities[0], otps],
      }),
    ).toThrow(/"otps" needs "sessions", which is not in the list/);
    expect(() =>
      createLatchkey({
        storage: memoryStorage(),
        secret: TEST_SECRET,
        capabilities: [...defaultCapabilities, defaultCapabilities[0]],
      }),
    ).toThrow(/two capabilities are named "apps"/);
    const fetchCapability = defineCapability({
      name: 'fetch',
      needs: [],
      storage: [],
      service: () => ({}),
    });
    expect(() =>
      createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET, capabilities: [fetchCapability] }),
    ).toThrow(/"fetch" is not a capability name/);
    expect(() => createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET, capabilities: [] })).toThrow(
      /must include `apps`/,
    );
  });
});

describe('types', () => {
  it('type the added service and keep the built-in ones exactly', () => {
    expectTypeOf<LatchkeyWith<typeof capabilities>['notes']>().toEqualTypeOf<NoteService>();
    expectTypeOf<LatchkeyWith<typeof capabilities>['otps']>().toEqualTypeOf<OtpService>();
    expectTypeOf<Latchkey['otps']>().toEqualTypeOf<OtpService>();
    expectTypeOf<Latchkey['webhooks']>().toExtend<WebhookService>();
    expectTypeOf<Latchkey['webhooks']['deliverDue']>().toEqualTypeOf<(limit?: number) => Promise<number>>();
    expectTypeOf<Latchkey>().not.toHaveProperty('notes');
    expectTypeOf<ReturnType<typeof createLatchkey<typeof capabilities>>>().toEqualTypeOf<
      LatchkeyWith<typeof capabilities>
    >();
  });
});
