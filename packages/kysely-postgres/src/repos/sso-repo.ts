import { LatchkeyError, type SsoConnectionRecord, type SsoRepo } from '@latchkey/core';
import type { Selectable } from 'kysely';
import type { LatchkeyDb, SsoConnectionsTable } from '../database.js';
import { definedOnly, fromJson, toJson, toSeconds } from './columns.js';
import { inTransaction } from './in-transaction.js';
import { isForeignKeyViolation } from './wallet-repo.js';

const toConnection = (row: Selectable<SsoConnectionsTable>): SsoConnectionRecord => ({
  id: row.id,
  app_id: row.app_id,
  organization_id: row.organization_id,
  issuer: row.issuer,
  client_id: row.client_id,
  client_secret_sealed: row.client_secret_sealed,
  client_secret_hint: row.client_secret_hint,
  scopes: row.scopes === null ? null : (fromJson(row.scopes) as string[]),
  email_domains: fromJson(row.email_domains) as string[],
  created_at: toSeconds(row.created_at),
  updated_at: toSeconds(row.updated_at),
});

/**
 * `sso_email_domain_taken` when `err` is the domains' primary key refusing a row; its field names
 * the domain Postgres reports (its detail reads `Key (app_id, domain)=(app_…, acme.com) …`).
 */
function domainTaken(err: unknown, domains: readonly string[]): LatchkeyError | null {
  const e = err as { code?: unknown; constraint?: unknown; detail?: unknown } | null;
  if (e?.code !== '23505' || e.constraint !== 'sso_connection_domains_pkey') return null;
  const key = typeof e.detail === 'string' ? /=\([^,]*, ([^)]*)\)/.exec(e.detail)?.[1] : undefined;
  const i = key === undefined ? -1 : domains.indexOf(key);
  return new LatchkeyError('sso_email_domain_taken', undefined, {
    ...(i < 0 ? {} : { field: `email_domains.${i}` }),
    cause: err,
  });
}

/** Claims `domains` for the connection, in the caller's transaction; a domain already claimed throws. */
async function claimDomains(
  trx: LatchkeyDb,
  appId: string,
  connectionId: string,
  domains: readonly string[],
): Promise<void> {
  if (domains.length === 0) return;
  try {
    await trx
      .insertInto('sso_connection_domains')
      .values(domains.map((domain) => ({ app_id: appId, domain, connection_id: connectionId })))
      .execute();
  } catch (err) {
    throw domainTaken(err, domains) ?? err;
  }
}

export function kyselySsoRepo(db: LatchkeyDb): SsoRepo {
  return {
    async insertConnection(c) {
      try {
        return await inTransaction(db, async (trx) => {
          const rows = await trx
            .insertInto('sso_connections')
            .values({
              ...c,
              scopes: c.scopes === null ? null : toJson(c.scopes),
              email_domains: toJson(c.email_domains),
            })
            .onConflict((oc) => oc.columns(['app_id', 'organization_id']).doNothing())
            .returning('id')
            .execute();
          if (rows.length === 0) return { inserted: false };
          await claimDomains(trx, c.app_id, c.id, c.email_domains);
          return { inserted: true };
        });
      } catch (err) {
        if (isForeignKeyViolation(err, 'sso_connections_organization_fkey'))
          throw new LatchkeyError('organization_not_found');
        throw err;
      }
    },
    async findConnection(appId, by) {
      let query = db
        .selectFrom('sso_connections')
        .selectAll('sso_connections')
        .where('sso_connections.app_id', '=', appId);
      if ('organization_id' in by) query = query.where('organization_id', '=', by.organization_id);
      else if ('slug' in by)
        query = query.where('organization_id', '=', (eb) =>
          eb.selectFrom('organizations').select('id').where('app_id', '=', appId).where('slug', '=', by.slug),
        );
      else
        query = query.where('id', '=', (eb) =>
          eb
            .selectFrom('sso_connection_domains')
            .select('connection_id')
            .where('app_id', '=', appId)
            .where('domain', '=', by.email_domain),
        );
      const row = await query.orderBy('sso_connections.id').limit(1).executeTakeFirst();
      return row ? toConnection(row) : null;
    },
    async getConnectionById(appId, connectionId) {
      const row = await db
        .selectFrom('sso_connections')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', connectionId)
        .executeTakeFirst();
      return row ? toConnection(row) : null;
    },
    async updateConnection(appId, organizationId, update) {
      const { scopes, email_domains, ...rest } = update;
      return inTransaction(db, async (trx) => {
        const row = await trx
          .updateTable('sso_connections')
          .set({
            ...definedOnly(rest),
            ...(scopes === undefined ? {} : { scopes: scopes === null ? null : toJson(scopes) }),
            ...(email_domains === undefined ? {} : { email_domains: toJson(email_domains) }),
          })
          .where('app_id', '=', appId)
          .where('organization_id', '=', organizationId)
          .returningAll()
          .executeTakeFirst();
        if (!row) return null;
        if (email_domains !== undefined) {
          // The new list replaces the old: a domain kept is released and claimed again.
          await trx.deleteFrom('sso_connection_domains').where('connection_id', '=', row.id).execute();
          await claimDomains(trx, appId, row.id, email_domains);
        }
        return toConnection(row);
      });
    },
    async deleteConnection(appId, organizationId) {
      const row = await db
        .deleteFrom('sso_connections')
        .where('app_id', '=', appId)
        .where('organization_id', '=', organizationId)
        .returningAll()
        .executeTakeFirst();
      return row ? toConnection(row) : null;
    },
  };
}
