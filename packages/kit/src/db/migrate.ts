import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from '../logger';
import type { Db, Transaction } from './db';

/**
 * packages/kit/migrations. Sources (src/db, under jest) and the build (dist/db, also inside a
 * `pnpm deploy` of a service: node_modules/@smsgw/kit/dist/db) are both two levels below the
 * package root, and package.json `files` ships `migrations` next to `dist`.
 */
export const MIGRATIONS_DIR = resolve(__dirname, '..', '..', 'migrations');

/** Any constant works; it only has to be the same in every process that migrates ('smsg'). */
export const MIGRATION_LOCK_KEY = 0x736d7367;

/**
 * Serializes migrators: services starting together in distributed mode take turns, and the one
 * that comes second sees what the first applied. Released at the end of the transaction.
 */
async function lock(tx: Transaction): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
}

/**
 * Applies migrations/*.sql in name order, each once, each in its own transaction together with
 * its row in schema_migrations. Returns the names it applied (empty when up to date). Works the
 * same on Postgres and PGlite (whose single connection serializes anyway). A migration must be
 * plain Postgres SQL that can run inside a transaction (no CREATE INDEX CONCURRENTLY).
 */
export async function migrate(
  db: Db,
  options: { logger?: Logger | undefined; dir?: string | undefined } = {},
): Promise<string[]> {
  const dir = options.dir ?? MIGRATIONS_DIR;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  // Created under the lock: two concurrent CREATE TABLE IF NOT EXISTS can both try to create it.
  await db.transaction(async (tx) => {
    await lock(tx);
    const { rows } = await tx.query<{ exists: boolean }>(
      `SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`,
    );
    if (!rows[0]?.exists) {
      await tx.exec(
        `CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
    }
  });
  const applied: string[] = [];
  for (const file of files) {
    const sql = readFileSync(join(dir, file), 'utf8');
    const done = await db.transaction(async (tx) => {
      await lock(tx);
      const { rowCount } = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [
        file,
      ]);
      if (rowCount > 0) return false;
      try {
        await tx.exec(sql);
      } catch (err) {
        throw new Error(
          `migration ${file} failed: ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      }
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      return true;
    });
    if (done) {
      applied.push(file);
      options.logger?.info({ migration: file }, 'migration applied');
    }
  }
  return applied;
}
