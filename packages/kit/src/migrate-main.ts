import { envVars, loadConfig } from './config';
import { errorText, waitForDependency } from './dependency-wait';
import { migrate } from './db/migrate';
import { PgDb } from './db/pg-db';
import { createLogger } from './logger';
import { runMain } from './run-main';

/**
 * One-shot migration job for distributed deployments (docker-compose `migrate`, a k8s Job):
 * `node dist/migrate-main.js` with DATABASE_URL set. Waits for Postgres as the services do (one
 * warning per attempt), then exits 0 when the schema is up to date, or 1 with one line on stderr
 * when a migration itself fails.
 */
async function main(): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: envVars.DATABASE_URL.unwrap(),
    LOG_LEVEL: envVars.LOG_LEVEL,
    DEPENDENCY_RETRY_INITIAL_MS: envVars.DEPENDENCY_RETRY_INITIAL_MS,
    DEPENDENCY_RETRY_MAX_MS: envVars.DEPENDENCY_RETRY_MAX_MS,
  });
  const logger = createLogger('migrate', config.LOG_LEVEL);
  const db = new PgDb({ connectionString: config.DATABASE_URL, max: 1, logger });
  try {
    const applied = await waitForDependency('Postgres', () => migrate(db, { logger }), {
      logger,
      policy: {
        initialDelayMs: config.DEPENDENCY_RETRY_INITIAL_MS,
        maxDelayMs: config.DEPENDENCY_RETRY_MAX_MS,
      },
    });
    logger.info({ applied }, 'database is up to date');
  } catch (err) {
    throw new Error(`database migration failed: ${errorText(err)}`, { cause: err });
  } finally {
    await db.close();
  }
}

runMain('migrate', main);
