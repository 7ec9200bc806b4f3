import { timeIdFloor, timeOrderedId, type Queryable } from '@smsgw/kit';
import { insertTestAccount, migratedDatabases, useMigratedAccount } from '@smsgw/kit/testing';
import { searchMessages, type MessageSearch } from '@smsgw/store';

async function insertMessage(
  db: Queryable,
  accountId: string,
  at: Date,
  state: string,
  to: string,
): Promise<string> {
  const id = timeOrderedId(at);
  await db.query(
    `INSERT INTO messages (id, account_id, state, to_addr, content, coding, segments, cost)
     VALUES ($1, $2, $3, $4, 'hi', 0, 1, 1)`,
    [id, accountId, state, to],
  );
  return id;
}

// The indexes by account and by destination hold only messages past the unsent states (migration
// 037); a search by either reads the unsent ones apart and must find each message exactly once.
describe.each(migratedDatabases())('message search on %s', (_engine, open) => {
  const suite = useMigratedAccount(open);
  const start = new Date(Date.now() - 3_600_000);
  const at = (minutes: number) => new Date(start.getTime() + minutes * 60_000);
  const range = { fromId: timeIdFloor(start), untilId: timeIdFloor(at(60)) };
  const ids = async (q: Partial<MessageSearch>) =>
    (await searchMessages(suite.db, { ...range, limit: 50, ...q })).map((r) => r.id);

  it('finds unsent and sent messages of an account or a destination once each, newest first', async () => {
    const db = suite.db;
    const other = await insertTestAccount(db);
    const queued = await insertMessage(db, suite.accountId, at(1), 'queued', '41790000001');
    const delivered = await insertMessage(db, suite.accountId, at(2), 'delivered', '41790000001');
    const submitting = await insertMessage(db, suite.accountId, at(3), 'submitting', '41790000002');
    const undelivered = await insertMessage(db, suite.accountId, at(4), 'undelivered', '4420000');
    const othersOwn = await insertMessage(db, other, at(5), 'delivered', '41790000001');

    expect(await ids({ accountId: suite.accountId })).toEqual([
      undelivered,
      submitting,
      delivered,
      queued,
    ]);
    expect(await ids({ to: { exact: '41790000001' } })).toEqual([othersOwn, delivered, queued]);
    expect(await ids({ to: { prefix: '4179' }, accountId: suite.accountId })).toEqual([
      submitting,
      delivered,
      queued,
    ]);
    // A page's limit holds across the two reads, and the next page starts below its last id.
    expect(await ids({ accountId: suite.accountId, limit: 2 })).toEqual([undelivered, submitting]);
    expect(await ids({ accountId: suite.accountId, limit: 2, beforeId: submitting })).toEqual([
      delivered,
      queued,
    ]);
    expect(await ids({ accountId: suite.accountId, states: ['queued'] })).toEqual([queued]);
    expect(await ids({ accountId: suite.accountId, states: ['delivered', 'submitting'] })).toEqual([
      submitting,
      delivered,
    ]);
    expect(await ids({ to: { exact: '41790000001' }, states: ['delivered'] })).toEqual([
      othersOwn,
      delivered,
    ]);
  });

  it('finds a message once after it leaves the unsent states', async () => {
    const db = suite.db;
    const id = await insertMessage(db, suite.accountId, at(1), 'queued', '41790000003');
    expect(await ids({ to: { exact: '41790000003' } })).toEqual([id]);
    await db.query(
      `UPDATE messages SET state = 'submitted', smsc_id = 'smsc-1', submitted_at = now() WHERE id = $1`,
      [id],
    );
    expect(await ids({ to: { exact: '41790000003' } })).toEqual([id]);
    expect(await ids({ accountId: suite.accountId, states: ['submitted'] })).toEqual([id]);
    expect(await ids({ accountId: suite.accountId, states: ['queued'] })).toEqual([]);
  });
});
