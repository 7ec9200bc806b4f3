import { DEFAULT_CONNECTOR, decideReportWish } from '@smsgw/contracts';
import { randomUUID } from 'node:crypto';
import { createNotifierService } from '@smsgw/callback-notifier';
import { MessageClaims } from '@smsgw/dispatcher';
import { MemoryBus, createLogger, createRegistry, envVars, type Db } from '@smsgw/kit';
import { insertTestAccount, openMigratedPglite, waitFor } from '@smsgw/kit/testing';
import { CallbackReceiver } from '../support/receiver';

/**
 * Promise 4 when the bus loses an event: the dispatcher records outcomes (and their events, in the
 * outbox) but never publishes; the notifier must still make each callback exactly once.
 */
describe('outcome events lost between the commit and the publish', () => {
  let db: Db;
  let bus: MemoryBus;
  let receiver: CallbackReceiver;
  let notifier: { start(): Promise<void>; stop(): Promise<void> };
  let claims: MessageClaims;
  let accountId: string;

  beforeAll(async () => {
    db = await openMigratedPglite();
    bus = new MemoryBus();
    receiver = new CallbackReceiver();
    await receiver.start();
    accountId = await insertTestAccount(db);
    claims = new MessageClaims(db, DEFAULT_CONNECTOR);
    notifier = createNotifierService({
      db,
      bus,
      logger: createLogger('test', 'silent'),
      registry: createRegistry('test'),
      allowedHosts: ['127.0.0.1'],
      maxAttempts: 3,
      retryBaseMs: 50,
      timeoutMs: 2000,
      hostConcurrency: 4,
      pollIntervalMs: 50,
      outboxStaleMs: 200,
      // The keywords the notifier's config defaults to (OPTOUT_KEYWORDS, OPTIN_KEYWORDS).
      optOutKeywords: {
        optOut: envVars.OPTOUT_KEYWORDS.parse(undefined),
        optIn: envVars.OPTIN_KEYWORDS.parse(undefined),
      },
    });
    await notifier.start();
  });
  afterAll(async () => {
    await notifier.stop();
    await receiver.stop();
    await bus.close();
    await db.close();
  });

  async function batch(): Promise<string> {
    const id = randomUUID();
    await db.query(
      `INSERT INTO batches (id, account_id, state, callback_url, errback_url, total, cost, segments)
       VALUES ($1, $2, 'running', $3, $4, 3, 0, 3)`,
      [id, accountId, `${receiver.base}/ok?tag=cb`, `${receiver.base}/err`],
    );
    return id;
  }

  /** A message being submitted, with the report wish acceptance stored for it (none by default). */
  async function submitting(
    batchId: string | null,
    to: string,
    report: { mask: number; url: string; method: 'GET' | 'POST' } | null = null,
  ): Promise<string> {
    const id = randomUUID();
    await db.query(
      `INSERT INTO messages (id, account_id, batch_id, state, to_addr, coding, segments, cost,
                             report_mask, report_url, report_method, report_style)
       VALUES ($1, $2, $3, 'submitting', $4, 0, 1, 0, $5, $6, $7, $8)`,
      [
        id,
        accountId,
        batchId,
        to,
        report?.mask ?? 0,
        report?.url ?? null,
        report?.method ?? null,
        report && 'rest',
      ],
    );
    return id;
  }

  it('sends the callback, the errback and the delivery report of events never published, once each', async () => {
    const batchId = await batch();
    const ok = await submitting(batchId, '41790000001');
    const unknown = await submitting(batchId, '41790000002');
    // Jasmin's dlr-level 3: both levels.
    const dlr = await submitting(null, '41790000003', {
      mask: decideReportWish({ dlr: 'yes', dlr_url: 'http://x', dlr_level: 3 })!.mask,
      url: `${receiver.base}/dlr`,
      method: 'GET',
    });

    const moved = await claims.markSubmitted([
      { id: ok, smscIds: ['7001'] },
      { id: dlr, smscIds: ['7003'] },
    ]);
    expect(moved.get(ok)).toMatchObject({
      messageId: ok,
      outcome: 'submitted',
      batchId,
      to: '41790000001',
      connector: DEFAULT_CONNECTOR,
    });
    expect((await claims.fail(unknown, 'SUBMIT_OUTCOME_UNKNOWN', false)).event).toMatchObject({
      outcome: 'failed',
      error: 'SUBMIT_OUTCOME_UNKNOWN',
    });
    const [match] = await claims.recordReceipts([
      {
        smscId: '7003',
        state: 'delivered',
        stat: 'DELIVRD',
        err: '000',
        sub: '001',
        dlvrd: '001',
        submitDate: '2611231200',
        doneDate: '2611231201',
        text: 'hi',
      },
    ]);
    expect(match?.report).toMatchObject({ messageId: dlr, status: 'DELIVRD' });

    await waitFor(
      () =>
        receiver.on('/ok').length >= 1 &&
        receiver.on('/err').length >= 1 &&
        receiver.on('/dlr').length >= 2,
      15_000,
      'the callback, the errback and both reports',
    );
    // Handled: the outbox rows are gone and every request is answered, so no sweep and no retry
    // has anything left to send.
    await waitFor(
      async () => {
        const { rows } = await db.query<{ left: string }>(
          `SELECT (SELECT count(*) FROM outcome_outbox)
                + (SELECT count(*) FROM callback_attempts WHERE state = 'pending') AS left`,
        );
        return Number(rows[0].left) === 0 ? true : undefined;
      },
      15_000,
      'the outbox and the callbacks done',
    );

    expect(receiver.on('/ok').map((c) => c.query)).toEqual([
      { tag: 'cb', batchId, to: '41790000001', status: '1', statusText: `Success "${ok}"` },
    ]);
    expect(receiver.on('/err').map((c) => c.query)).toEqual([
      { batchId, to: '41790000002', status: '0', statusText: 'SUBMIT_OUTCOME_UNKNOWN' },
    ]);
    expect(
      receiver
        .on('/dlr')
        .map((c) => c.query['level'])
        .sort(),
    ).toEqual(['1', '2']);
    expect(receiver.on('/dlr').find((c) => c.query['level'] === '2')?.query).toMatchObject({
      id: dlr,
      id_smsc: '7003',
      message_status: 'DELIVRD',
    });
    const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM outcome_outbox');
    expect(rows[0].n).toBe('0');
  });
});
