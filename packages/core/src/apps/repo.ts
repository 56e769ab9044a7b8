import type { AppSettings } from './schema.js';

export interface AppRecord {
  id: string;
  name: string;
  /** Keyed hash of the secret key (`sk_…`); the key itself is never stored. */
  secret_key_hash: string;
  /** Keyed hash of the public token (`pk_…`). */
  public_token_hash: string;
  /** The secret key replaced by the last rotation, valid until `previous_secret_key_expires_at`. */
  previous_secret_key_hash: string | null;
  previous_secret_key_expires_at: number | null;
  settings: AppSettings;
  created_at: number;
  updated_at: number;
}

export type ApiKeyKind = 'secret' | 'public';

export interface AppRepo {
  insert(app: AppRecord): Promise<void>;
  get(appId: string): Promise<AppRecord | null>;
  list(): Promise<AppRecord[]>;
  /**
   * The App whose current secret key, public token, or unexpired previous secret key (at `now`,
   * Unix seconds) has this hash, with the kind of key it is.
   */
  findByKeyHash(keyHash: string, now: number): Promise<{ app: AppRecord; kind: ApiKeyKind } | null>;
  /** Applies the patch and returns the updated App, or null when there is none. */
  update(appId: string, patch: Partial<Omit<AppRecord, 'id' | 'created_at'>>): Promise<AppRecord | null>;
}

// This folder's repos, on the Storage port: ports/storage.ts names no capability.
declare module '../ports/storage.js' {
  interface Storage {
    apps: AppRepo;
  }
}

// What the API-key check sets on each request (http/middleware.ts): http/ names no capability.
declare module '../http/env.js' {
  interface HttpVariables {
    /** The App of the request's API key. */
    app: AppRecord;
    keyKind: ApiKeyKind;
  }
}

// The id prefixes of this folder's records (crypto/ids.ts): one folder owns each.
declare module '../crypto/ids.js' {
  interface IdPrefixes {
    app: true;
  }
}
