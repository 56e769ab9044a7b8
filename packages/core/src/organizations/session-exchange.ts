import { createRoute, z } from '@hono/zod-openapi';
import { LatchkeyError } from '../errors.js';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import type { Kernel } from '../kernel.js';
import { authenticateSessionResponseSchema, sessionFieldsSchema } from '../sessions/schema.js';
import type { SessionFields, SessionService } from '../sessions/service.js';
import type { Factor } from '../shared/factor.js';
import type { OrganizationRecord } from './repo.js';
import { permissionsOf } from './roles.js';
import { organizationIdParamsSchema } from './schema.js';
import { checkSignInMethods } from './sign-in-methods.js';
import type { SsoConnectionLookup } from './sso-required.js';

export const exchangeSessionRequestSchema = z
  .strictObject({
    session_token: sessionFieldsSchema.session_token,
    session_jwt: sessionFieldsSchema.session_jwt,
    session_expires_in: sessionFieldsSchema.session_expires_in.openapi({
      description: 'Minutes from now; left out, the new session ends when the one sent would have.',
    }),
  })
  .openapi('ExchangeOrganizationSessionRequest');

/** A rule on which of the user's sessions may become an organization's: throws to refuse. */
export type ExchangeCheck = (organization: OrganizationRecord, factors: readonly Factor[]) => Promise<void>;

/**
 * Sessions scoped to an organization (docs/organizations.md, "Sessions in an organization"):
 * the exchange, and what such a session holds there, which the sessions capability reads
 * through `scopeOrganizations` (token mode, and each JWT it signs).
 */

export function organizationSessions(
  k: Kernel,
  sessions: SessionService,
  ssoConnectionOf: SsoConnectionLookup,
) {
  const exchangeChecks: ExchangeCheck[] = [];
  const scopeOf = async (appId: string, organizationId: string, userId: string) => {
    const member = await k.storage.organizations.getMemberByUser(appId, organizationId, userId);
    if (!member) return null;
    const settings = (await k.app(appId)).settings.organizations;
    return {
      organization_id: organizationId,
      roles: member.roles,
      permissions: permissionsOf(member.roles, settings),
    };
  };
  sessions.scopeOrganizations(scopeOf);

  return {
    /**
     * The caller's live session exchanged for one scoped to the organization (the one sent is
     * revoked); 404 `organization_not_found` for none of this App's, 403 `not_a_member` when the
     * session's user is no member of it, 403 `sign_in_method_not_allowed` when none of its
     * factors is a method the organization allows. A refused exchange leaves the one sent live.
     */
    async exchange(appId: string, organizationId: string, fields: SessionFields) {
      const organization = await k.storage.organizations.get(appId, organizationId);
      if (!organization) throw new LatchkeyError('organization_not_found');
      return sessions.exchange(appId, fields, organization.id, async (userId, factors) => {
        const scope = await scopeOf(appId, organization.id, userId);
        if (!scope) throw new LatchkeyError('not_a_member');
        for (const check of exchangeChecks) await check(organization, factors);
        await checkSignInMethods(organization, factors, ssoConnectionOf);
        return scope;
      });
    },

    /**
     * Refuses (403 `sign_in_method_not_allowed`) proofs none of which is a sign-in method the
     * organization allows: what the exchange checks, for a capability that signs members in to
     * ask before it provisions anyone (SSO's `authenticate`).
     */
    checkSignInMethods(organization: OrganizationRecord, factors: readonly Factor[]): Promise<void> {
      return checkSignInMethods(organization, factors, ssoConnectionOf);
    },

    /**
     * Adds a rule every exchange must pass (it throws to refuse), for a capability built on this
     * one: SSO's `sso_required` (sso/capability.ts), which this folder cannot import.
     */
    checkExchanges(check: ExchangeCheck): void {
      exchangeChecks.push(check);
    },
  };
}

export type OrganizationSessions = ReturnType<typeof organizationSessions>;

const exchange = createRoute({
  method: 'post',
  path: '/v1/organizations/{organization_id}/sessions/exchange',
  tags: ['organizations'],
  summary:
    "Exchange the caller's live session for one scoped to an organization it is a member of (its id, roles and permissions in the JWT); the one sent is revoked",
  ...policy({ key: 'public', rate: 'other' }),
  request: { params: organizationIdParamsSchema, ...jsonBody(exchangeSessionRequestSchema) },
  responses: {
    200: jsonResponse('The organization session', authenticateSessionResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

export function registerSessionExchangeRoute(
  app: HttpApp,
  organizations: { sessions: OrganizationSessions },
) {
  app.openapi(exchange, async (c) =>
    c.json(
      await organizations.sessions.exchange(
        c.get('app').id,
        c.req.valid('param').organization_id,
        c.req.valid('json'),
      ),
      200,
    ),
  );
}
