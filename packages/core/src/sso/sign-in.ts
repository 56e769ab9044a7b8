import * as oauth from 'oauth4webapi';
import { normalizeEmail } from '../contacts/contact-address.js';
import { newSecret } from '../crypto/ids.js';
import { type ErrorType, LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { OAuthTakeFailure } from '../oauth/repo.js';
import {
  callbackFailures,
  oauthFactor,
  type ProviderIdentity,
  type ProviderRuntimes,
  readProviderIdentity,
  resolveIdentity,
  STATE_SECONDS,
  spendFlowToken,
  TOKEN_SECONDS,
  takeFlowState,
} from '../oauth/service.js';
import type { OrganizationMemberRecord, OrganizationRecord } from '../organizations/repo.js';
import type { OrganizationSessions } from '../organizations/service.js';
import type { SessionService } from '../sessions/service.js';
import type { Factor } from '../shared/factor.js';
import { chooseRedirect, withParams } from '../shared/redirect-url.js';
import { completeSignIn, type SignedIn, type SignInRequest } from '../sign-in/complete.js';
import { asProvider, connectionIdOf, providerKey } from './connections.js';
import type { SsoConnectionLookup, SsoConnectionRecord } from './repo.js';
import type { SsoAuthenticateRequest, SsoAuthenticateResponse, SsoStartQuery } from './schema.js';

const tokenFailures: Record<OAuthTakeFailure, ErrorType> = {
  not_found: 'sso_token_not_found',
  used: 'sso_token_used',
  expired: 'sso_token_expired',
};

/** Which organization a start names: exactly one of its three ways. */
function lookupOf(query: SsoStartQuery): SsoConnectionLookup {
  const given = (['organization_id', 'slug', 'email_domain'] as const).filter((f) => query[f] !== undefined);
  if (given.length === 0)
    throw new LatchkeyError('missing_field', 'Send organization_id, slug or email_domain.', {
      field: 'organization_id',
    });
  if (given.length > 1)
    throw new LatchkeyError('invalid_field', 'Send one of organization_id, slug and email_domain.', {
      field: given[1],
    });
  if (query.organization_id !== undefined) return { organization_id: query.organization_id };
  if (query.slug !== undefined) return { slug: query.slug };
  return { email_domain: (query.email_domain ?? '').toLowerCase() };
}

/**
 * The address the provider vouched for, refused unless it says the address is verified and its
 * domain is the connection's (or, when it names none, the organization's): a provider can only
 * sign in its own organization's addresses, never another user's of the App.
 */
export function vouchedEmail(
  identity: ProviderIdentity,
  connection: SsoConnectionRecord,
  organization: OrganizationRecord,
): string {
  if (identity.email === null || !identity.email_verified) throw new LatchkeyError('sso_email_not_verified');
  let address: string;
  try {
    address = normalizeEmail(identity.email);
  } catch {
    throw new LatchkeyError('sso_email_not_verified');
  }
  const domain = address.slice(address.lastIndexOf('@') + 1);
  const allowed = connection.email_domains.length
    ? connection.email_domains
    : organization.allowed_email_domains;
  if (!allowed.includes(domain)) throw new LatchkeyError('sso_email_domain_not_allowed');
  return address;
}

export interface SsoSignInOptions {
  callbackUrl: string | undefined;
}

/** Sign-in through an organization's connection: start, the provider's callback, authenticate. */
export function ssoSignInService(
  k: Kernel,
  sessions: SessionService,
  organizationSessions: OrganizationSessions,
  runtimes: ProviderRuntimes,
  options: SsoSignInOptions,
) {
  // Their own purposes: an OAuth sign-in's state or token never matches an SSO one.
  const hashState = (state: string) => k.hasher.hash('sso_state', state);
  const hashToken = (token: string) => k.hasher.hash('sso_token', token);

  const callbackUrl = () => {
    if (!options.callbackUrl) throw new LatchkeyError('sso_not_configured');
    return options.callbackUrl;
  };

  /**
   * The one sign-in call of SSO, once the member is known: the session the sign-in issues (or
   * extends) is exchanged for the organization's, so the answer's JWT carries its id and the
   * member's roles; the one exchanged is revoked, as any exchange's is.
   */
  const signInMember = async (
    appId: string,
    proof: { userId: string; factor: Factor; organizationId: string; memberId: string },
    request: SignInRequest,
  ): Promise<SignedIn> => {
    const signedIn = await completeSignIn(sessions, appId, proof, request);
    if (signedIn.session_token === undefined) return signedIn;
    return organizationSessions.exchange(appId, proof.organizationId, {
      session_token: signedIn.session_token,
    });
  };

  async function connectionOf(appId: string, providerId: string) {
    const connectionId = connectionIdOf(providerId);
    const connection = connectionId ? await k.storage.sso.getConnectionById(appId, connectionId) : null;
    if (!connection) throw new LatchkeyError('sso_connection_not_found');
    const organization = await k.storage.organizations.get(appId, connection.organization_id);
    if (!organization) throw new LatchkeyError('sso_connection_not_found');
    return { connection, organization };
  }

  /** The user's membership, made with the organization's default role when they have none (JIT). */
  async function provision(
    organization: OrganizationRecord,
    connection: SsoConnectionRecord,
    userId: string,
  ): Promise<{ memberId: string; created: boolean }> {
    const existing = await k.storage.organizations.getMemberByUser(
      organization.app_id,
      organization.id,
      userId,
    );
    if (existing) return { memberId: existing.id, created: false };
    const now = k.now();
    const member: OrganizationMemberRecord = {
      id: k.id('orgmember'),
      app_id: organization.app_id,
      organization_id: organization.id,
      user_id: userId,
      roles: [organization.settings.default_role],
      created_at: now,
      updated_at: now,
    };
    const inserted = await k.storage.transaction(async (tx) => {
      const r = await tx.organizations.insertMember(member, 'sso');
      if (r.inserted)
        await k.emit(
          {
            app_id: organization.app_id,
            type: 'organization.sso.member_provisioned',
            data: {
              organization_id: organization.id,
              connection_id: connection.id,
              member_id: member.id,
              user_id: userId,
              roles: member.roles,
            },
          },
          tx,
        );
      return r.inserted;
    });
    if (inserted) return { memberId: member.id, created: true };
    // A concurrent sign-in of the same user made it first.
    const winner = await k.storage.organizations.getMemberByUser(
      organization.app_id,
      organization.id,
      userId,
    );
    if (!winner) throw new LatchkeyError('organization_member_not_found');
    return { memberId: winner.id, created: false };
  }

  return {
    /** Starts a sign-in through the organization's provider, as an OAuth start does (state, nonce, PKCE). */
    async start(appId: string, query: SsoStartQuery): Promise<{ url: string }> {
      const by = lookupOf(query);
      const app = await k.app(appId);
      const r = app.settings.redirect_urls;
      const redirect = chooseRedirect(query.redirect_url, r.default_login, r.login, 'redirect_url');
      const redirectUri = callbackUrl();
      const connection = await k.storage.sso.findConnection(appId, by);
      if (!connection) throw new LatchkeyError('sso_connection_not_found');
      const now = k.now();
      const key = providerKey(connection.id);
      const runtime = await runtimes.runtime(appId, key, asProvider(connection), now);
      const endpoint = runtime.as.authorization_endpoint;
      if (!endpoint) throw new LatchkeyError('oauth_provider_error');
      const state = oauth.generateRandomState();
      const nonce = oauth.generateRandomNonce();
      const codeVerifier = oauth.generateRandomCodeVerifier();
      // An OAuth flow's row and its single-use state and token: the same storage, spent the same way.
      await k.storage.oauth.insertFlow({
        id: k.id('oauthflow'),
        app_id: appId,
        provider_id: key,
        state_hash: hashState(state),
        nonce,
        code_verifier: codeVerifier,
        client_code_challenge: query.code_challenge ?? null,
        login_redirect_url: redirect,
        signup_redirect_url: redirect,
        link_user_id: null,
        state_expires_at: now + STATE_SECONDS,
        state_used_at: null,
        token_hash: null,
        token_expires_at: null,
        token_used_at: null,
        user_id: null,
        link_id: null,
        user_created: false,
        created_at: now,
      });
      const url = new URL(endpoint);
      const params = {
        client_id: runtime.client.client_id,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: runtime.scopes.join(' '),
        state,
        nonce,
        code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      };
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return { url: url.toString() };
    },

    /**
     * The provider's answer: as OAuth's callback, a JSON error without a state Latchkey holds,
     * else the App's redirect URL with a single-use token or the error (an email the provider
     * does not vouch for, or outside the organization's domains, creates nothing).
     */
    async callback(params: URLSearchParams): Promise<{ location: string }> {
      const state = params.get('state');
      if (!state) throw new LatchkeyError('oauth_state_not_found');
      const now = k.now();
      const flow = await takeFlowState(k, hashState(state), now);
      const failures = callbackFailures(k, flow, 'SSO callback failed');
      const refused = failures.refusal(params);
      if (refused) return refused;
      try {
        const { connection, organization } = await connectionOf(flow.app_id, flow.provider_id);
        const provider = asProvider(connection);
        const runtime = await runtimes.runtime(flow.app_id, flow.provider_id, provider, now);
        const { identity } = await readProviderIdentity(runtime, params, state, flow, {
          redirectUri: callbackUrl(),
          requestOptions: runtimes.requestOptions,
          refreshed: () => {
            runtimes.forget(provider);
            return runtimes.runtime(flow.app_id, flow.provider_id, provider, now);
          },
        });
        vouchedEmail(identity, connection, organization);
        const owner = await resolveIdentity(k, flow.app_id, flow.provider_id, identity, {
          linkUserId: null,
          linkByVerifiedEmail: true,
        });
        const token = newSecret('', k.random, 32);
        await k.storage.oauth.finishFlow(flow.app_id, flow.id, {
          token_hash: hashToken(token),
          token_expires_at: now + TOKEN_SECONDS,
          user_id: owner.link.user_id,
          link_id: owner.link.id,
          user_created: owner.userCreated,
        });
        return { location: withParams(flow.login_redirect_url, { token, token_type: 'sso' }) };
      } catch (error) {
        return failures.caught(error);
      }
    },

    /**
     * Spends the callback's token once, provisions the user as a member when they are not one
     * (the organization's default role), and signs them in.
     */
    async authenticate(appId: string, input: SsoAuthenticateRequest): Promise<SsoAuthenticateResponse> {
      const now = k.now();
      const { flow, link } = await spendFlowToken(
        k,
        appId,
        { hash: hashToken(input.token), codeVerifier: input.code_verifier },
        tokenFailures,
        now,
      );
      const { connection, organization } = await connectionOf(appId, flow.provider_id);
      // The connection as the factor's provider, even when the identity was first linked through
      // another provider of the same issuer: sso_required asks for a proof through this one.
      const factor = oauthFactor(link, flow.provider_id, now);
      // An organization whose allowed_sign_in_methods lack `sso` is refused before anyone is
      // provisioned or signed in; its exchange would refuse the session anyway.
      await organizationSessions.checkSignInMethods(organization, [factor]);
      const member = await provision(organization, connection, link.user_id);
      const signedIn = await signInMember(
        appId,
        { userId: link.user_id, factor, organizationId: organization.id, memberId: member.memberId },
        input,
      );
      return {
        ...signedIn,
        organization_id: organization.id,
        member_id: member.memberId,
        member_created: member.created,
        connection_id: connection.id,
        user_created: flow.user_created,
      };
    },
  };
}
