import { DEFAULT_CONNECTOR } from '@smsgw/contracts';
import { timeOrderedId, type Db } from '@smsgw/kit';
import { insertTestAccount, migratedDatabases } from '@smsgw/kit/testing';
import { addMessagePartition } from '@smsgw/store';
import { MessageClaims } from '../src/message-claims';

const DAY = 86_400_000;

const today = (): Date => new Date(Math.floor(Date.now() / DAY) * DAY);

describe.each(migratedDatabases())('message claims across partitions on %s', (_name, open) => {
  let db: Db;
  let drop: () => Promise<void>;
  let accountId: string;
  beforeEach(async () => {
    ({ db, drop } = await open());
    accountId = await insertTestAccount(db);
  });
  afterEach(() => drop());

  async function states(ids: readonly string[]): Promise<string[]> {
    const { rows } = await db.query<{ state: string }>(
      'SELECT state FROM messages WHERE id = ANY($1::uuid[]) ORDER BY id',
      [ids],
    );
    return rows.map((r) => r.state);
  }

  it("claims and records answers of a group whose messages are in a period's partition and in the default one", async () => {
    const day = today();
    await addMessagePartition(db, day, new Date(day.getTime() + DAY));
    const ids = [
      timeOrderedId(),
      timeOrderedId(),
      timeOrderedId(new Date(day.getTime() + 3 * DAY)),
    ];
    for (const id of ids)
      await db.query(
        `INSERT INTO messages (id, account_id, state, to_addr, content, coding, segments, cost) VALUES ($1, $2, 'queued', '41790000001', 'hi', 0, 1, 1)`,
        [id, accountId],
      );
    const claims = new MessageClaims(db, DEFAULT_CONNECTOR);
    const claim = await claims.begin(ids);
    expect(claim.messages.map((m) => m.id).sort()).toEqual([...ids].sort());
    await claim.commit();
    expect(await states(ids)).toEqual(['submitting', 'submitting', 'submitting']);
    const again = await claims.begin(ids);
    expect(again.messages).toEqual([]);
    await again.commit();
    const moved = await claims.markSubmitted(ids.map((id, i) => ({ id, smscIds: [`s${i}`] })));
    expect([...moved.keys()].sort()).toEqual([...ids].sort());
    expect(await states(ids)).toEqual(['submitted', 'submitted', 'submitted']);
  });
});
