import type { Db } from '../src';
import { migrate } from '../src';
import { waitFor } from '../src/testing';

export interface DbAdapter {
  /**
   * A Db on the suite's database; called more than once (every call sees the same data where it
   * persists).
   */
  open(): Promise<Db>;
  /** After the suite, once every Db it opened is closed. */
  cleanup?(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One suite, run against Postgres and PGlite: both adapters must behave the same
 * (docs/architecture.md § The parts).
 */
export function describeDbConformance(name: string, adapter: DbAdapter): void {
  describe(`Db conformance: ${name}`, () => {
    let db: Db;
    let accountId: string;

    beforeAll(async () => {
      db = await adapter.open();
      await migrate(db);
      await db.exec(
        `CREATE TABLE conformance (id serial PRIMARY KEY, state text NOT NULL, note text)`,
      );
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO accounts (username, password_hash) VALUES ('conformance', 'x') RETURNING id`,
      );
      accountId = rows[0].id;
    });
    afterAll(async () => {
      await db?.close();
      await adapter.cleanup?.();
    });

    async function states(...wanted: string[]): Promise<string[]> {
      const { rows } = await db.query<{ state: string }>(
        `SELECT state FROM conformance WHERE state = ANY($1) ORDER BY id`,
        [wanted],
      );
      return rows.map((r) => r.state);
    }

    it('migrates once: a second run applies nothing and the tables exist', async () => {
      expect(await migrate(db)).toEqual([]);
      const { rows } = await db.query<{ name: string; applied_at: Date }>(
        `SELECT name, applied_at FROM schema_migrations ORDER BY name`,
      );
      expect(rows.map((r) => r.name)).toContain('001_accounts_messages.sql');
      expect(rows[0].applied_at).toBeInstanceOf(Date);
      const tables = await db.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
      );
      expect(tables.rows.map((r) => r.table_name)).toEqual(
        expect.arrayContaining([
          'schema_migrations',
          'accounts',
          'applications',
          'messages',
          'credit_ledger',
        ]),
      );
    });

    it('returns the same JS values for the schema types', async () => {
      const { rows, rowCount } = await db.query(
        `INSERT INTO accounts (username, password_hash, balance, sms_count, throughput) VALUES ($1, 'x', $2, $3, $4)
         RETURNING id, username, balance, sms_count, rate, default_from, throughput, created_at`,
        ['types', '1.5', '9007199254740993', 2.5],
      );
      expect(rowCount).toBe(1);
      expect(rows[0]).toEqual({
        id: expect.stringMatching(
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/,
        ),
        username: 'types',
        balance: '1.500000', // numeric: an exact string
        sms_count: '9007199254740993', // bigint: a string, exact past 2^53
        rate: '1.000000',
        default_from: null,
        throughput: 2.5, // double precision: a number
        created_at: expect.any(Date),
      });
      const id = '5f1c3a8e-1111-4000-8000-000000000001';
      const at = new Date('2026-01-02T03:04:05.678Z');
      const message = await db.query(
        `INSERT INTO messages (id, account_id, state, to_addr, coding, segments, cost, params, submitted_at)
         VALUES ($1, $2, 'accepted', '+1', 0, 1, $3, $4, $5) RETURNING id, coding, segments, cost, params, submitted_at, attempts, error`,
        [id, accountId, 0.05, { dlr: true, tags: ['a', 1] }, at],
      );
      expect(message.rows[0]).toEqual({
        id,
        coding: 0,
        segments: 1,
        cost: '0.050000',
        params: { dlr: true, tags: ['a', 1] },
        submitted_at: at,
        attempts: 0,
        error: null,
      });
      // A JSON string for jsonb is stored as the object it encodes, on both.
      const again = await db.query<{ params: unknown }>(
        `UPDATE messages SET params = $2 WHERE id = $1 RETURNING params`,
        [id, JSON.stringify({ k: 'v' })],
      );
      expect(again.rows[0].params).toEqual({ k: 'v' });
    });

    it('returns the same JS values for other common types', async () => {
      const { rows } = await db.query(
        `SELECT count(*) AS count, 3::int2 AS i2, 3::int4 AS i4, 1.25::float4 AS f4, true AS b, NULL::text AS nothing,
                ARRAY[1, 2]::int4[] AS ints, ARRAY[1, 2]::int8[] AS bigs, ARRAY[1.5]::numeric[] AS nums, ARRAY['a', NULL] AS texts,
                '2026-01-02'::date AS day, '1 day 2 hours'::interval AS span, '\\x0102'::bytea AS bytes,
                '{"a": 1}'::json AS js, '"s"'::jsonb AS jsstr,
                $1::timestamptz AS at, $2::text AS at_text, $3::text AS obj_text, $4::int8 AS big_param, 2 = ANY($5) AS any_param`,
        [
          new Date('2026-01-02T03:04:05.678Z'),
          new Date('2026-01-02T03:04:05.678Z'),
          { a: 1 },
          9007199254740993n,
          [1, 2],
        ],
      );
      expect(rows[0]).toEqual({
        count: '1',
        i2: 3,
        i4: 3,
        f4: 1.25,
        b: true,
        nothing: null,
        ints: [1, 2],
        bigs: ['1', '2'],
        nums: ['1.5'],
        texts: ['a', null],
        day: '2026-01-02',
        span: '1 day 02:00:00',
        bytes: Buffer.from([1, 2]),
        js: { a: 1 },
        jsstr: 's',
        at: new Date('2026-01-02T03:04:05.678Z'),
        at_text: expect.stringMatching(/^2026-01-02[ T]03:04:05\.678(Z|\+00(:00)?)$/),
        obj_text: '{"a":1}',
        big_param: '9007199254740993',
        any_param: true,
      });
      expect(Buffer.isBuffer(rows[0]['bytes'])).toBe(true);
    });

    it('reports rowCount as pg does, as state transitions rely on it', async () => {
      const inserted = await db.query(
        `INSERT INTO conformance (state) VALUES ('queued'), ('queued'), ('done')`,
      );
      expect([inserted.rowCount, inserted.rows]).toEqual([3, []]);
      const moved = await db.query(`UPDATE conformance SET state = 'claimed' WHERE state = $1`, [
        'queued',
      ]);
      expect(moved.rowCount).toBe(2);
      const again = await db.query(
        `UPDATE conformance SET state = 'claimed' WHERE state = $1 RETURNING id`,
        ['queued'],
      );
      expect([again.rowCount, again.rows]).toEqual([0, []]);
      const returning = await db.query<{ id: number }>(
        `UPDATE conformance SET state = 'finished' WHERE state = 'claimed' RETURNING id`,
      );
      expect(returning.rowCount).toBe(2);
      expect(returning.rows).toHaveLength(2);
      expect((await db.query(`SELECT * FROM conformance WHERE state = 'finished'`)).rowCount).toBe(
        2,
      );
      expect((await db.query(`SELECT * FROM conformance WHERE false`)).rowCount).toBe(0);
      expect(
        (await db.query(`DELETE FROM conformance WHERE state IN ('finished', 'done')`)).rowCount,
      ).toBe(3);
      expect((await db.query(`CREATE TEMP TABLE IF NOT EXISTS scratch (x int)`)).rowCount).toBe(0);
    });

    it('runs one statement per query(), several per exec()', async () => {
      await expect(db.query(`SELECT 1; SELECT 2`)).rejects.toThrow();
      await db.exec(
        `INSERT INTO conformance (state) VALUES ('exec-1'); INSERT INTO conformance (state) VALUES ('exec-2')`,
      );
      expect(await states('exec-1', 'exec-2')).toEqual(['exec-1', 'exec-2']);
    });

    it('reports constraint violations with the Postgres error code and constraint name', async () => {
      const error = await db
        .query(`INSERT INTO accounts (username, password_hash) VALUES ('conformance', 'y')`)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).toMatchObject({ code: '23505', constraint: 'accounts_username_key' });
      const check = await db
        .query(
          `INSERT INTO accounts (username, password_hash, balance) VALUES ('negative', 'y', -1)`,
        )
        .catch((e: unknown) => e);
      expect(check).toMatchObject({ code: '23514' });
    });

    it('keeps every account: deleting, renumbering or truncating is refused and changes nothing', async () => {
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO accounts (username, password_hash, balance) VALUES ('kept', 'y', 5) RETURNING id`,
      );
      const id = rows[0].id;
      await db.query(
        `INSERT INTO credit_ledger (account_id, amount, reason) VALUES ($1, 5, 'credit')`,
        [id],
      );
      for (const sql of [
        `DELETE FROM accounts WHERE id = $1`,
        `UPDATE accounts SET id = gen_random_uuid() WHERE id = $1`,
      ]) {
        await expect(db.query(sql, [id])).rejects.toMatchObject({ code: '23001' });
      }
      await expect(db.exec(`TRUNCATE accounts CASCADE`)).rejects.toMatchObject({ code: '23001' });
      const kept = await db.query(
        `SELECT 1 FROM accounts a JOIN credit_ledger l ON l.account_id = a.id WHERE a.id = $1`,
        [id],
      );
      expect(kept.rowCount).toBe(1);
    });

    it('commits a transaction, and rolls back everything when it throws', async () => {
      const value = await db.transaction(async (tx) => {
        await tx.query(`INSERT INTO conformance (state) VALUES ($1)`, ['committed']);
        await tx.exec(
          `INSERT INTO conformance (state) VALUES ('committed-exec'); UPDATE conformance SET note = 'n' WHERE state = 'committed'`,
        );
        return 42;
      });
      expect(value).toBe(42);
      await expect(
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO conformance (state) VALUES ('rolled-back')`);
          await tx.exec(`CREATE TABLE rolled_back_table (x int)`);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      // A failing statement aborts the transaction; it is rolled back and the Db stays usable.
      await expect(
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO conformance (state) VALUES ('rolled-back')`);
          await tx.query(`SELECT * FROM no_such_table`);
        }),
      ).rejects.toThrow(/no_such_table/);
      expect(await states('committed', 'committed-exec', 'rolled-back')).toEqual([
        'committed',
        'committed-exec',
      ]);
      expect((await db.query(`SELECT to_regclass('rolled_back_table') AS t`)).rows).toEqual([
        { t: null },
      ]);
      expect(
        (await db.query(`SELECT note FROM conformance WHERE state = 'committed'`)).rows,
      ).toEqual([{ note: 'n' }]);
      // Still usable for transactions too.
      expect(
        await db.transaction(
          async (tx) => (await tx.query<{ one: number }>(`SELECT 1 AS one`)).rows[0].one,
        ),
      ).toBe(1);
    });

