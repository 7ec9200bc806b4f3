import { DEFAULT_CONNECTOR } from '@smsgw/contracts';
import { randomUUID } from 'node:crypto';
import { MemoryBus, createLogger, createRegistry, type Db } from '@smsgw/kit';
import { insertTestAccount, openMigratedPglite } from '@smsgw/kit/testing';
import { cancelBatch, lockBatch } from '@smsgw/store';
import { SmppConnector, SmppSimulator, parseSmscUrl, type SmppSimulatorOptions } from '@smsgw/smsc';
import { MessageClaims } from '../src/message-claims';
import { MessageDispatcher, RetryLater } from '../src/message-dispatcher';
import { createDispatcherMetrics } from '../src/metrics';

const logger = createLogger('test', 'silent');
const MAX_ATTEMPTS = 3;

let db: Db;
let sim: SmppSimulator;
let connector: SmppConnector;
let accountId: string;

async function start(simOptions: SmppSimulatorOptions, urlQuery = ''): Promise<void> {
  sim = new SmppSimulator({ deliveryReceipts: false, ...simOptions });
  const { port } = await sim.start();
  connector = new SmppConnector(
    { ...parseSmscUrl(`smpp://sys:pw@127.0.0.1:${port}?window=4${urlQuery}`), name: 'test' },
    logger,
  );
  await connector.start();
}

beforeEach(async () => {
  db = await openMigratedPglite();
  accountId = await insertTestAccount(db);
  await db.query(`UPDATE accounts SET balance = 100 WHERE id = $1`, [accountId]);
});

afterEach(async () => {
  await connector.stop();
  await sim.stop();
  await db.close();
});

async function queuedMessage(
  options: { segments?: number; content?: string; batchId?: string } = {},
): Promise<string> {
  const id = randomUUID();
  const segments = options.segments ?? 1;
  await db.query(
    `INSERT INTO messages (id, account_id, batch_id, state, to_addr, content, coding, segments, cost)
     VALUES ($1, $2, $3, 'queued', '41790000001', $4, 0, $5, $6)`,
    [id, accountId, options.batchId ?? null, options.content ?? 'hello', segments, segments],
  );
  await db.query(
    `UPDATE accounts SET balance = balance - $2 WHERE id = $1`, // charged, as acceptance does
    [accountId, segments],
  );
  return id;
}

function dispatcherOf(): MessageDispatcher {
  return new MessageDispatcher(
    new MessageClaims(db, DEFAULT_CONNECTOR),
    connector,
    new MemoryBus(),
    logger,
    createDispatcherMetrics(createRegistry('dispatcher'), () => []),
    { maxAttempts: MAX_ATTEMPTS, submitStaleMs: 60_000 },
  );
}

/** Delivers the job as the bus would, again after each RetryLater; bounded. */
async function deliverUntilSettled(
  dispatcher: MessageDispatcher,
  messageId: string,
  segments = 1,
): Promise<number> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS + 2; attempt++) {
    try {
      await dispatcher.handle(
        { messageId, accountId, segments },
        { attempt, redelivered: attempt > 1 },
      );
      return attempt;
    } catch (err) {
      if (!(err instanceof RetryLater)) throw err;
    }
  }
  throw new Error('still retrying after every delivery the bus would make');
}

async function messageRow(id: string) {
  const { rows } = await db.query<{ state: string; error: string | null; attempts: number }>(
    `SELECT state, error, attempts FROM messages WHERE id = $1`,
    [id],
  );
  return rows[0];
}

