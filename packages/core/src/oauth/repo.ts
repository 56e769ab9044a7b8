import type { Storage } from '../ports/storage.js';

/** An event as storage writes it, named through the port: events/ imports this folder. */
type EventRecord = Parameters<Storage['events']['insert']>[0];

/**
 * One sign-in through a provider, from `start` to `authenticate`. The row is made at `start`
 * (the state sent to the provider, hashed), its state is spent once by the callback, which then
 * records whose identity came back and a Latchkey token (hashed), which `authenticate` spends once.
 */
export interface OAuthFlowRecord {
  id: string;
  app_id: string;
  /** The App's id for the provider (`settings.oauth.providers` key). */
  provider_id: string;
  /** Keyed hash of the `state` sent to the provider; the state itself is never stored. */
  state_hash: string;
  /** The OpenID Connect `nonce` the ID token must carry; null for an OAuth 2.0 provider (GitHub). */
  nonce: string | null;
  /** The PKCE verifier of the challenge sent to the provider (useless without the provider's code). */
  code_verifier: string;
  /** The browser's own PKCE challenge (S256), checked against `code_verifier` at authenticate. */
  client_code_challenge: string | null;
  login_redirect_url: string;
  signup_redirect_url: string;
  /** A signed-in user linking this provider (the flow was started with their session). */
  link_user_id: string | null;
  /** When the state stops being accepted by the callback. */
  state_expires_at: number;
  state_used_at: number | null;
  /** After the callback: keyed hash of the single-use Latchkey token given to the redirect. */
  token_hash: string | null;
  token_expires_at: number | null;
  token_used_at: number | null;
  /** After the callback: who signed in, through which link, and whether the user was created. */
  user_id: string | null;
  link_id: string | null;
  user_created: boolean;
  created_at: number;
}

/** What the callback records on its flow once the user is known. */
export interface OAuthFlowResult {
  token_hash: string;
  token_expires_at: number;
  user_id: string;
  link_id: string;
  user_created: boolean;
}

export type OAuthTakeFailure = 'not_found' | 'used' | 'expired';

export type OAuthTaken = { ok: true; flow: OAuthFlowRecord } | { ok: false; reason: OAuthTakeFailure };

/**
 * A provider identity linked to a user: the issuer and subject name it (never the email), and an
 * App links each to one user at most.
 */
export interface OAuthLinkRecord {
  id: string;
  app_id: string;
  user_id: string;
  provider_id: string;
  /** The ID token's `iss`, or the preset's fixed issuer for an OAuth 2.0 provider (GitHub). */
  issuer: string;
  /** The provider's stable id of the account (`sub`, or GitHub's numeric user id). */
  subject: string;
  /** The email the provider last gave, and whether it said the address is verified. */
  email: string | null;
  email_verified: boolean;
  /** The provider's tokens, sealed by the KeyVault, when the App keeps them; else null. */
  provider_tokens_sealed: string | null;
  created_at: number;
  updated_at: number;
}

export type OAuthLinkUpdate = Partial<
  Pick<OAuthLinkRecord, 'email' | 'email_verified' | 'provider_tokens_sealed' | 'updated_at'>
>;

export interface OAuthRepo {
  insertFlow(flow: OAuthFlowRecord): Promise<void>;
  /**
   * Atomically spends the state with `stateHash` (any App's: the state names the App): when
   * unspent and unexpired at `now`, marks it used at `now` and returns the flow; otherwise the
   * first that holds of `not_found`, `used`, `expired`. Of concurrent callers exactly one gets `ok`.
   */
  takeState(stateHash: string, now: number): Promise<OAuthTaken>;
  /** Records the callback's outcome on the App's flow (its state already spent). */
  finishFlow(appId: string, flowId: string, result: OAuthFlowResult): Promise<void>;
  /**
   * Atomically spends the App's Latchkey token with `tokenHash`, as `takeState` spends a state:
   * `not_found` (no such token in this App), `used`, or `expired` (`token_expires_at` ≤ `now`).
   */
  takeToken(appId: string, tokenHash: string, now: number): Promise<OAuthTaken>;

  findLink(appId: string, issuer: string, subject: string): Promise<OAuthLinkRecord | null>;
  getLink(appId: string, linkId: string): Promise<OAuthLinkRecord | null>;
  /** The user's links, oldest first. */
  listLinks(appId: string, userId: string): Promise<OAuthLinkRecord[]>;
  /**
   * Links an identity unless the App already has one for its issuer and subject: then nothing is
   * written and the existing link is returned (so of concurrent inserts exactly one wins).
   */
  insertLink(link: OAuthLinkRecord): Promise<{ inserted: boolean; link: OAuthLinkRecord }>;
  /** Optional: `insertLink` and, only when it inserted, the events it implies, in one atomic step. */
  insertLinkWithEvents?(
    link: OAuthLinkRecord,
    events: EventRecord[],
  ): Promise<{ inserted: boolean; link: OAuthLinkRecord }>;
  updateLink(appId: string, linkId: string, update: OAuthLinkUpdate): Promise<OAuthLinkRecord | null>;
  /** Removes the App's link; returns it, or null when there was none. */
  deleteLink(appId: string, linkId: string): Promise<OAuthLinkRecord | null>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    oauth: OAuthRepo;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    oauthflow: true;
    oauthlink: true;
  }
}
