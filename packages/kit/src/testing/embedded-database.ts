import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/db';
import { migrate } from '../db/migrate';
import { PgliteDb } from '../db/pglite-db';

/** A fresh in-memory PGlite with every migration applied: the database of the services' unit tests. */
export async function openMigratedPglite(): Promise<PgliteDb> {
  const db = await PgliteDb.open();
  await migrate(db);
  return db;
}

/** An account with a unique name and no balance or quota limit, at this rate per segment; its id. */
export async function insertTestAccount(db: Queryable, rate: string | number = 1): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO accounts (username, password_hash, rate) VALUES ($1, 'x', $2) RETURNING id`,
    [`test-${randomUUID()}`, rate],
  );
  return rows[0].id;
}
