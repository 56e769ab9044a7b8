import {
  type InvitationConsumeFailure,
  LatchkeyError,
  type MemberChanged,
  type OrganizationInvitationRecord,
  type OrganizationMemberRecord,
  type OrganizationRecord,
  type OrganizationRepo,
  type OrganizationSettings,
  OWNER_ROLE,
} from '@latchkey/core';
import { type Selectable, sql } from 'kysely';
import type {
  LatchkeyDb,
  OrganizationInvitationsTable,
  OrganizationMembersTable,
  OrganizationsTable,
} from '../database.js';
import { definedOnly, fromJson, toJson, toSeconds } from './columns.js';
import { inTransaction } from './in-transaction.js';
import { isForeignKeyViolation } from './wallet-repo.js';

const toOrganization = (row: Selectable<OrganizationsTable>): OrganizationRecord => ({
  id: row.id,
  app_id: row.app_id,
  name: row.name,
  slug: row.slug,
  allowed_email_domains: fromJson(row.allowed_email_domains) as string[],
  settings: fromJson(row.settings) as OrganizationSettings,
  created_at: toSeconds(row.created_at),
  updated_at: toSeconds(row.updated_at),
});

const toMember = (row: Selectable<OrganizationMembersTable>): OrganizationMemberRecord => ({
  id: row.id,
  app_id: row.app_id,
  organization_id: row.organization_id,
  user_id: row.user_id,
  roles: fromJson(row.roles) as string[],
  created_at: toSeconds(row.created_at),
  updated_at: toSeconds(row.updated_at),
});

const toInvitation = (row: Selectable<OrganizationInvitationsTable>): OrganizationInvitationRecord => ({
  id: row.id,
  app_id: row.app_id,
  organization_id: row.organization_id,
  email: row.email,
  roles: fromJson(row.roles) as string[],
  token_hash: row.token_hash,
  expires_at: toSeconds(row.expires_at),
  accepted_at: row.accepted_at === null ? null : toSeconds(row.accepted_at),
  revoked_at: row.revoked_at === null ? null : toSeconds(row.revoked_at),
  created_at: toSeconds(row.created_at),
});

const INVITATION_COLUMNS = [
  'id',
  'app_id',
  'organization_id',
  'email',
  'roles',
  'token_hash',
  'expires_at',
  'accepted_at',
  'revoked_at',
  'created_at',
] as const;

/** Whether `err` is Postgres refusing a duplicate for the unique `constraint` (SQLSTATE 23505). */
const isUniqueViolation = (err: unknown, constraint: string) => {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && e.constraint === constraint;
};

const OWNER_JSON = JSON.stringify([OWNER_ROLE]);

