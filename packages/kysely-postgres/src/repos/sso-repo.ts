import { LatchkeyError, type SsoConnectionRecord, type SsoRepo } from '@latchkey/core';
import { type Selectable, sql } from 'kysely';
import type { LatchkeyDb, SsoConnectionsTable } from '../database.js';
import { definedOnly, fromJson, toJson, toSeconds } from './columns.js';
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

export function kyselySsoRepo(db: LatchkeyDb): SsoRepo {
  return {
    async insertConnection(c) {
      try {
        const rows = await db
          .insertInto('sso_connections')
          .values({
            ...c,
            scopes: c.scopes === null ? null : toJson(c.scopes),
            email_domains: toJson(c.email_domains),
          })
          .onConflict((oc) => oc.columns(['app_id', 'organization_id']).doNothing())
          .returning('id')
          .execute();
        return { inserted: rows.length > 0 };
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
      else query = query.where(sql<boolean>`email_domains @> ${toJson([by.email_domain])}::jsonb`);
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
      const row = await db
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
      return row ? toConnection(row) : null;
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
