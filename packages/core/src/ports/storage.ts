/**
 * Where Latchkey keeps its state. Every method is scoped by App (but `apps` itself). Methods
 * whose doc comment says "atomic" must hold under concurrent callers in many processes; a
 * service never composes them into read-then-write.
 *
 * Each folder that owns records adds its repos here from its own repo.ts (`declare module
 * '../ports/storage.js'`), so this port names no capability and a new one edits no shared file.
 *
 * Adapters throw `LatchkeyError('storage_unavailable')` when the backend cannot be reached, so
 * callers see a 503, not a 500.
 */
export interface Storage {
  /**
   * Runs `fn` in one transaction: every write made through `tx` lands, or none does when `fn`
   * throws (and the error is rethrown). Nested calls on `tx` join the outer transaction.
   */
  transaction<T>(fn: (tx: Storage) => Promise<T>): Promise<T>;
  /** Releases connections the adapter opened itself. */
  close(): Promise<void>;
}