async function refunds(id: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM credit_ledger WHERE message_id = $1 AND reason = 'refund'`,
    [id],
  );
  return rows[0].n;
}

/** The SMSC got it once, and it ended failed with the unknown outcome, not refunded. */
async function expectSentOnceOutcomeUnknown(id: string): Promise<void> {
  expect(sim.received).toHaveLength(1);
  const row = await messageRow(id);
  expect(row.state).toBe('failed');
  expect(row.error).toBe('SUBMIT_OUTCOME_UNKNOWN');
  expect(await refunds(id)).toBe(0);
}

describe('a submit_sm written and never answered', () => {
  it('is recorded with an unknown outcome: sent once, never again, not refunded', async () => {
    await start({ latencyMs: 1500 }, '&response_timeout_ms=1000');
    const id = await queuedMessage();
    const dispatcher = dispatcherOf();

    await deliverUntilSettled(dispatcher, id);
    // The bus delivering the job once more (a redelivery) changes nothing either.
    await dispatcher.handle(
      { messageId: id, accountId, segments: 1 },
      { attempt: 2, redelivered: true },
    );

    await expectSentOnceOutcomeUnknown(id);
  }, 90_000);

  it('is recorded with an unknown outcome when the session is lost before the answer', async () => {
    await start({ latencyMs: 60_000 });
    const id = await queuedMessage();
    const dispatcher = dispatcherOf();

    const settled = deliverUntilSettled(dispatcher, id);
    await sim.waitFor(1);
    sim.dropSessions();
    await settled;

    await expectSentOnceOutcomeUnknown(id);
  }, 90_000);

  it('with on_no_answer=resend is sent again up to the attempt limit, then given up unrefunded', async () => {
    await start({ latencyMs: 1500 }, '&response_timeout_ms=1000&on_no_answer=resend');
    const id = await queuedMessage();

    const deliveries = await deliverUntilSettled(dispatcherOf(), id);

    expect(deliveries).toBe(MAX_ATTEMPTS);
    expect(sim.received).toHaveLength(MAX_ATTEMPTS);
    const row = await messageRow(id);
    expect(row.state).toBe('failed');
    expect(row.error).toBe(`TIMEOUT after ${MAX_ATTEMPTS} attempts`);
    // The SMSC may have taken any of the three: no refund.
    expect(await refunds(id)).toBe(0);
  }, 90_000);
});

describe('a long message with one part refused', () => {
  it('sends only the refused part again; the accepted part keeps its SMSC id', async () => {
    // Draws: part 1 passes, part 2 is throttled; on the next attempt part 2 passes.
    const draws = [0.9, 0.1, 0.9, 0.9, 0.9];
    await start({ throttleRate: 0.5, random: () => draws.shift() ?? 0.9 });
    const id = await queuedMessage({ segments: 2, content: 'a'.repeat(200) });

    expect(await deliverUntilSettled(dispatcherOf(), id, 2)).toBe(2);

    // Each part reached the SMSC once, and they join into one message (same reference).
    expect(sim.received).toHaveLength(2);
    const joined = sim.messages();
    expect(joined).toHaveLength(1);
    expect(joined[0].text).toBe('a'.repeat(200));
    expect((await messageRow(id)).state).toBe('submitted');
    const { rows } = await db.query<{ seq: number; smsc_id: string }>(
      `SELECT seq, smsc_id FROM message_parts WHERE message_id = $1 ORDER BY seq`,
      [id],
    );
    expect(rows.map((r) => r.smsc_id)).toEqual(joined[0].smscIds);
  }, 90_000);
});

describe('a message of a batch cancelled while it was being submitted', () => {
  it('is cancelled and refunded on a temporary error, not queued again', async () => {
    await start({ throttleRate: 1 });
    const batchId = randomUUID();
    await db.query(
      `INSERT INTO batches (id, account_id, state, total, cost, segments) VALUES ($1, $2, 'running', 1, 1, 1)`,
      [batchId, accountId],
    );
    const id = await queuedMessage({ batchId });
    // The cancel comes while the message is `submitting` (its claim committed once the submit_sm
    // left): the cancel passes it over.
    const submitAll = connector.submitAll.bind(connector);
    jest.spyOn(connector, 'submitAll').mockImplementation((requests) =>
      submitAll(requests).map((submission) => {
        const cancelled = submission.finally(() =>
          db.transaction(async (tx) => {
            await lockBatch(tx, accountId, batchId);
            await cancelBatch(tx, batchId);
          }),
        );
        return Object.assign(cancelled, { written: submission.written });
      }),
    );

    await deliverUntilSettled(dispatcherOf(), id);

    const row = await messageRow(id);
    expect(row.state).toBe('cancelled');
    expect(await refunds(id)).toBe(1);
    const { rows } = await db.query<{ balance: string }>(
      `SELECT balance::text AS balance FROM accounts WHERE id = $1`,
      [accountId],
    );
    expect(Number(rows[0].balance)).toBe(100);
  }, 90_000);
});

/**
 * The database ends the claim's session after the submit_sm left (a restart): the claim is rolled
 * back, so the message is `queued` again while the SMSC has it.
 */
class ClaimsLostOnCommit extends MessageClaims {
  override async begin(ids: readonly string[]) {
    const claim = await super.begin(ids);
    await claim.commit();
    // What the lost transaction leaves: the messages waiting again, as before the claim.
    await db.query(
      `UPDATE messages SET state = 'queued', attempts = attempts - 1 WHERE id = ANY($1::uuid[])`,
      [claim.messages.map((m) => m.id)],
    );
    return {
      messages: claim.messages,
      commit: () => Promise.reject(new Error('Connection terminated unexpectedly')),
    };
  }
}

describe('a claim the database lost after its submit_sm left', () => {
  it('is claimed again, so the next delivery of the job does not send it twice', async () => {
    await start({ latencyMs: 0 });
    const id = await queuedMessage();
    const dispatcher = new MessageDispatcher(
      new ClaimsLostOnCommit(db, DEFAULT_CONNECTOR),
      connector,
      new MemoryBus(),
      logger,
      createDispatcherMetrics(createRegistry('dispatcher'), () => []),
      { maxAttempts: MAX_ATTEMPTS, submitStaleMs: 60_000 },
    );
    // The bus delivers a job again after any failure; bounded.
    for (let attempt = 1; attempt <= 3; attempt++) {
      await dispatcher
        .handle({ messageId: id, accountId, segments: 1 }, { attempt, redelivered: attempt > 1 })
        .catch(() => undefined);
    }

    expect(sim.received).toHaveLength(1);
    expect(await messageRow(id)).toMatchObject({ state: 'submitted', error: null });
    expect(await refunds(id)).toBe(0);
  });
});
