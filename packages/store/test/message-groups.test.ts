import { randomUUID } from 'node:crypto';
import { DEFAULT_CONNECTOR } from '@smsgw/contracts';
import { timeOrderedId } from '@smsgw/kit';
import { DAY_MS, migratedDatabases, useMigratedAccount, utcDayStart } from '@smsgw/kit/testing';
import {
  MessageGroups,
  PartitionLocator,
  addMessagePartition,
  dropMessagePartition,
  type ClaimedMessageRow,
} from '@smsgw/store';

describe.each(migratedDatabases())('group statements named by partition on %s', (_name, open) => {
  const suite = useMigratedAccount(open);

  async function queued(ids: readonly string[]): Promise<void> {
    for (const id of ids)
      await suite.db.query(
        `INSERT INTO messages (id, account_id, state, to_addr, content, coding, segments, cost) VALUES ($1, $2, 'queued', '41790000001', 'hi', 0, 1, 1)`,
        [id, suite.accountId],
      );
  }

  async function states(ids: readonly string[]): Promise<string[]> {
    const { rows } = await suite.db.query<{ state: string }>(
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
    return suite.db.transaction((tx) => groups.claim(tx, placed, DEFAULT_CONNECTOR));
  }

  it("places each id in its period's partition, and an id of no period in none", async () => {
    const day = utcDayStart();
    await addMessagePartition(suite.db, day, new Date(day.getTime() + DAY_MS));
    const suffix = `p${day.toISOString().slice(0, 10).replace(/-/g, '')}`;
    const locator = new PartitionLocator(suite.db);
    const now = timeOrderedId();
    const tomorrow = timeOrderedId(new Date(day.getTime() + DAY_MS + 1000));
    const random = randomUUID();
    const groups = await locator.group([now, tomorrow, random, now.toUpperCase()], (id) => id);
    expect([...groups.entries()]).toEqual([
      [suffix, [now, now.toUpperCase()]],
      [null, [tomorrow, random]],
    ]);
  });

  it('reads the list again once it is older than its time to live, or when told to', async () => {
    const day = utcDayStart();
    let clock = 0;
    const locator = new PartitionLocator(suite.db, 60_000, () => clock);
    const id = timeOrderedId();
    expect([...(await locator.group([id], (x) => x)).keys()]).toEqual([null]);
    await addMessagePartition(suite.db, day, new Date(day.getTime() + DAY_MS));
    clock = 59_999;
    expect([...(await locator.group([id], (x) => x)).keys()]).toEqual([null]);
    clock = 60_000;
    expect([...(await locator.group([id], (x) => x)).keys()]).not.toEqual([null]);
    await dropMessagePartition(suite.db, `p${day.toISOString().slice(0, 10).replace(/-/g, '')}`);
    locator.invalidate();
    expect([...(await locator.group([id], (x) => x)).keys()]).toEqual([null]);
  });

  it('claims and records answers through the partition, as through messages', async () => {
    const day = utcDayStart();
    await addMessagePartition(suite.db, day, new Date(day.getTime() + DAY_MS));
    const inPartition = [timeOrderedId(), timeOrderedId()];
    const inDefault = [timeOrderedId(new Date(day.getTime() + 3 * DAY_MS))];
    const ids = [...inPartition, ...inDefault];
    await queued(ids);
    const groups = new MessageGroups(suite.db);
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
    const day = utcDayStart();
    const suffix = `p${day.toISOString().slice(0, 10).replace(/-/g, '')}`;
    await addMessagePartition(suite.db, day, new Date(day.getTime() + DAY_MS));
    const locator = new PartitionLocator(suite.db);
    const groups = new MessageGroups(suite.db, locator);
    const gone = [timeOrderedId()];
    await queued(gone);
    await locator.group(gone, (id) => id);
    await dropMessagePartition(suite.db, suffix);
    // An answer is a statement of its own: it runs again on messages (the message went with its
    // partition, so nothing moves).
    expect(
      await groups.markSubmitted([{ id: gone[0], smscIds: ['s1'] }], DEFAULT_CONNECTOR),
    ).toEqual([]);
    // A claim is inside a transaction: it fails, and its job's redelivery uses the new list.
    await addMessagePartition(suite.db, day, new Date(day.getTime() + DAY_MS));
    locator.invalidate();
    expect([...(await locator.group(gone, (id) => id)).keys()]).toEqual([suffix]);
    await dropMessagePartition(suite.db, suffix);
    await expect(claim(groups, gone)).rejects.toMatchObject({ code: '42P01' });
    expect(await claim(groups, gone)).toEqual([]);
  });
});
