import type { ApiKeyKind, AppRecord } from '../apps/repo.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { SessionService } from '../sessions/service.js';
import type { OrganizationRecord } from './repo.js';
import { permissionsOf } from './roles.js';
import type { CallerSession } from './schema.js';

/** What a request that acts for a user of the App (rather than for the App's backend) needs. */
export type CallerSessions = Pick<SessionService, 'liveUserId'>;

const sent = (fields: CallerSession) =>
  fields.session_token !== undefined || fields.session_jwt !== undefined;

/**
 * The user behind a request: the user of the live session sent with the public token, or
 * undefined for the secret key, which acts for the App and names users itself. A session beside
 * the secret key is refused rather than silently ignored, so a backend that forwards one learns
 * it decides nothing.
 */
export async function callerUserId(
  sessions: CallerSessions,
  appId: string,
  fields: CallerSession,
  keyKind: ApiKeyKind,
): Promise<string | undefined> {
  if (keyKind === 'secret') {
    if (sent(fields))
      throw new LatchkeyError(
        'invalid_field',
        'With the secret key, send no session: the App acts for itself and names users by id.',
        { field: fields.session_token === undefined ? 'session_jwt' : 'session_token' },
      );
    return undefined;
  }
  return sessions.liveUserId(appId, fields);
}

/**
 * Refuses an invitation a member may not send (403 `invitation_not_allowed`): under
 * `who_can_invite: admins` one whose roles do not grant `members:invite`; and always one that
 * would give the invitee a role granting what the member's roles do not (a member cannot mint an
 * owner). A user who is no member learns nothing of the organization (404).
 */
export async function checkInviter(
  k: Kernel,
  app: AppRecord,
  organization: OrganizationRecord,
  userId: string,
  roles: readonly string[],
) {
  const member = await k.storage.organizations.getMemberByUser(app.id, organization.id, userId);
  if (!member) throw new LatchkeyError('organization_not_found');
  const settings = app.settings.organizations;
  const held = new Set(permissionsOf(member.roles, settings));
  const grants = (p: string) => held.has('*') || held.has(p);
  if (organization.settings.who_can_invite === 'admins' && !grants('members:invite'))
    throw new LatchkeyError(
      'invitation_not_allowed',
      "Only members whose roles grant members:invite may invite to this organization (who_can_invite: 'admins').",
    );
  roles.forEach((role, i) => {
    if (!permissionsOf([role], settings).every(grants))
      throw new LatchkeyError(
        'invitation_not_allowed',
        `The role '${role}' grants permissions your roles do not: you may invite only with roles within yours.`,
        { field: `roles.${i}` },
      );
  });
}
