/**
 * An organization's OpenID Connect connection: its own identity provider, through which its
 * members sign in (docs/organizations.md, "Single sign-on"). One per organization.
 */
export interface SsoConnectionRecord {
  id: string;
  app_id: string;
  organization_id: string;
  /** The provider's issuer, as discovery validated it. */
  issuer: string;
  client_id: string;
  /** The client secret sealed by the KeyVault (as the App's OAuth provider secrets are); never shown. */
  client_secret_sealed: string;
  /** The secret's last four characters, what the API shows of it. */
  client_secret_hint: string;
  /** The scopes asked for; null: `openid email profile`. */
  scopes: string[] | null;
  /** Lower-case domains the provider may vouch for; empty: the organization's `allowed_email_domains`. */
  email_domains: string[];
  created_at: number;
  updated_at: number;
}

export type SsoConnectionUpdate = Partial<
  Pick<
    SsoConnectionRecord,
    'issuer' | 'client_id' | 'client_secret_sealed' | 'client_secret_hint' | 'scopes' | 'email_domains'
  >
> & { updated_at: number };

/** How a sign-in names its organization: exactly one of these. */
export type SsoConnectionLookup = { organization_id: string } | { slug: string } | { email_domain: string };

export interface SsoRepo {
  /**
   * Stores the connection unless its organization already has one (`inserted` false); throws
   * `organization_not_found` when the App has no such organization, and `sso_email_domain_taken`
   * (its field `email_domains.<i>` when known) when another connection of the App claims one of
   * its `email_domains`: checked with the write, atomically, so two concurrent writes cannot both
   * claim a domain.
   */
  insertConnection(connection: SsoConnectionRecord): Promise<{ inserted: boolean }>;
  /** The App's connection found by its organization's id or slug, or the domain it claims. */
  findConnection(appId: string, by: SsoConnectionLookup): Promise<SsoConnectionRecord | null>;
  getConnectionById(appId: string, connectionId: string): Promise<SsoConnectionRecord | null>;
  /**
   * Changes the organization's connection; `email_domains`, when given, replaces its claimed
   * domains under the same atomic rule as `insertConnection` (`sso_email_domain_taken`).
   */
  updateConnection(
    appId: string,
    organizationId: string,
    update: SsoConnectionUpdate,
  ): Promise<SsoConnectionRecord | null>;
  /** Removes the organization's connection; returns it, or null when there was none. */
  deleteConnection(appId: string, organizationId: string): Promise<SsoConnectionRecord | null>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    sso: SsoRepo;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    ssoconn: true;
  }
}
