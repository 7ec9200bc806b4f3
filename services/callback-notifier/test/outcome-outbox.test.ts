import { randomUUID } from 'node:crypto';
import { TOPICS } from '@smsgw/contracts';
import { createLogger, type Db } from '@smsgw/kit';
import { openMigratedPglite } from '@smsgw/kit/testing';
import { OutcomeOutbox } from '../src/outcome-outbox';

let db: Db;
beforeEach(async () => {
  db = await openMigratedPglite();
});
afterEach(async () => {
  await db.close();
});

describe('OutcomeOutbox sweep', () => {
  it('leases a stale row with lease_until, keeps created_at, and leaves a leased row alone', async () => {
    const messageId = randomUUID();
    const payload = {
      messageId,
      smscId: 's1',
      status: 'DELIVRD',
      err: null,
      connector: 'smsc',
      sub: '001',
      dlvrd: '001',
      submitDate: '2601010000',
      doneDate: '2601010001',
      text: '',
      at: new Date().toISOString(),
    };
    await db.query(
      `INSERT INTO outcome_outbox (message_id, topic, payload, created_at)
       VALUES ($1, $2, $3::jsonb, now() - interval '1 minute')`,
      [messageId, TOPICS.messageDlr, JSON.stringify(payload)],
    );
    const row = async () =>
      (
        await db.query<{ created_at: Date; lease_until: Date | null }>(
          'SELECT created_at, lease_until FROM outcome_outbox WHERE message_id = $1',
          [messageId],
        )
      ).rows[0];
    const before = await row();
    let handled = 0;
    const failing = () => {
      handled++;
      return Promise.reject(new Error('callback rows could not be written'));
    };
    const outbox = new OutcomeOutbox(
      db,
      { result: failing, dlr: failing },
      createLogger('test', 'silent'),
      { staleMs: 30_000, pollIntervalMs: 60_000 },
    );

    await expect(outbox.sweep()).rejects.toThrow('callback rows could not be written');
    const after = await row();
    expect(after.created_at).toEqual(before.created_at);
    expect(after.lease_until!.getTime()).toBeGreaterThan(before.created_at.getTime() + 60_000);

    await outbox.sweep();
    expect(handled).toBe(1);
  });
});