    it('refuses a tx used after its transaction ended', async () => {
      let leaked!: Parameters<Parameters<Db['transaction']>[0]>[0];
      await db.transaction((tx) => {
        leaked = tx;
        return Promise.resolve();
      });
      await expect(
        leaked.query(`INSERT INTO conformance (state) VALUES ('leaked')`),
      ).rejects.toThrow(/finished/);
      await expect(
        leaked.exec(`INSERT INTO conformance (state) VALUES ('leaked')`),
      ).rejects.toThrow(/finished/);
      expect(await states('leaked')).toEqual([]);
    });

    it('keeps a statement from outside out of a transaction in progress', async () => {
      let inserted = false;
      const failing = db.transaction(async (tx) => {
        await tx.query(`INSERT INTO conformance (state) VALUES ('inside')`);
        inserted = true;
        // Still in progress a while after the statement from outside is sent, so that on a single
        // session that statement would run inside it were it not kept out.
        await sleep(50);
        throw new Error('abort');
      });
      await waitFor(() => inserted, 5_000, 'the transaction open, its row written', 1);
      const outside = db.query(`INSERT INTO conformance (state) VALUES ('outside')`);
      await expect(failing).rejects.toThrow('abort');
      expect((await outside).rowCount).toBe(1);
      expect(await states('inside', 'outside')).toEqual(['outside']);
    });

