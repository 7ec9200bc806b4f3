import pino from 'pino';
import { PgliteDb } from '../src';
import { PgliteStatistics } from '../src/db/pglite-statistics';
import { waitFor } from '../src/testing';

/** Stands in for autovacuum's ANALYZE in embedded mode (packages/kit/src/db/pglite-statistics.ts). */
describe('PgliteStatistics', () => {
  let db: PgliteDb;
  beforeAll(async () => {
    db = await PgliteDb.open();
    await db.exec(`CREATE TABLE readings (id int PRIMARY KEY, body text NOT NULL)`);
    await db.exec(`CREATE TABLE idle (id int PRIMARY KEY)`);
  });
  afterAll(() => db.close());

  const analyzed = async (table: string): Promise<boolean> => {
    const { rows } = await db.query<{ reltuples: number }>(
      `SELECT reltuples FROM pg_class WHERE relname = $1`,
      [table],
    );
    // -1 until the table is first analyzed (or vacuumed).
    return rows[0].reltuples >= 0;
  };
  const fill = (from: number, to: number) =>
    db.query(
      `INSERT INTO readings SELECT i, repeat('x', 100) FROM generate_series($1::int, $2::int) i`,
      [from, to],
    );

  it('analyzes a table once it holds rows, and again only once it has grown by a fifth', async () => {
    const statistics = new PgliteStatistics(db, pino({ level: 'silent' }));
    expect(await statistics.round()).toEqual([]);
    await fill(1, 2000);
    expect(await analyzed('readings')).toBe(false);
    expect(await statistics.round()).toEqual(['readings']);
    expect(await analyzed('readings')).toBe(true);
    await fill(2001, 2100); // +5 %
    expect(await statistics.round()).toEqual([]);
    await fill(2101, 3000); // +50 % of what was analyzed
    expect(await statistics.round()).toEqual(['readings']);
    const { rows } = await db.query<{ reltuples: number }>(
      `SELECT reltuples FROM pg_class WHERE relname = 'readings'`,
    );
    expect(rows[0].reltuples).toBe(3000);
    // An empty table is never analyzed.
    expect(await analyzed('idle')).toBe(false);
  });

  it('runs on its own when PgliteDb is opened with an interval, and stops when it closes', async () => {
    const own = await PgliteDb.open({ logger: pino({ level: 'silent' }), analyzeEveryMs: 50 });
    await own.exec(`CREATE TABLE samples (id int PRIMARY KEY)`);
    await own.query(`INSERT INTO samples SELECT generate_series(1, 500)`);
    // reltuples is -1 until the table's first analyze.
    const reltuples = await waitFor(
      async () => {
        const { rows } = await own.query<{ reltuples: number }>(
          `SELECT reltuples FROM pg_class WHERE relname = 'samples'`,
        );
        return rows[0].reltuples >= 0 ? rows[0].reltuples : undefined;
      },
      10_000,
      'the first analyze of its own',
      50,
    );
    expect(reltuples).toBe(500);
    await own.close();
    await expect(own.query('SELECT 1')).rejects.toThrow(/closed/);
  });
});
