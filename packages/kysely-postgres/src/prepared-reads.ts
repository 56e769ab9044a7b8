import type { CompiledQuery } from 'kysely';
import type pg from 'pg';

/** Runs a compiled read and returns its rows. */
export type PreparedRead = (query: CompiledQuery) => Promise<unknown[]>;

/**
 * The per-request session reads, sent to the pg Pool as named prepared statements: Postgres
 * parses and plans each once per connection instead of once per request, and the read skips
 * Kysely's executor and connection wrapper (as much Node time as the round trip). The rows are
 * the ones Kysely would return: same Pool, same type parsers, no plugins on a Kysely this package
 * opened. The name comes from the statement's text, so Storages sharing a Pool (other schemas)
 * never give one name to two texts. Only for statements outside a transaction; a failed query's
 * client is dropped by the Pool, as `guardedPool` does for a broken one.
 */
export function preparedReads(pool: pg.Pool): PreparedRead {
  const names = new Map<string, string>();
  return async (query) => {
    let name = names.get(query.sql);
    if (name === undefined) {
      name = `latchkey_${textHash(query.sql)}`;
      names.set(query.sql, name);
    }
    const result = await pool.query({ name, text: query.sql, values: [...query.parameters] });
    return result.rows;
  };
}

/** 64 bits of FNV-1a (two 32-bit lanes with different offsets) in hex: names, not security. */
function textHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}