    it('serves many concurrent callers without mixing their transactions', async () => {
      const work = Array.from({ length: 30 }, (_, i) => {
        if (i % 3 === 0) return db.query(`INSERT INTO conformance (state) VALUES ('many-plain')`);
        return db.transaction(async (tx) => {
          await tx.query(`INSERT INTO conformance (state) VALUES ($1)`, [
            i % 3 === 1 ? 'many-committed' : 'many-rolled-back',
          ]);
          await sleep(1);
          if (i % 3 === 2) throw new Error('no');
        });
      });
      const results = await Promise.allSettled(work);
      expect(results.filter((r) => r.status === 'rejected')).toHaveLength(10);
      const { rows } = await db.query<{ state: string; n: string }>(
        `SELECT state, count(*) AS n FROM conformance WHERE state LIKE 'many-%' GROUP BY state ORDER BY state`,
      );
      expect(rows).toEqual([
        { state: 'many-committed', n: '10' },
        { state: 'many-plain', n: '10' },
      ]);
    });

    it('answers ping', async () => {
      expect(await db.ping()).toBe(true);
    });

    it('closes: later calls fail, closing again is harmless', async () => {
      const other = await adapter.open();
      expect((await other.query<{ one: number }>(`SELECT 1 AS one`)).rows).toEqual([{ one: 1 }]);
      await other.close();
      await expect(other.query(`SELECT 1`)).rejects.toThrow();
      expect(await other.ping()).toBe(false);
      await other.close();
    });
  });
}
