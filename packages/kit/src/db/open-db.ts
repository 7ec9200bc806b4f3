import { join } from 'node:path';
import type { Logger } from '../logger';
import type { Db } from './db';
import { PgDb } from './pg-db';
import { PgliteDb } from './pglite-db';

/** How often embedded mode looks for tables to analyze (PGlite runs no autovacuum). */
const EMBEDDED_ANALYZE_EVERY_MS = 10_000;

/**
 * Postgres when DATABASE_URL is set (distributed mode), else embedded Postgres (PGlite) persisted
 * under `<dataDir>/pgdata` (docs/architecture.md § The parts). Does not migrate: call migrate()
 * (embedded mode) or run migrate-main (distributed mode).
 */
export async function openDb(options: {
  databaseUrl?: string | undefined;
  dataDir: string;
  logger: Logger;
}): Promise<Db> {
  if (options.databaseUrl !== undefined && options.databaseUrl !== '') {
    return new PgDb({ connectionString: options.databaseUrl, logger: options.logger });
  }
  const dataDir = join(options.dataDir, 'pgdata');
  options.logger.info({ dataDir }, 'DATABASE_URL unset: using embedded Postgres');
  return PgliteDb.open({
    dataDir,
    logger: options.logger,
    thread: 'worker',
    analyzeEveryMs: EMBEDDED_ANALYZE_EVERY_MS,
  });
}
