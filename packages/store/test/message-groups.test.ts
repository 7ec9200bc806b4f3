import { randomUUID } from 'node:crypto';
import { DEFAULT_CONNECTOR } from '@smsgw/contracts';
import { timeOrderedId, type Db } from '@smsgw/kit';
import { insertTestAccount, migratedDatabases } from '@smsgw/kit/testing';
import {
  MessageGroups,
  PartitionLocator,
  addMessagePartition,
  dropMessagePartition,
  type ClaimedMessageRow,
} from '@smsgw/store';

const DAY = 86_400_000;

const today = (): Date => new Date(Math.floor(Date.now() / DAY) * DAY);

describe.each(migratedDatabases())('group statements named by partition on %s', (_name, open) => {
  let db: Db;
  let drop: () => Promise<void>;
  let accountId: string;
  beforeEach(async () => {
    ({ db, drop } = await open());
    accountId = await insertTestAccount(db);
  });
  afterEach(() => drop());

  async function queued(ids: readonly string[]): Promise<void> {
    for (const id of ids)
      await db.query(
        `INSERT INTO messages (id, account_id, state, to_addr, content, coding, segments, cost) VALUES ($1, $2, 'queued', '41790000001', 'hi', 0, 1, 1)`,
        [id, accountId],
      );
  }

  async function states(ids: readonly string[]): Promise<string[]> {
    const { rows } = await db.query<{ state: string }>(
      'SELECT state FROM messages WHERE id = ANY($1::uuid[]) ORDER BY id',
      [ids],
    );
    return rows.map((r) => r.state);
  }

  /** A claim as the dispatcher makes it: placed before the transaction, claimed inside it. */
  async function claim(
    groups: MessageGroups,
    ids: readonly string[],
  ): Promise<ClaimedMessageRow[]> {
    const placed = await groups.place(ids);
    return db.transaction((tx) => groups.claim(tx, placed, DEFAULT_CONNECTOR));
  }

  it("places each id in its period's partition, and an id of no period in none", async () => {
    const day = today();
    await addMessagePartition(db, day, new Date(day.getTime() + DAY));
    const suffix = `p${day.toISOString().slice(0, 10).replace(/-/g, '')}`;
    const locator = new PartitionLocator(db);
    const now = timeOrderedId();
    const tomorrow = timeOrderedId(new Date(day.getTime() + DAY + 1000));
    const random = randomUUID();
    const groups = await locator.group([now, tomorrow, random, now.toUpperCase()], (id) => id);
    expect([...groups.entries()]).toEqual([
      [suffix, [now, now.toUpperCase()]],
      [null, [tomorrow, random]],
    ]);
  });

  it('reads the list again once it is older than its time to live, or when told to', async () => {
    const day = today();
    let clock = 0;
    const locator = new PartitionLocator(db, 60_000, () => clock);
    const id = timeOrderedId();
    expect([...(await locator.group([id], (x) => x)).keys()]).toEqual([null]);
    await addMessagePartition(db, day, new Date(day.getTime() + DAY));
    clock = 59_999;
    expect([...(await locator.group([id], (x) => x)).keys()]).toEqual([null]);
    clock = 60_000;
    expect([...(await locator.group([id], (x) => x)).keys()]).not.toEqual([null]);
    await dropMessagePartition(db, `p${day.toISOString().slice(0, 10).replace(/-/g, '')}`);
    locator.invalidate();
    expect([...(await locator.group([id], (x) => x)).keys()]).toEqual([null]);
  });

  it('claims and records answers through the partition, as through messages', async () => {
    const day = today();
    await addMessagePartition(db, day, new Date(day.getTime() + DAY));
    const inPartition = [timeOrderedId(), timeOrderedId()];
    const inDefault = [timeOrderedId(new Date(day.getTime() + 3 * DAY))];
    const ids = [...inPartition, ...inDefault];
    await queued(ids);
    const groups = new MessageGroups(db);
    expect((await claim(groups, ids)).map((m) => m.id).sort()).toEqual([...ids].sort());
    expect(await states(ids)).toEqual(['submitting', 'submitting', 'submitting']);
    // A second claim of the same ids finds nothing waiting: the update stays conditional.
    expect(await claim(groups, ids)).toEqual([]);
    const moved = await groups.markSubmitted(
      ids.map((id, i) => ({ id, smscIds: [`s${i}`] })),
      DEFAULT_CONNECTOR,
    );
    expect(moved.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(await states(ids)).toEqual(['submitted', 'submitted', 'submitted']);
  });

  it('goes to messages when a partition it named was dropped since it read the list', async () => {
    const day = today();
    const suffix = `p${day.toISOString().slice(0, 10).replace(/-/g, '')}`;
    await addMessagePartition(db, day, new Date(day.getTime() + DAY));
    const locator = new PartitionLocator(db);
    const groups = new MessageGroups(db, locator);
    const gone = [timeOrderedId()];
    await queued(gone);
    await locator.group(gone, (id) => id);
    await dropMessagePartition(db, suffix);
    // An answer is a statement of its own: it runs again on messages (the message went with its
    // partition, so nothing moves).
    expect(
      await groups.markSubmitted([{ id: gone[0], smscIds: ['s1'] }], DEFAULT_CONNECTOR),
    ).toEqual([]);
    // A claim is inside a transaction: it fails, and its job's redelivery uses the new list.
    await addMessagePartition(db, day, new Date(day.getTime() + DAY));
    locator.invalidate();
    expect([...(await locator.group(gone, (id) => id)).keys()]).toEqual([suffix]);
    await dropMessagePartition(db, suffix);
    await expect(claim(groups, gone)).rejects.toMatchObject({ code: '42P01' });
    expect(await claim(groups, gone)).toEqual([]);
  });
});
