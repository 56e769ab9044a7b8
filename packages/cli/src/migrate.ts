import { migrateToLatest, type PendingMigration, pendingMigrations } from '@latchkey/kysely-postgres';
import { type CliConfig, describeDatabase } from './config.js';
import { openDatabase } from './database.js';
import type { Output } from './output.js';

/** `latchkey migrate [--dry-run]`: applies the pending migrations, or prints their SQL. */
export async function migrateCommand(
  config: CliConfig,
  options: { dryRun: boolean; json: boolean },
  output: Output,
): Promise<number> {
  const db = await openDatabase(config, { create: !options.dryRun });
  try {
    const target = { ...db.source, ...(config.schema ? { schema: config.schema } : {}) };
    if (options.dryRun) {
      const pending = await pendingMigrations(target);
      output.out(options.json ? JSON.stringify({ pending }) : pendingSql(pending, config));
      return 0;
    }
    const { applied } = await migrateToLatest(target);
    if (options.json) output.out(JSON.stringify({ applied }));
    else if (applied.length === 0) output.out(`Nothing to apply: ${describeDatabase(config)} is up to date`);
    else
      output.out(
        `Applied ${applied.length} migrations to ${describeDatabase(config)}: ${applied.join(', ')}`,
      );
    return 0;
  } finally {
    await db.close();
  }
}

/** The pending migrations as one SQL script, each under a comment naming it. */
export function pendingSql(pending: PendingMigration[], config: CliConfig): string {
  const head = `-- latchkey migrate --dry-run: ${describeDatabase(config)}`;
  if (pending.length === 0) return `${head}\n-- Nothing to apply: every migration is applied.`;
  const lines = [head, `-- ${pending.length} pending, applied in one transaction by \`latchkey migrate\`.`];
  lines.push(
    `-- It also records each in kysely_migration (created${config.schema ? `, with schema "${config.schema}",` : ''} when absent).`,
  );
  for (const { name, statements } of pending) {
    lines.push('', `-- ${name}`, ...statements.map((statement) => `${statement};`));
  }
  return lines.join('\n');
}
