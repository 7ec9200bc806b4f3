import { createLogger, timeOrderedId } from '@smsgw/kit';
import { DAY_MS, migratedDatabases, useMigratedAccount } from '@smsgw/kit/testing';
import { Counter, Registry } from 'prom-client';
import { MessageRetention } from '../src/message-retention';

const logger = createLogger('test', 'silent');

describe.each(migratedDatabases())('CDR retention on %s', (_name, open) => {
  const suite = useMigratedAccount(open);

  function retention(retentionDays: number | undefined, cdrRetentionDays: number | undefined) {
    const expired = new Counter({ name: 'expired', help: 'x', registers: [new Registry()] });
    return new MessageRetention(
      suite.db,
      logger,
      { expired },
      {
        retentionDays,
        cdrRetentionDays,
        intervalMs: 3_600_000,
        deleteChunk: 2,
        maxChunksPerRound: 10,
      },
    );
  }

  async function insertDelivered(at: Date): Promise<string> {
    const id = timeOrderedId(at);
    await suite.db.query(
      `INSERT INTO messages (id, account_id, state, to_addr, content, coding, segments, cost, created_at, updated_at)
       VALUES ($1, $2, 'delivered', '41790000001', 'text', 0, 1, 1, $3, $3)`,
      [id, suite.accountId, at],
    );
    return id;
  }

  const cdrIds = async () =>
    (await suite.db.query<{ id: string }>('SELECT id FROM cdrs ORDER BY id')).rows.map((r) => r.id);

  it('archives the CDRs of dropped periods and deletes them past CDR_RETENTION_DAYS, in chunks', async () => {
    const t0 = new Date();
    await retention(2, 10).round(t0);
    const old = [await insertDelivered(t0), await insertDelivered(new Date(t0.getTime() + 1))];
    const t3 = new Date(t0.getTime() + 3 * DAY_MS);
    await retention(2, 10).round(t3);
    const kept = [await insertDelivered(t3), await insertDelivered(new Date(t3.getTime() + 1))];
    await retention(2, 10).round(new Date(t3.getTime() + 3 * DAY_MS));
    expect(await cdrIds()).toEqual([...old, ...kept]);

    // Ten days after the first messages, theirs go; the later ones stay.
    await retention(2, 10).round(new Date(t0.getTime() + 10 * DAY_MS + 60_000));
    expect(await cdrIds()).toEqual(kept);
    // Without CDR_RETENTION_DAYS, CDRs are kept however old.
    await retention(2, undefined).round(new Date(t0.getTime() + 400 * DAY_MS));
    expect(await cdrIds()).toEqual(kept);
  });
});
