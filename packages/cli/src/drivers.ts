import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';

type Importer = (name: string) => Promise<unknown>;
const importModule: Importer = (name) => import(name);

/**
 * pg and @electric-sql/pglite are optional peers, as for @latchkey/kysely-postgres: a project
 * installs the one it uses. A missing one is named, with the command that installs it.
 */
async function load<T>(name: string, why: string, importer: Importer): Promise<T> {
  try {
    return (await importer(name)) as T;
  } catch (err) {
    // Node names the package it could not find in quotes: pg's own missing dependency is not pg missing.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((err as Error).message).includes(`'${name}'`)) {
      throw new Error(`${why}, which needs the package ${name}: npm install ${name}`, { cause: err });
    }
    throw err;
  }
}

export async function loadPg(importer: Importer = importModule): Promise<typeof pg> {
  const module = await load<{ default: typeof pg }>('pg', 'a database URL is set: Postgres', importer);
  return module.default;
}

export async function loadPglite(importer: Importer = importModule): Promise<typeof PGlite> {
  const module = await load<{ PGlite: typeof PGlite }>(
    '@electric-sql/pglite',
    'no database URL is set (--database-url or DATABASE_URL): embedded PGlite',
    importer,
  );
  return module.PGlite;
}
