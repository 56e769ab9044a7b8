import type { Compilable, CompiledQuery, RawBuilder } from 'kysely';
import type pg from 'pg';
import type { LatchkeyDb } from './database.js';

/**
 * The names prepared statements go under, one per text: from the text, so Storages sharing a Pool
 * (other schemas) never give one name to two texts. Only texts compiled once here are named, so a
 * statement built per call never fills a connection with one-off prepared statements.
 */
export interface StatementNames {
  /** The text's name, registering it. */
  name(text: string): string;
  /** The name of a registered text; undefined for any other. */
  of(text: string): string | undefined;
}

export function statementNames(): StatementNames {
  const names = new Map<string, string>();
  return {
    name(text) {
      let name = names.get(text);
      if (name === undefined) {
        name = `latchkey_${textHash(text)}`;
        names.set(text, name);
      }
      return name;
    },
    of: (text) => names.get(text),
  };
}

/** Runs a compiled statement and returns its rows. */
export type RunCompiled = (query: CompiledQuery) => Promise<unknown[]>;

/**
 * Statements sent straight to the pg Pool as named prepared statements: Postgres parses and plans
 * each once per connection instead of once per request, and the call skips Kysely's executor and
 * connection wrapper (as much Node time as the round trip on the session reads). The rows are the
 * ones Kysely would return: same Pool, same type parsers, no plugins on a Kysely this package
 * opened. Only for statements outside a transaction (any of the Pool's connections runs them); a
 * failed query's client is dropped by the Pool, as `guardedPool` does for a broken one.
 */
export function poolStatements(pool: pg.Pool, names: StatementNames): RunCompiled {
  return async (query) => {
    const result = await pool.query({
      name: names.name(query.sql),
      text: query.sql,
      values: [...query.parameters],
    });
    return result.rows;
  };
}

/**
 * A statement whose text depends only on the Storage's schema and on its `shape` (say, how many
 * rows it writes), never on its parameter values: `build` must pass each of `params` to Kysely as
 * a value, untouched (no `x === null ? … : …`, no `toJson(x)` inside; convert before the call).
 * `shapeKey` names what of `shape` the text depends on; the same key must mean the same text.
 */
export interface StatementDefinition<P extends readonly unknown[], R, S> {
  build(db: LatchkeyDb, params: P, shape: S): Buildable<R>;
  shapeKey(shape: S): string;
}

/** A query builder, or raw SQL (which compiles through a Kysely: its plugins apply). */
type Buildable<R> = Compilable<R> | RawBuilder<R>;

/** `built` compiled as `db` runs it. */
export const compileOn = <R>(db: LatchkeyDb, built: Buildable<R>): CompiledQuery<R> =>
  (built as { compile(db: LatchkeyDb): CompiledQuery<R> }).compile(db);

export function defineStatement<P extends readonly unknown[], R, S = undefined>(
  build: (db: LatchkeyDb, params: P, shape: S) => Buildable<R>,
  shapeKey: (shape: S) => string = () => '',
): StatementDefinition<P, R, S> {
  return { build, shapeKey };
}

/** Each compiled parameter: the index of the call's parameter it takes, or a constant of the text. */
type Slot = { param: number } | { constant: unknown };

interface Template {
  compiled: CompiledQuery;
  slots: Slot[];
}

/**
 * Compiles `def` twice with two sets of marker values (as many as `arity`) and keeps the text
 * with where each parameter comes from. `null` when the two texts differ or a parameter is
 * neither a marker in its place nor the same constant in both (`build` changed a value): such a
 * statement is built on every call instead.
 */
export function templateOf<P extends readonly unknown[], R, S>(
  db: LatchkeyDb,
  def: StatementDefinition<P, R, S>,
  arity: number,
  shape: S,
): Template | null {
  const markers = (tag: string) => Array.from({ length: arity }, (_, i) => `\u0000latchkey-${i}-${tag}`);
  const [a, b] = [markers('a'), markers('b')];
  const first = compileOn(db, def.build(db, a as unknown as P, shape));
  const second = compileOn(db, def.build(db, b as unknown as P, shape));
  if (first.sql !== second.sql || first.parameters.length !== second.parameters.length) return null;
  const slots: Slot[] = [];
  for (const [j, value] of first.parameters.entries()) {
    const other = second.parameters[j];
    const i = a.indexOf(value as string);
    if (i >= 0 && other === b[i]) slots.push({ param: i });
    else if (i < 0 && b.indexOf(other as string) < 0 && Object.is(value, other))
      slots.push({ constant: value });
    else return null;
  }
  return { compiled: first, slots };
}

/** The template's statement with the call's values in place. */
export function instantiate(template: Template, params: readonly unknown[]): CompiledQuery {
  const parameters = template.slots.map((s) => ('param' in s ? params[s.param] : s.constant));
  return { ...template.compiled, parameters };
}

/**
 * One Storage's compiled statements, shared by its transactions (their texts are the same), and
 * on a pg Pool the names their texts go under, on the Pool and on a transaction's connection.
 */
export interface StatementCache {
  templates: WeakMap<StatementDefinition<never, unknown, never>, Map<string, Template | null>>;
  names?: StatementNames;
}

export const statementCache = (names?: StatementNames): StatementCache => ({
  templates: new WeakMap(),
  ...(names ? { names } : {}),
});

export interface Statements {
  /**
   * Runs `def` on `params`: compiled once per shape, then only its values swapped in. Outside a
   * transaction on a pg Pool, as a named prepared statement on the Pool; otherwise (PGlite, a
   * transaction, a host's Kysely) through Kysely with the same text, which `guardedPool` still
   * names on a Pool's connection.
   */
  run<P extends readonly unknown[], R, S>(
    def: StatementDefinition<P, R, S>,
    params: P,
    shape: S,
  ): Promise<R[]>;
  run<P extends readonly unknown[], R>(def: StatementDefinition<P, R, undefined>, params: P): Promise<R[]>;
  /** Whether statements go to a pg Pool as they are (outside a transaction): worth grouping reads. */
  onPool: boolean;
}

/** `pool`: only for the Storage outside a transaction on a pg Pool. */
export function statementsOn(db: LatchkeyDb, cache: StatementCache, pool?: RunCompiled): Statements {
  return {
    onPool: pool !== undefined,
    async run<P extends readonly unknown[], R, S>(def: StatementDefinition<P, R, S>, params: P, shape?: S) {
      const key = def as unknown as StatementDefinition<never, unknown, never>;
      let byShape = cache.templates.get(key);
      if (!byShape) {
        byShape = new Map();
        cache.templates.set(key, byShape);
      }
      const shapeKey = def.shapeKey(shape as S);
      let template = byShape.get(shapeKey);
      if (template === undefined) {
        template = templateOf(db, def, params.length, shape as S);
        byShape.set(shapeKey, template);
        if (template) cache.names?.name(template.compiled.sql);
      }
      if (!template) return (await db.executeQuery(compileOn(db, def.build(db, params, shape as S)))).rows;
      const query = instantiate(template, params);
      if (pool) return (await pool(query)) as R[];
      return (await db.executeQuery<R>(query as CompiledQuery<R>)).rows;
    },
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
