/**
 * How a revocation reaches every process that checks JWTs: the storage itself (Postgres
 * LISTEN/NOTIFY, memory's own listeners) or a message bus beside it (Redis pub/sub). Storage
 * stays the record (`SessionRepo.revokedSince`); a channel only says "look, now".
 */

/** A session revoked, or deleted while live (its user or App deleted), at `revoked_at` (Unix s). */
export interface SessionRevocation {
  app_id: string;
  session_id: string;
  revoked_at: number;
}

export interface RevocationListener {
  /** Revocations made anywhere (this process too); a repeat is harmless. */
  revoked(revocations: readonly SessionRevocation[]): void;
  /** The channel broke: what is revoked from now until `restored` may not be heard. */
  lost(error: unknown): void;
  /** The channel is back; the listener catches up from storage before trusting it again. */
  restored(): void;
}

export interface RevocationSubscription {
  close(): Promise<void>;
}

export interface RevocationChannel {
  /**
   * Listens until closed; resolves once the channel is live, rejects when it cannot start (the
   * caller retries). Once live, the channel reconnects by itself, telling the listener `lost`
   * and then `restored`.
   */
  subscribe(listener: RevocationListener): Promise<RevocationSubscription>;
  /**
   * Tells the other processes of revocations this one made. Absent when the storage announces
   * its own writes (a Postgres trigger does), so nothing is sent twice.
   */
  publish?(revocations: readonly SessionRevocation[]): Promise<void>;
}
