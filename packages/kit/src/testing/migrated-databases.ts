import type { Db } from '../db/db';
import { migrate } from '../db/migrate';
import { PgDb } from '../db/pg-db';
import { openMigratedPglite } from './embedded-database';
import { createTestDatabase, findTestDatabaseServer } from './test-database';

/** A migrated database of its own for one test, and how to be rid of it. */
export type OpenMigratedDatabase = () => Promise<{ db: Db; drop: () => Promise<void> }>;

/**
 * The engines a test of SQL runs on, for `describe.each`: PGlite always, and Postgres when a server
 * is there (findTestDatabaseServer decides, so CI runs both).
 */
export function migratedDatabases(): [string, OpenMigratedDatabase][] {
  const engines: [string, OpenMigratedDatabase][] = [
    [
      'PGlite',
      async () => {
        const db = await openMigratedPglite();
        return { db, drop: () => db.close() };
      },
    ],
  ];
  const server = findTestDatabaseServer();
  if (server !== undefined)
    engines.push([
      'Postgres',
      async () => {
        const database = await createTestDatabase(server.url);
        const db = new PgDb({ connectionString: database.url, max: 4 });
        await migrate(db);
        return {
          db,
          drop: async () => {
            await db.close();
            await database.drop();
          },
        };
      },
    ]);
  return engines;
}
