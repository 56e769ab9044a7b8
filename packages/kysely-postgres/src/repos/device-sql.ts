import type { DeviceRequirement } from '@latchkey/core';
import { type RawBuilder, sql } from 'kysely';

/**
 * SQL that is true when the row's `device_fingerprint` meets the requirement: the same test as
 * core's `meetsDeviceRequirement`, so it can sit in the statement that spends a code or link.
 */
export function deviceMatchSql(req: DeviceRequirement, table: string): RawBuilder<boolean> {
  if (req.length === 0) return sql<boolean>`true`;
  const column = sql.ref(`${table}.device_fingerprint`);
  const tests = req.map(({ field, value }) =>
    value === undefined ? sql`false` : sql`coalesce((${column} ->> ${field}) = ${value}, false)`,
  );
  return sql<boolean>`(${sql.join(tests, sql` and `)})`;
}
