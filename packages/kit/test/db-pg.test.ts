import { readdirSync } from 'node:fs';
import { Writable } from 'node:stream';
import pino from 'pino';
import { MIGRATIONS_DIR, PgDb, migrate, openDb } from '../src';
import { createTestDatabase, findTestDatabaseServer, waitFor } from '../src/testing';
import { describeDbConformance } from './db-conformance';

const server = findTestDatabaseServer();
const allMigrations = readdirSync(MIGRATIONS_DIR)
  .filter((f) => f.endsWith('.sql'))
  .sort();

if (server === undefined) {
  // jest.config.js runs this file only with DATABASE_URL set; run by hand without a server, it fails.
  describe('Db conformance: Postgres', () => {
    it('needs a Postgres server (set DATABASE_URL)', () => {
      throw new Error('DATABASE_URL is unset and no Postgres answers at 127.0.0.1:5432');
    });
  });
} else {
  // With DATABASE_URL set this must run: a server that is down fails the tests (createTestDatabase throws).
  let database: { url: string; drop(): Promise<void> } | undefined;
  describeDbConformance('Postgres', {
    async open() {
      database ??= await createTestDatabase(server.url);
      return new PgDb({ connectionString: database.url, max: 4 });
    },
    cleanup: async () => database?.drop(),
  });

  describe('PgDb', () => {
    let fresh: { url: string; drop(): Promise<void> };
    beforeEach(async () => {
      fresh = await createTestDatabase(server.url);
    });
    afterEach(() => fresh.drop());

    it('applies migrations once when several services start together', async () => {
      const dbs = [0, 1, 2, 3].map(() => new PgDb({ connectionString: fresh.url, max: 2 }));
      try {
        const results = await Promise.all(dbs.map((db) => migrate(db)));
        expect(results.flat().sort()).toEqual(allMigrations);
        expect(
          (
            await dbs[0].query<{ name: string }>(`SELECT name FROM schema_migrations ORDER BY name`)
          ).rows.map((r) => r.name),
        ).toEqual(allMigrations);
      } finally {
        await Promise.all(dbs.map((db) => db.close()));
      }
    });

    it('openDb with a URL gives a PgDb', async () => {
      const db = await openDb({
        databaseUrl: fresh.url,
        dataDir: '/nonexistent',
        logger: pino({ level: 'silent' }),
      });
      try {
        expect(db).toBeInstanceOf(PgDb);
        expect(await db.ping()).toBe(true);
      } finally {
        await db.close();
      }
    });

    it('ping is false, not a hang, when the server is unreachable', async () => {
      const db = new PgDb({
        connectionString: 'postgres://postgres@127.0.0.1:1/none',
        connectionTimeoutMillis: 500,
      });
      try {
        expect(await db.ping()).toBe(false);
      } finally {
        await db.close();
      }
    });

    it('createTestDatabase drops its database, even with open connections', async () => {
      const db = new PgDb({ connectionString: fresh.url });
      await db.query('SELECT 1');
      await fresh.drop();
      await fresh.drop();
      const admin = new PgDb({ connectionString: server.url, max: 1 });
      try {
        const name = new URL(fresh.url).pathname.slice(1);
        expect(
          (await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rowCount,
        ).toBe(0);
      } finally {
        await admin.close();
        await db.close();
      }
    });

    it('a session ended by the server while a transaction waits fails that transaction, not the process', async () => {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      });
      const db = new PgDb({ connectionString: fresh.url, max: 2, logger: pino({}, sink) });
      const admin = new PgDb({ connectionString: fresh.url, max: 1 });
      try {
        let pid = 0;
        let resume!: () => void;
        const waiting = new Promise<void>((r) => (resume = r));
        const transaction = db.transaction(async (tx) => {
          pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
          // Idle in the transaction, as the dispatcher is while its submits are written.
          await waiting;
          await tx.query('SELECT 1');
        });
        await waitFor(() => pid > 0);
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        // The server's termination notice has reached the idle client before the transaction goes on.
        await waitFor(
          () => lines.some((l) => l.includes('Postgres connection lost during a transaction')),
          10_000,
          'the connection lost',
        );
        resume();
        await expect(transaction).rejects.toThrow();
        expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        await admin.close();
        await db.close();
      }
    });
  });
}
