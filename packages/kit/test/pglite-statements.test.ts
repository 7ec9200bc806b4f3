import { PgliteDb } from '../src';

/** The prepared statements behind PgliteDb (packages/kit/src/db/pglite-statements.ts). */
describe('PGlite prepared statements', () => {
  let db: PgliteDb;
  beforeAll(async () => {
    db = await PgliteDb.open();
    await db.exec(`CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)`);
  });
  afterAll(() => db.close());

  it('keeps answering right past the number of statements it keeps prepared', async () => {
    // 300 texts exceed the 256 kept: the first ones are closed, then prepared again when used.
    for (let i = 0; i < 300; i++) {
      const { rows } = await db.query<{ n: number; echo: string }>(
        `SELECT ${i} AS n, $1::text AS echo`,
        [`text ${i}`],
      );
      expect(rows).toEqual([{ n: i, echo: `text ${i}` }]);
    }
    const { rows } = await db.query<{ n: number; echo: string }>(
      `SELECT 0 AS n, $1::text AS echo`,
      ['again'],
    );
    expect(rows).toEqual([{ n: 0, echo: 'again' }]);
  });

  it('prepares again a statement whose result columns a schema change altered', async () => {
    await db.query(`INSERT INTO notes (id, body) VALUES ($1, $2)`, [1, 'one']);
    const sql = `SELECT * FROM notes WHERE id = $1`;
    expect((await db.query(sql, [1])).rows).toEqual([{ id: 1, body: 'one' }]);
    await db.exec(`ALTER TABLE notes ADD COLUMN tag text NOT NULL DEFAULT 'new'`);
    expect((await db.query(sql, [1])).rows).toEqual([{ id: 1, body: 'one', tag: 'new' }]);
  });

  it('reports errors with their code and stays usable, in and out of a transaction', async () => {
    await expect(db.query(`SELEC 1`)).rejects.toMatchObject({ code: '42601' });
    await expect(
      db.query(`INSERT INTO notes (id, body) VALUES ($1, $2)`, [1, 'duplicate']),
    ).rejects.toMatchObject({ code: '23505' });
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`INSERT INTO notes (id, body) VALUES ($1, $2)`, [2, 'two']);
        await tx.query(`INSERT INTO notes (id, body) VALUES ($1, $2)`, [2, 'again']);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    const { rows, rowCount } = await db.query(
      `UPDATE notes SET body = $1 WHERE id = ANY($2::int[])`,
      ['changed', [1, 2]],
    );
    // The transaction's row was rolled back: only note 1 exists.
    expect({ rows, rowCount }).toEqual({ rows: [], rowCount: 1 });
  });
});
