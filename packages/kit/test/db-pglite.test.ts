import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { MIGRATIONS_DIR, PgliteDb, migrate, openDb } from '../src';
import { describeDbConformance } from './db-conformance';

const allMigrations = readdirSync(MIGRATIONS_DIR)
  .filter((f) => f.endsWith('.sql'))
  .sort();

describeDbConformance('PGlite in memory', { open: () => PgliteDb.open() });

// Embedded mode runs PGlite on a worker thread from the build (`pnpm test` builds first).
const workerScript = join(__dirname, '..', 'dist', 'db', 'pglite-worker.js');
describeDbConformance('PGlite on a worker thread', {
  open: () => PgliteDb.open({ thread: 'worker', workerScript }),
});

describe('PgliteDb', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'smsgw-pglite-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps what was written across close and reopen of the same directory', async () => {
    const first = await PgliteDb.open({ dataDir: join(dataDir, 'nested', 'pgdata') });
    expect(await migrate(first)).toEqual(allMigrations);
    await first.query(
      `INSERT INTO accounts (username, password_hash, balance) VALUES ('kept', 'x', $1)`,
      ['2.5'],
    );
    await first.transaction((tx) =>
      tx.query(`UPDATE accounts SET sms_count = 7 WHERE username = 'kept'`),
    );
    await first.close();
    const second = await PgliteDb.open({ dataDir: join(dataDir, 'nested', 'pgdata') });
    try {
      expect(await migrate(second)).toEqual([]);
      const { rows } = await second.query(`SELECT username, balance, sms_count FROM accounts`);
      expect(rows).toEqual([{ username: 'kept', balance: '2.500000', sms_count: '7' }]);
    } finally {
      await second.close();
    }
  });

  it('openDb without a URL persists under <dataDir>/pgdata', async () => {
    const db = await openDb({ dataDir, logger: pino({ level: 'silent' }) });
    try {
      expect(db).toBeInstanceOf(PgliteDb);
      expect(existsSync(join(dataDir, 'pgdata'))).toBe(true);
      expect(await db.ping()).toBe(true);
    } finally {
      await db.close();
    }
  });

  it('runs migrations from several callers at once only once', async () => {
    const db = await PgliteDb.open();
    try {
      const results = await Promise.all([migrate(db), migrate(db), migrate(db)]);
      expect(results.flat()).toEqual(allMigrations);
    } finally {
      await db.close();
    }
  });

  it('runs a db call started (not awaited) inside a transaction after it, and waits for it on close', async () => {
    const db = await PgliteDb.open();
    await db.exec(`CREATE TABLE t (x int)`);
    let later!: Promise<unknown>;
    await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO t VALUES (1)`);
      later = db.query<{ n: string }>(`SELECT count(*) AS n FROM t`);
    });
    expect(await later).toEqual({ rows: [{ n: '1' }], rowCount: 1 });
    const pending = db.query(`INSERT INTO t VALUES (2)`);
    await db.close();
    await expect(pending).resolves.toEqual({ rows: [], rowCount: 1 });
  });
});
