import { makeApp, makeSession, makeUser } from '@latchkey/storage-conformance';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kyselyStorage } from '../src/index.js';
import { DATABASE_URL, randomSchema } from './targets.js';

describe.skipIf(!DATABASE_URL)('session lookups on a pg Pool', () => {
  // One connection, so what it has prepared is what pg_prepared_statements shows.
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
  const schemas = [randomSchema(), randomSchema()];
  afterAll(async () => {
    for (const schema of schemas) await pool.query(`drop schema if exists "${schema}" cascade`);
    await pool.end();
  });
  const open = (schema: string) => kyselyStorage({ pool, schema, migrate: true });
  const prepared = async () =>
    (
      await pool.query<{ name: string; statement: string }>(
        "select name, statement from pg_prepared_statements where name like 'latchkey_%' order by name",
      )
    ).rows;

  let fixtures: Array<{ session: ReturnType<typeof makeSession> }> = [];
  beforeAll(async () => {
    fixtures = [];
    for (const schema of schemas) {
      const storage = await open(schema);
      const app = makeApp();
      const user = makeUser(app.id);
      await storage.apps.insert(app);
      await storage.users.insert(user);
      const session = makeSession(app.id, user.id);
      await storage.sessions.insert(session);
      fixtures.push({ session });
      await storage.close();
    }
  });

  it('run as named prepared statements, one per text, with the answers Kysely gives', async () => {
    const [first, second] = await Promise.all(schemas.map(open));
    const { session } = fixtures[0]!;
    for (let i = 0; i < 3; i++) {
      expect(await first!.sessions.get(session.app_id, session.id)).toEqual(session);
      expect(await first!.sessions.findByTokenHash(session.app_id, session.token_hash)).toEqual(session);
    }
    // The same lookups in another schema are other texts, so other names on the same connection.
    const other = fixtures[1]!.session;
    expect(await second!.sessions.get(other.app_id, other.id)).toEqual(other);
    expect(await second!.sessions.get(session.app_id, session.id)).toBeNull();
    expect(await first!.sessions.get(other.app_id, other.id)).toBeNull();
    const statements = await prepared();
    expect(statements).toHaveLength(3);
    expect(statements.filter((s) => s.statement.includes(`"${schemas[0]}"`))).toHaveLength(2);
    expect(statements.filter((s) => s.statement.includes(`"${schemas[1]}"`))).toHaveLength(1);
    await Promise.all([first!.close(), second!.close()]);
  });

  it("spend an OAuth token and read its link by name, with the refusals' answers", async () => {
    const storage = await open(schemas[0]!);
    const { session } = fixtures[0]!;
    const before = new Set((await prepared()).map((s) => s.name));
    expect(await storage.oauth.takeToken(session.app_id, 'no-such-token', 1)).toEqual({
      ok: false,
      reason: 'not_found',
    });
    expect(await storage.oauth.getLink(session.app_id, 'no-such-link')).toBeNull();
    const added = (await prepared()).filter((s) => !before.has(s.name)).map((s) => s.statement);
    // The spend, the read that says why it refused, the link read.
    expect(added).toHaveLength(3);
    expect(added.filter((s) => s.includes('"oauth_flows"'))).toHaveLength(2);
    expect(added.filter((s) => s.includes('"oauth_links"'))).toHaveLength(1);
    await storage.close();
  });

  it('read inside a transaction on its connection, not the Pool', async () => {
    const storage = await open(schemas[0]!);
    const { session } = fixtures[0]!;
    // With one connection, a read that went to the Pool would wait for this transaction forever.
    const seen = await storage.transaction(async (tx) => {
      await tx.sessions.revoke(session.app_id, session.id, session.started_at + 1);
      return tx.sessions.get(session.app_id, session.id);
    });
    expect(seen?.revoked_at).toBe(session.started_at + 1);
    expect((await storage.sessions.findByTokenHash(session.app_id, session.token_hash))?.revoked_at).toBe(
      session.started_at + 1,
    );
    await storage.close();
  });
});
