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

/**
 * A requirement's shape for a statement compiled once: its fields, each marked `?` when there is
 * no value to meet (the test is then false); the values travel as parameters.
 */
export const deviceShape = (req: DeviceRequirement): string[] =>
  req.map(({ field, value }) => (value === undefined ? `${field}?` : field));

/** The values of a requirement, in its shape's order (undefined where its shape says none). */
export const deviceValues = (req: DeviceRequirement): Array<string | undefined> => req.map((r) => r.value);

/** The requirement back from its shape and values (markers, when compiling). */
export const deviceFromShape = (shape: string[], values: ReadonlyArray<unknown>): DeviceRequirement =>
  shape.map((s, i) => {
    const absent = s.endsWith('?');
    return {
      field: (absent ? s.slice(0, -1) : s) as DeviceRequirement[number]['field'],
      value: absent ? undefined : (values[i] as string),
    };
  });
