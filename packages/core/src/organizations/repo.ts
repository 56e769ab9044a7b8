import type { OrganizationSettings } from './schema.js';

/** An organization of an App's users (a customer company of a B2B App). */
export interface OrganizationRecord {
  id: string;
  app_id: string;
  name: string;
  /** Lower-case, unique within the App: the handle an App can put in URLs. */
  slug: string;
  /** Lower-case domains; what verified-domain joining matches verified emails against. */
  allowed_email_domains: string[];
  settings: OrganizationSettings;
  created_at: number;
  updated_at: number;
}

/** A user's membership of one organization: at most one per (organization, user). */
export interface OrganizationMemberRecord {
  id: string;
  app_id: string;
  organization_id: string;
  user_id: string;
  /** Role names: built in (`owner`, `admin`, `member`) or the App's (`settings.organizations.roles`). */
  roles: string[];
  created_at: number;
  updated_at: number;
}

export interface OrganizationPage {
  organizations: OrganizationRecord[];
  next_cursor: string | null;
}

export interface OrganizationMemberPage {
  members: OrganizationMemberRecord[];
  next_cursor: string | null;
}

export type OrganizationUpdate = Partial<
  Pick<OrganizationRecord, 'name' | 'slug' | 'allowed_email_domains' | 'settings'>
> & { updated_at: number };

export type OrganizationUpdated =
  | { ok: true; organization: OrganizationRecord }
  | { ok: false; reason: 'not_found' | 'slug_taken' };

/**
 * What a change of a member's roles or a removal did: `ok` with the member as changed (as it was,
 * for a removal), or why nothing was written.
 */
export type MemberChanged =
  | { ok: true; member: OrganizationMemberRecord }
  | { ok: false; reason: 'not_found' | 'last_owner' };

/** An invitation to join an organization, emailed as a link that works once. */
export interface OrganizationInvitationRecord {
  id: string;
  app_id: string;
  organization_id: string;
  /** Normalised address the link was sent to: the invitee proves it by using the link. */
  email: string;
  /** The roles the invitee gets on accepting. */
  roles: string[];
  /** Keyed hash of the token in the link; the token itself is never stored. */
  token_hash: string;
  expires_at: number;
  accepted_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

export interface OrganizationInvitationPage {
  invitations: OrganizationInvitationRecord[];
  next_cursor: string | null;
}

/**
 * Why an invitation was not spent: its own state, or its organization's refusal of a sign-in by
 * link (`sso_required` on; `allowed_sign_in_methods` naming some but not `magic_link`).
 */
export type InvitationConsumeFailure =
  | 'not_found'
  | 'used'
  | 'revoked'
  | 'expired'
  | 'sso_required'
  | 'sign_in_method_not_allowed';

/**
 * How a member came to be: `created` (the organization's creator), `added` (by the App's backend),
 * `invitation` (an accepted invitation), `domain` (verified-domain joining). Said in the
 * `organization.member.added` event.
 */
export type MemberJoinedBy = 'created' | 'added' | 'invitation' | 'domain' | 'sso';

/** The role that can never be left without a holder once an organization has one. */
export const OWNER_ROLE = 'owner';

export interface OrganizationRepo {
  /** Stores the organization unless its App already has one with its slug (`inserted` false). */
  insert(organization: OrganizationRecord): Promise<{ inserted: boolean }>;
  get(appId: string, organizationId: string): Promise<OrganizationRecord | null>;
  /** The App's organizations (those `userId` is a member of, when given) by id, after the cursor id. */
  list(
    appId: string,
    query: { userId?: string | undefined; limit: number; after?: string | undefined },
  ): Promise<OrganizationPage>;
  /**
   * The App's organizations, by id after the cursor id, that have `join_by_domain` on, list one
   * of `domains` among their allowed email domains, and do not have `userId` as a member.
   */
  listJoinable(
    appId: string,
    query: { domains: readonly string[]; userId: string; limit: number; after?: string | undefined },
  ): Promise<OrganizationPage>;
  /**
   * Sets what `update` names. `slug_taken` when another organization of the App has the slug; a
   * clash with one committed while this ran may instead throw `organization_slug_taken`.
   */
  update(appId: string, organizationId: string, update: OrganizationUpdate): Promise<OrganizationUpdated>;
  /** Deletes the organization with its members; returns it, or null when there was none. */
  delete(appId: string, organizationId: string): Promise<OrganizationRecord | null>;

  /**
   * Adds the member unless the user already is one of its organization (`inserted` false),
   * atomically: of concurrent inserts for one user exactly one wins. Throws `user_not_found` or
   * `organization_not_found` when the App has no such user or organization. `joinedBy` is not
   * stored: it goes into the `organization.member.added` event the write implies.
   */
  insertMember(member: OrganizationMemberRecord, joinedBy?: MemberJoinedBy): Promise<{ inserted: boolean }>;
  getMember(
    appId: string,
    organizationId: string,
    memberId: string,
  ): Promise<OrganizationMemberRecord | null>;
  /** The organization's members by id, after the cursor id. */
  listMembers(
    appId: string,
    organizationId: string,
    query: { limit: number; after?: string | undefined },
  ): Promise<OrganizationMemberPage>;
  /**
   * Atomic: sets the member's roles, unless that takes `owner` from the organization's last
   * owner (`last_owner`). Of concurrent demotions and removals of the last owners, at least one
   * owner always remains.
   */
  updateMemberRoles(
    appId: string,
    organizationId: string,
    memberId: string,
    roles: string[],
    now: number,
  ): Promise<MemberChanged>;
  /** Atomic as `updateMemberRoles`: removes the member unless it is the last owner. */
  deleteMember(appId: string, organizationId: string, memberId: string): Promise<MemberChanged>;
  /** The user's membership of the organization, or null. */
  getMemberByUser(
    appId: string,
    organizationId: string,
    userId: string,
  ): Promise<OrganizationMemberRecord | null>;

  /** Stores the invitation; throws `organization_not_found` when the App has no such organization. */
  insertInvitation(invitation: OrganizationInvitationRecord): Promise<void>;
  /** The organization's invitations neither accepted nor revoked (expired ones too), by id, after the cursor id. */
  listInvitations(
    appId: string,
    organizationId: string,
    query: { limit: number; after?: string | undefined },
  ): Promise<OrganizationInvitationPage>;
  /** Revokes the invitation unless it was accepted or revoked already; returns it as revoked, or null. */
  revokeInvitation(
    appId: string,
    organizationId: string,
    invitationId: string,
    now: number,
  ): Promise<OrganizationInvitationRecord | null>;
  /**
   * Atomically: if the App has an invitation with `tokenHash` that is neither accepted, revoked
   * nor expired at `now`, and its organization admits a sign-in by the invitation's link, mark it
   * accepted at `now` and return it; otherwise say why, the first that holds of `not_found`,
   * `used`, `revoked`, `expired`, `sso_required` (the organization's `settings.sso_required` is
   * on), `sign_in_method_not_allowed` (its `settings.allowed_sign_in_methods` is not empty and
   * lacks `magic_link`). A refused invitation stays as it was. The organization's settings are
   * read in the same atomic step: of a settings change and a consume, one comes first. Of any
   * number of concurrent callers, exactly one gets `ok`.
   */
  consumeInvitation(
    appId: string,
    tokenHash: string,
    now: number,
  ): Promise<
    { ok: true; invitation: OrganizationInvitationRecord } | { ok: false; reason: InvitationConsumeFailure }
  >;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    organizations: OrganizationRepo;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    org: true;
    orgmember: true;
    orginv: true;
  }
}
