import { type Kysely, sql } from 'kysely';

/**
 * The record of revocations (`SessionRepo.revokedSince`) and their announcement to every process
 * (LISTEN/NOTIFY), both written by a trigger on `sessions`, so every way a session ends is caught:
 * a revocation through Latchkey, and a live session deleted with its user or App. No foreign key
 * to `apps`: a deleted App's sessions must still be refused.
 *
 * The channel is `latchkey_session_revocations_<oid of the schema>`: two Latchkey schemas on one
 * database do not hear each other, and the name fits Postgres's 63 bytes whatever the schema's
 * name. The payload is `[app_id, session_id, revoked_at]`. Rows older than the longest a JWT can
 * outlive its revocation (3,660 s, core's REVOCATION_RETENTION_SECONDS when this was written) are
 * pruned as new ones come, through the revoked_at index.
 */
export async function up(db: Kysely<unknown>, schema?: string): Promise<void> {
  await db.schema
    .createTable('session_revocations')
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('session_revocations_revoked_at_idx')
    .on('session_revocations')
    .column('revoked_at')
    .execute();

  const fn = inSchema(schema, 'latchkey_session_revoked');
  const sessions = inSchema(schema, 'sessions');
  // The table is named from TG_TABLE_SCHEMA rather than the search path: whoever deletes a user
  // (a psql session, another app) may have another search path. A deleted session's time is the
  // database's: no application clock is at hand. Pruning skips rows another transaction is
  // pruning, so concurrent revocations never wait on each other for it.
  await sql`
    create function ${fn}() returns trigger language plpgsql as $body$
    declare
      s record;
      revoked bigint;
    begin
      if TG_OP = 'DELETE' then
        s := OLD;
        revoked := floor(extract(epoch from statement_timestamp()))::bigint;
      else
        s := NEW;
        revoked := NEW.revoked_at;
      end if;
      execute format(
        'insert into %I.session_revocations (session_id, app_id, revoked_at) values ($1, $2, $3)
         on conflict (session_id) do nothing',
        TG_TABLE_SCHEMA
      ) using s.id, s.app_id, revoked;
      execute format(
        'delete from %1$I.session_revocations where session_id in (
           select session_id from %1$I.session_revocations where revoked_at < $1 for update skip locked)',
        TG_TABLE_SCHEMA
      ) using revoked - 3660;
      perform pg_notify(
        'latchkey_session_revocations_' || (select relnamespace::oid::text from pg_catalog.pg_class where oid = TG_RELID),
        json_build_array(s.app_id, s.id, revoked)::text
      );
      return null;
    end
    $body$`.execute(db);
  await sql`
    create trigger sessions_revoked_recorded after update of revoked_at on ${sessions}
    for each row when (OLD.revoked_at is null and NEW.revoked_at is not null)
    execute function ${fn}()`.execute(db);
  await sql`
    create trigger sessions_deleted_recorded after delete on ${sessions}
    for each row when (OLD.revoked_at is null and OLD.expires_at > extract(epoch from statement_timestamp()))
    execute function ${fn}()`.execute(db);
}

export async function down(db: Kysely<unknown>, schema?: string): Promise<void> {
  const sessions = inSchema(schema, 'sessions');
  await sql`drop trigger sessions_deleted_recorded on ${sessions}`.execute(db);
  await sql`drop trigger sessions_revoked_recorded on ${sessions}`.execute(db);
  await sql`drop function ${inSchema(schema, 'latchkey_session_revoked')}()`.execute(db);
  await db.schema.dropTable('session_revocations').execute();
}

/** Raw statements are not reached by the builder's `withSchema`: they name the schema themselves. */
const inSchema = (schema: string | undefined, name: string) => (schema ? sql.id(schema, name) : sql.id(name));