export function kyselyOrganizationRepo(db: LatchkeyDb): OrganizationRepo {
  /**
   * Runs a demotion or removal of one member under a lock on its organization's row (NO KEY
   * UPDATE: member inserts, whose foreign key takes KEY SHARE, still pass). Every demotion and
   * removal of the organization queues on it, and under READ COMMITTED the owner count after the
   * lock sees each change committed before it was granted: two racing for the last two owners
   * cannot both pass.
   */
  const guarded = (
    appId: string,
    organizationId: string,
    memberId: string,
    losesOwner: (member: OrganizationMemberRecord) => boolean,
    write: (trx: LatchkeyDb, member: OrganizationMemberRecord) => Promise<OrganizationMemberRecord>,
  ): Promise<MemberChanged> =>
    inTransaction(db, async (trx) => {
      const organization = await trx
        .selectFrom('organizations')
        .select('id')
        .where('app_id', '=', appId)
        .where('id', '=', organizationId)
        .forNoKeyUpdate()
        .executeTakeFirst();
      if (!organization) return { ok: false, reason: 'not_found' };
      const row = await trx
        .selectFrom('organization_members')
        .selectAll()
        .where('app_id', '=', appId)
        .where('organization_id', '=', organizationId)
        .where('id', '=', memberId)
        .executeTakeFirst();
      if (!row) return { ok: false, reason: 'not_found' };
      const member = toMember(row);
      if (member.roles.includes(OWNER_ROLE) && losesOwner(member)) {
        const other = await trx
          .selectFrom('organization_members')
          .select('id')
          .where('app_id', '=', appId)
          .where('organization_id', '=', organizationId)
          .where('id', '<>', memberId)
          .where(sql<boolean>`roles @> ${OWNER_JSON}::jsonb`)
          .limit(1)
          .executeTakeFirst();
        if (!other) return { ok: false, reason: 'last_owner' };
      }
      return { ok: true, member: await write(trx, member) };
    });

  return {
    async insert(o) {
      const rows = await db
        .insertInto('organizations')
        .values({
          id: o.id,
          app_id: o.app_id,
          name: o.name,
          slug: o.slug,
          allowed_email_domains: toJson(o.allowed_email_domains),
          settings: toJson(o.settings),
          created_at: o.created_at,
          updated_at: o.updated_at,
        })
        .onConflict((oc) => oc.columns(['app_id', 'slug']).doNothing())
        .returning('id')
        .execute();
      return { inserted: rows.length > 0 };
    },

    async get(appId, organizationId) {
      const row = await db
        .selectFrom('organizations')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', organizationId)
        .executeTakeFirst();
      return row ? toOrganization(row) : null;
    },

    async list(appId, { userId, limit, after }) {
      let q = db
        .selectFrom('organizations')
        .selectAll('organizations')
        .where('organizations.app_id', '=', appId);
      if (userId !== undefined)
        q = q.where((eb) =>
          eb.exists(
            eb
              .selectFrom('organization_members as m')
              .select('m.id')
              .where('m.app_id', '=', appId)
              .where('m.user_id', '=', userId)
              .whereRef('m.organization_id', '=', 'organizations.id'),
          ),
        );
      if (after !== undefined) q = q.where('organizations.id', '>', after);
      const rows = await q
        .orderBy('organizations.id')
        .limit(limit + 1)
        .execute();
      const page = rows.slice(0, limit).map(toOrganization);
      return { organizations: page, next_cursor: rows.length > limit ? page.at(-1)!.id : null };
    },

    async listJoinable(appId, { domains, userId, limit, after }) {
      if (domains.length === 0) return { organizations: [], next_cursor: null };
      let q = db
        .selectFrom('organizations')
        .selectAll('organizations')
        .where('organizations.app_id', '=', appId)
        .where(sql<boolean>`organizations.settings @> '{"join_by_domain":true}'::jsonb`)
        // jsonb ?| : whether any of the strings is an element of the array.
        .where(sql<boolean>`organizations.allowed_email_domains ?| cast(${[...domains]} as text[])`)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('organization_members as m')
                .select('m.id')
                .where('m.app_id', '=', appId)
                .where('m.user_id', '=', userId)
                .whereRef('m.organization_id', '=', 'organizations.id'),
            ),
          ),
        );
      if (after !== undefined) q = q.where('organizations.id', '>', after);
      const rows = await q
        .orderBy('organizations.id')
        .limit(limit + 1)
        .execute();
      const page = rows.slice(0, limit).map(toOrganization);
      return { organizations: page, next_cursor: rows.length > limit ? page.at(-1)!.id : null };
    },

    async update(appId, organizationId, update) {
      if (update.slug !== undefined) {
        const clash = await db
          .selectFrom('organizations')
          .select('id')
          .where('app_id', '=', appId)
          .where('slug', '=', update.slug)
          .where('id', '<>', organizationId)
          .executeTakeFirst();
        if (clash) return { ok: false, reason: 'slug_taken' };
      }
      try {
        const row = await db
          .updateTable('organizations')
          .set(
            definedOnly({
              name: update.name,
              slug: update.slug,
              allowed_email_domains:
                update.allowed_email_domains === undefined ? undefined : toJson(update.allowed_email_domains),
              settings: update.settings === undefined ? undefined : toJson(update.settings),
              updated_at: update.updated_at,
            }),
          )
          .where('app_id', '=', appId)
          .where('id', '=', organizationId)
          .returningAll()
          .executeTakeFirst();
        return row ? { ok: true, organization: toOrganization(row) } : { ok: false, reason: 'not_found' };
      } catch (err) {
        // A clash committed after the check above: the same answer, by the constraint.
        if (isUniqueViolation(err, 'organizations_app_id_slug_key'))
          throw new LatchkeyError('organization_slug_taken', undefined, { field: 'slug' });
        throw err;
      }
    },

    async delete(appId, organizationId) {
      // The members go by their foreign key's ON DELETE CASCADE.
      const row = await db
        .deleteFrom('organizations')
        .where('app_id', '=', appId)
        .where('id', '=', organizationId)
        .returningAll()
        .executeTakeFirst();
      return row ? toOrganization(row) : null;
    },

    async insertMember(m) {
      try {
        const rows = await db
          .insertInto('organization_members')
          .values({
            id: m.id,
            app_id: m.app_id,
            organization_id: m.organization_id,
            user_id: m.user_id,
            roles: toJson(m.roles),
            created_at: m.created_at,
            updated_at: m.updated_at,
          })
          .onConflict((oc) => oc.columns(['app_id', 'organization_id', 'user_id']).doNothing())
          .returning('id')
          .execute();
        return { inserted: rows.length > 0 };
      } catch (err) {
        if (isForeignKeyViolation(err, 'organization_members_user_fkey'))
          throw new LatchkeyError('user_not_found');
        if (isForeignKeyViolation(err, 'organization_members_organization_fkey'))
          throw new LatchkeyError('organization_not_found');
        throw err;
      }
    },

    async getMember(appId, organizationId, memberId) {
      const row = await db
        .selectFrom('organization_members')
        .selectAll()
        .where('app_id', '=', appId)
        .where('organization_id', '=', organizationId)
        .where('id', '=', memberId)
        .executeTakeFirst();
      return row ? toMember(row) : null;
    },

    async listMembers(appId, organizationId, { limit, after }) {
      let q = db
        .selectFrom('organization_members')
        .selectAll()
        .where('app_id', '=', appId)
        .where('organization_id', '=', organizationId);
      if (after !== undefined) q = q.where('id', '>', after);
      const rows = await q
        .orderBy('id')
        .limit(limit + 1)
        .execute();
      const page = rows.slice(0, limit).map(toMember);
      return { members: page, next_cursor: rows.length > limit ? page.at(-1)!.id : null };
    },

    updateMemberRoles(appId, organizationId, memberId, roles, now) {
      return guarded(
        appId,
        organizationId,
        memberId,
        () => !roles.includes(OWNER_ROLE),
        async (trx, member) => {
          const row = await trx
            .updateTable('organization_members')
            .set({ roles: toJson(roles), updated_at: now })
            .where('app_id', '=', appId)
            .where('id', '=', member.id)
            .returningAll()
            .executeTakeFirstOrThrow();
          return toMember(row);
        },
      );
    },

    deleteMember(appId, organizationId, memberId) {
      return guarded(
        appId,
        organizationId,
        memberId,
        () => true,
        async (trx, member) => {
          await trx
            .deleteFrom('organization_members')
            .where('app_id', '=', appId)
            .where('id', '=', member.id)
            .execute();
          return member;
        },
      );
    },

    async getMemberByUser(appId, organizationId, userId) {
      const row = await db
        .selectFrom('organization_members')
        .selectAll()
        .where('app_id', '=', appId)
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row ? toMember(row) : null;
    },

    async insertInvitation(i) {
      try {
        await db
          .insertInto('organization_invitations')
          .values({ ...i, roles: toJson(i.roles) })
          .execute();
      } catch (err) {
        if (isForeignKeyViolation(err, 'organization_invitations_organization_fkey'))
          throw new LatchkeyError('organization_not_found');
        throw err;
      }
    },

    async listInvitations(appId, organizationId, { limit, after }) {
      let q = db
        .selectFrom('organization_invitations')
        .selectAll()
        .where('app_id', '=', appId)
        .where('organization_id', '=', organizationId)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null);
      if (after !== undefined) q = q.where('id', '>', after);
      const rows = await q
        .orderBy('id')
        .limit(limit + 1)
        .execute();
      const page = rows.slice(0, limit).map(toInvitation);
      return { invitations: page, next_cursor: rows.length > limit ? page.at(-1)!.id : null };
    },

    async revokeInvitation(appId, organizationId, invitationId, now) {
      const row = await db
        .updateTable('organization_invitations')
        .set({ revoked_at: now })
        .where('app_id', '=', appId)
        .where('organization_id', '=', organizationId)
        .where('id', '=', invitationId)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row ? toInvitation(row) : null;
    },

    // One statement, as MagicLinkRepo.consume: the CTE locks the invitation and judges its
    // latest version, so of concurrent accepts only the first sees it unspent.
    async consumeInvitation(appId, tokenHash, now) {
      // The organization's settings are read under a share lock, in the statement that spends the
      // token: a settings update waits for it, or it for the update, never half of each.
      const methods = sql`coalesce(o.settings -> 'allowed_sign_in_methods', '[]'::jsonb)`;
      const verdict = sql<InvitationConsumeFailure | 'ok'>`case
          when i.accepted_at is not null then 'used'
          when i.revoked_at is not null then 'revoked'
          when i.expires_at <= ${now} then 'expired'
          when o.settings @> '{"sso_required":true}'::jsonb then 'sso_required'
          when jsonb_array_length(${methods}) > 0 and not ${methods} @> '["magic_link"]'::jsonb
            then 'sign_in_method_not_allowed'
          else 'ok' end`;
      const row = await db
        .with('target', (qb) =>
          qb
            .selectFrom('organization_invitations as i')
            .innerJoin('organizations as o', (j) =>
              j.onRef('o.app_id', '=', 'i.app_id').onRef('o.id', '=', 'i.organization_id'),
            )
            .select(['i.id', verdict.as('verdict')])
            .where('i.app_id', '=', appId)
            .where('i.token_hash', '=', tokenHash)
            .limit(1)
            .forUpdate(['i'])
            .forShare(['o']),
        )
        .updateTable('organization_invitations')
        .from('target')
        .set({
          accepted_at: sql<number | null>`case when ${sql.ref('target.verdict')} = 'ok'
              then ${now} else ${sql.ref('organization_invitations.accepted_at')} end`,
        })
        .whereRef('organization_invitations.id', '=', 'target.id')
        .returning(INVITATION_COLUMNS.map((c) => `organization_invitations.${c}` as const))
        .returning('target.verdict')
        .executeTakeFirst();
      if (!row) return { ok: false, reason: 'not_found' };
      if (row.verdict !== 'ok') return { ok: false, reason: row.verdict };
      return { ok: true, invitation: toInvitation(row) };
    },
  };
}
