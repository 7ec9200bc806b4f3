import { envVars, loadConfig } from './config';
import { migrate } from './db/migrate';
import { PgDb } from './db/pg-db';
import { createLogger } from './logger';
import { runMain } from './run-main';

/** A connection error can be an AggregateError with an empty message (one per resolved address). */
function errorText(err: unknown): string {
  if (err instanceof AggregateError && err.message === '')
    return err.errors.map(errorText).join('; ');
  if (err instanceof Error) return err.message || (err as { code?: string }).code || err.name;
  return String(err);
}

/**
 * One-shot migration job for distributed deployments (docker-compose `migrate`, a k8s Job):
 * `node dist/migrate-main.js` with DATABASE_URL set; exit 0 when the schema is up to date,
 * exit 1 with one line on stderr otherwise.
 */
async function main(): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: envVars.DATABASE_URL.unwrap(),
    LOG_LEVEL: envVars.LOG_LEVEL,
  });
  const logger = createLogger('migrate', config.LOG_LEVEL);
  const db = new PgDb({ connectionString: config.DATABASE_URL, max: 1, logger });
  try {
    const applied = await migrate(db, { logger });
    logger.info({ applied }, 'database is up to date');
  } catch (err) {
    throw new Error(`database migration failed: ${errorText(err)}`, { cause: err });
  } finally {
    await db.close();
  }
}

runMain('migrate', main);
