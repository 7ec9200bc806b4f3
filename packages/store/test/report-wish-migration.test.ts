import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS_DIR, PgliteDb, migrate } from '@smsgw/kit';
import { insertTestAccount } from '@smsgw/kit/testing';

/** The migration that moved the report wish from params to columns. */
const REPORT_COLUMNS = '034_report_wish_columns.sql';

let db: PgliteDb;
let before: string;
beforeAll(async () => {
  // The migrations before the columns, to write rows as the gateway wrote them then.
  before = mkdtempSync(join(tmpdir(), 'smsgw-migrations-'));
  for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')))
    if (file < REPORT_COLUMNS) symlinkSync(join(MIGRATIONS_DIR, file), join(before, file));
  db = await PgliteDb.open();
  await migrate(db, { dir: before });
});
afterAll(async () => {
  await db.close();
  rmSync(before, { recursive: true, force: true });
});

it('gives the rows that can still report the wish their params held, and no other row', async () => {
  const accountId = await insertTestAccount(db);
  const url = 'http://hooks.example/dlr';
  const messages: [string, string, Record<string, unknown>][] = [
    ['rest level 2', 'queued', { dlr: 'yes', dlr_url: url, dlr_level: 2, dlr_method: 'POST' }],
    ['rest without a method', 'submitted', { dlr: 'yes', dlr_url: url, dlr_level: 1 }],
    [
      'jasmin level 3',
      'submitting',
      { dlr: 'yes', dlr_url: url, dlr_level: 3, dlr_method: 'GET', dlr_style: 'jasmin' },
    ],
    [
      'kannel mask 9',
      'queued',
      {
        dlr: 'yes',
        dlr_url: url,
        dlr_level: 3,
        dlr_method: 'GET',
        dlr_style: 'kannel',
        dlr_mask: 9,
      },
    ],
    ['smpp receipt', 'submitted', { smpp_receipt: 'yes' }],
    ['final', 'delivered', { dlr: 'yes', dlr_url: url, dlr_level: 3 }],
    ['dlr without a URL', 'queued', { dlr: 'yes' }],
  ];
  const ids = new Map<string, string>();
  for (const [name, state, params] of messages) {
    const id = randomUUID();
    ids.set(name, id);
    await db.query(
      `INSERT INTO messages (id, account_id, state, to_addr, coding, segments, cost, params)
       VALUES ($1, $2, $3, '41790000001', 0, 1, 1, $4::jsonb)`,
      [id, accountId, state, JSON.stringify(params)],
    );
  }
  const batchId = randomUUID();
  await db.query(
    `INSERT INTO batches (id, account_id, state, total, cost, segments) VALUES ($1, $2, 'running', 1, 1, 1)`,
    [batchId, accountId],
  );
  await db.query(
    `INSERT INTO batch_entries (batch_id, seq, content, coding, segments, unit_cost, params, recipients, size)
     VALUES ($1, 0, 'hi', 0, 1, 1, $2::jsonb, '{41790000001}', 1)`,
    [batchId, JSON.stringify({ dlr: 'yes', dlr_url: url, dlr_level: 2, dlr_method: 'POST' })],
  );

  expect(await migrate(db)).toContain(REPORT_COLUMNS);

  const { rows } = await db.query<{
    id: string;
    report_mask: number;
    report_url: string | null;
    report_method: string | null;
    report_style: string | null;
  }>('SELECT id, report_mask, report_url, report_method, report_style FROM messages');
  const wish = (name: string) => {
    const row = rows.find((r) => r.id === ids.get(name))!;
    return [row.report_mask, row.report_url, row.report_method, row.report_style];
  };
  expect(wish('rest level 2')).toEqual([3, url, 'POST', 'rest']);
  expect(wish('rest without a method')).toEqual([24, url, 'GET', 'rest']);
  expect(wish('jasmin level 3')).toEqual([27, url, 'GET', 'jasmin']);
  expect(wish('kannel mask 9')).toEqual([9, url, 'GET', 'kannel']);
  expect(wish('smpp receipt')).toEqual([3, null, null, 'smpp']);
  expect(wish('final')).toEqual([0, null, null, null]);
  expect(wish('dlr without a URL')).toEqual([0, null, null, null]);
  const entry = await db.query(
    'SELECT report_mask, report_url, report_method, report_style FROM batch_entries WHERE batch_id = $1',
    [batchId],
  );
  expect(entry.rows).toEqual([
    { report_mask: 3, report_url: url, report_method: 'POST', report_style: 'rest' },
  ]);
});
