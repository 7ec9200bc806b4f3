import { randomUUID } from 'node:crypto';
import { DEFAULT_CONNECTOR, QUEUES, TOPICS, type MessageDlrEvent } from '@smsgw/contracts';
import { MemoryBus, createLogger, createRegistry, type Db } from '@smsgw/kit';
import { insertTestAccount, openMigratedPglite, waitFor } from '@smsgw/kit/testing';
import type { DeliveryReceipt } from '@smsgw/smsc';
import { MessageClaims } from '../src/message-claims';
import { ReceiptMatcher } from '../src/receipt-matcher';
import { createDispatcherMetrics } from '../src/metrics';

let db: Db;
let bus: MemoryBus;
let claims: MessageClaims;
let matcher: ReceiptMatcher;
const dlrs: MessageDlrEvent[] = [];
let accountId: string;

const receipt = (smscId: string, stat = 'DELIVRD'): DeliveryReceipt => ({
  smscId,
  state: stat === 'DELIVRD' ? 'delivered' : 'undelivered',
  stat,
  err: stat === 'DELIVRD' ? '000' : '001',
  sub: '001',
  dlvrd: '001',
  submitDate: '2611230000',
  doneDate: '2611230001',
  text: 'hi',
});

async function submittedMessage(parts: string[], dlr = true): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO messages (id, account_id, state, to_addr, coding, segments, cost, report_mask, report_url, report_method, report_style)
     VALUES ($1, $2, 'submitting', '41790000001', 0, $3, 1, $4, $5, $6, $7)`,
    // The wish of Jasmin's dlr-level 2: the handset receipt.
    dlr
      ? [id, accountId, parts.length, 3, 'http://example.test/dlr', 'POST', 'rest']
      : [id, accountId, parts.length, 0, null, null, null],
  );
  return id;
}
const stateOf = async (id: string) =>
  (await db.query<{ state: string }>('SELECT state FROM messages WHERE id = $1', [id])).rows[0]
    .state;

beforeAll(async () => {
  db = await openMigratedPglite();
  accountId = await insertTestAccount(db);
  bus = new MemoryBus();
  // The reports of one recorded group travel as one event.
  await bus.consume(
    { queue: QUEUES.notifierDlrGroup, topic: TOPICS.messageDlrGroup },
    (e) => void dlrs.push(...e.reports),
  );
  claims = new MessageClaims(db, DEFAULT_CONNECTOR);
  const metrics = createDispatcherMetrics(createRegistry('test'), () => []);
  matcher = new ReceiptMatcher(claims, bus, createLogger('test', 'silent'), metrics, {
    connector: DEFAULT_CONNECTOR,
    holdMs: 2000,
    retryEveryMs: 20,
    lingerMs: 5,
  });
});
afterAll(async () => {
  matcher.stop();
  await bus.close();
  await db.close();
});

describe('ReceiptMatcher', () => {
  it('holds a receipt that arrives before submit_sm_resp is recorded, then matches it', async () => {
    const id = await submittedMessage(['1001']);
    let answered = false;
    const answer = matcher.receive(receipt('1001')).then(() => (answered = true));
    // Tried, no submitted message found: held.
    await waitFor(() => matcher.holds('1001'), 5_000, 'the receipt held');
    expect(await stateOf(id)).toBe('submitting');
    // The SMSC's deliver_sm stays unanswered while the receipt is only held in memory.
    expect(answered).toBe(false);
    expect((await claims.markSubmitted([{ id, smscIds: ['1001'] }])).has(id)).toBe(true);
    await answer;
    expect(await stateOf(id)).toBe('delivered');
    await waitFor(async () => (await stateOf(id)) === 'delivered');
    expect(await stateOf(id)).toBe('delivered');
    await waitFor(() => dlrs.some((d) => d.messageId === id));
    expect(dlrs.filter((d) => d.messageId === id)).toEqual([
      expect.objectContaining({ status: 'DELIVRD', smscId: '1001', connector: DEFAULT_CONNECTOR }),
    ]);
  });

  it('a long message is delivered only when every part is, and reports once', async () => {
    const id = await submittedMessage(['2001', '2002', '2003']);
    await claims.markSubmitted([{ id, smscIds: ['2001', '2002', '2003'] }]);
    // Both recorded (receive resolves once its receipt is).
    await Promise.all([matcher.receive(receipt('2001')), matcher.receive(receipt('2003'))]);
    expect(await stateOf(id)).toBe('submitted');
    void matcher.receive(receipt('2002'));
    await waitFor(async () => (await stateOf(id)) === 'delivered');
    await waitFor(() => dlrs.some((d) => d.messageId === id));
    expect(dlrs.filter((d) => d.messageId === id)).toHaveLength(1);
  });

  it("one undelivered part makes the message undelivered, reported with that part's stat", async () => {
    const id = await submittedMessage(['3001', '3002']);
    await claims.markSubmitted([{ id, smscIds: ['3001', '3002'] }]);
    void matcher.receive(receipt('3001'));
    void matcher.receive(receipt('3002', 'UNDELIV'));
    await waitFor(async () => (await stateOf(id)) === 'undelivered');
    await waitFor(() => dlrs.some((d) => d.messageId === id));
    expect(dlrs.find((d) => d.messageId === id)).toMatchObject({ status: 'UNDELIV' });
  });

  it('a duplicate receipt changes nothing and reports nothing more', async () => {
    const id = await submittedMessage(['4001']);
    await claims.markSubmitted([{ id, smscIds: ['4001'] }]);
    void matcher.receive(receipt('4001'));
    await waitFor(async () => (await stateOf(id)) === 'delivered');
    // Held until holdMs, past the end of the suite, when the database is closed: refused then.
    matcher.receive(receipt('4001', 'UNDELIV')).catch(() => undefined);
    // Tried and matched nothing: the message took its final state with the first one.
    await waitFor(() => matcher.holds('4001'), 5_000, 'the duplicate held');
    expect(await stateOf(id)).toBe('delivered');
    expect(dlrs.filter((d) => d.messageId === id)).toHaveLength(1);
  });

  it('receipts arriving together are recorded as one group: each message completes once', async () => {
    const single = await submittedMessage(['5001']);
    const long = await submittedMessage(['5002', '5003']);
    const failing = await submittedMessage(['5004']);
    await claims.markSubmitted([
      { id: single, smscIds: ['5001'] },
      { id: long, smscIds: ['5002', '5003'] },
      { id: failing, smscIds: ['5004'] },
    ]);
    for (const r of [
      receipt('5001'),
      receipt('5002'),
      receipt('5003'),
      receipt('5004', 'UNDELIV'),
      receipt('5001'),
    ])
      void matcher.receive(r);
    await waitFor(
      async () =>
        (await stateOf(single)) === 'delivered' &&
        (await stateOf(long)) === 'delivered' &&
        (await stateOf(failing)) === 'undelivered',
    );
    expect([await stateOf(single), await stateOf(long), await stateOf(failing)]).toEqual([
      'delivered',
      'delivered',
      'undelivered',
    ]);
    await waitFor(() =>
      [single, long, failing].every((id) => dlrs.some((d) => d.messageId === id)),
    );
    for (const id of [single, long, failing])
      expect(dlrs.filter((d) => d.messageId === id)).toHaveLength(1);
    expect(dlrs.find((d) => d.messageId === failing)).toMatchObject({ status: 'UNDELIV' });
    const { rows } = await db.query<{ error: string | null }>(
      'SELECT error FROM messages WHERE id = $1',
      [failing],
    );
    expect(rows[0].error).toBe('UNDELIV err:001');
  });

  it('a receipt that cannot be recorded is refused, so the SMSC delivers it again', async () => {
    const broken = new ReceiptMatcher(
      {
        recordReceipts: async () => Promise.reject(new Error('connection terminated')),
      } as unknown as MessageClaims,
      bus,
      createLogger('test', 'silent'),
      createDispatcherMetrics(createRegistry('test2'), () => []),
      { connector: DEFAULT_CONNECTOR, holdMs: 2000, retryEveryMs: 20, lingerMs: 5 },
    );
    await expect(broken.receive(receipt('6001'))).rejects.toThrow(
      'could not record the receipt of 6001',
    );
    broken.stop();
  });
});
