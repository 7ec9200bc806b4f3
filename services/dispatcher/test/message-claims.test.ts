import { DEFAULT_CONNECTOR } from '@smsgw/contracts';
import { timeOrderedId } from '@smsgw/kit';
import { DAY_MS, migratedDatabases, useMigratedAccount, utcDayStart } from '@smsgw/kit/testing';
import { addMessagePartition } from '@smsgw/store';
import { MessageClaims } from '../src/message-claims';

describe.each(migratedDatabases())('message claims across partitions on %s', (_name, open) => {
  const suite = useMigratedAccount(open);

  async function states(ids: readonly string[]): Promise<string[]> {
    const { rows } = await suite.db.query<{ state: string }>(
      'SELECT state FROM messages WHERE id = ANY($1::uuid[]) ORDER BY id',
      [ids],
    );
    return rows.map((r) => r.state);
  }

  it("claims and records answers of a group whose messages are in a period's partition and in the default one", async () => {
    const day = utcDayStart();
    await addMessagePartition(suite.db, day, new Date(day.getTime() + DAY_MS));
    const ids = [
      timeOrderedId(),
      timeOrderedId(),
      timeOrderedId(new Date(day.getTime() + 3 * DAY_MS)),
    ];
    for (const id of ids)
      await suite.db.query(
        `INSERT INTO messages (id, account_id, state, to_addr, content, coding, segments, cost) VALUES ($1, $2, 'queued', '41790000001', 'hi', 0, 1, 1)`,
        [id, suite.accountId],
      );
    const claims = new MessageClaims(suite.db, DEFAULT_CONNECTOR);
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
