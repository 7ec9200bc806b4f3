import { DEFAULT_CONNECTOR } from '@smsgw/contracts';
import { randomUUID } from 'node:crypto';
import { Socket } from 'node:net';
import { MemoryBus, createLogger, createRegistry, type Db } from '@smsgw/kit';
import { insertTestAccount, openMigratedPglite } from '@smsgw/kit/testing';
import { SmppConnector, SmppSimulator, parseSmscUrl } from '@smsgw/smsc';
import { MessageClaims } from '../src/message-claims';
import { MessageDispatcher } from '../src/message-dispatcher';
import { createDispatcherMetrics } from '../src/metrics';

const logger = createLogger('test', 'silent');
const WINDOW = 4;

let db: Db;
let sim: SmppSimulator;
let connector: SmppConnector;

beforeEach(async () => {
  db = await openMigratedPglite();
  // Slow answers: everything claimed before the first answer shows in what the claims saw.
  sim = new SmppSimulator({
    systemId: 'sys',
    password: 'pw',
    latencyMs: 1000,
    deliveryReceipts: false,
  });
  const { port } = await sim.start();
  connector = new SmppConnector(
    { ...parseSmscUrl(`smpp://sys:pw@127.0.0.1:${port}?window=${WINDOW}`), name: 'test' },
    logger,
  );
  await connector.start();
});

afterEach(async () => {
  await connector.stop();
  await sim.stop();
  await db.close();
});

async function queued(accountId: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  for (const [i, id] of ids.entries()) {
    await db.query(
      `INSERT INTO messages (id, account_id, state, to_addr, content, coding, segments, cost) VALUES ($1, $2, 'queued', $3, 'hello', 0, 1, 1)`,
      [id, accountId, `4179000${String(i).padStart(4, '0')}`],
    );
  }
  return ids;
}

describe('MessageDispatcher', () => {
  it('claims the next group while the window is full, and never has more than a window at the SMSC', async () => {
    const accountId = await insertTestAccount(db);
    const ids = await queued(accountId, 12);
    const claims = new MessageClaims(db, DEFAULT_CONNECTOR);
    let answered = 0;
    const submitAll = connector.submitAll.bind(connector);
    jest.spyOn(connector, 'submitAll').mockImplementation((requests) =>
      submitAll(requests).map((submission) =>
        Object.assign(
          submission.then((result) => {
            answered++;
            return result;
          }),
          { written: submission.written },
        ),
      ),
    );
    // How many answers had come back when each claim began.
    const answeredAtClaim: number[] = [];
    const begin = claims.begin.bind(claims);
    jest.spyOn(claims, 'begin').mockImplementation((group) => {
      answeredAtClaim.push(answered);
      return begin(group);
    });
    const dispatcher = new MessageDispatcher(
      claims,
      connector,
      new MemoryBus(),
      logger,
      createDispatcherMetrics(createRegistry('dispatcher'), () => []),
      {
        maxAttempts: 3,
        submitStaleMs: 60_000,
      },
    );

    await Promise.all(
      ids.map((messageId) =>
        dispatcher.handle(
          { messageId, accountId, segments: 1 },
          { attempt: 1, redelivered: false },
        ),
      ),
    );

    // Groups of half a window: the third was claimed while the first two filled the window, so it
    // was ready when their answers came (before this, a claim waited for free places).
    expect(answeredAtClaim.slice(0, 3)).toEqual([0, 0, 0]);
    expect(sim.maxOutstanding).toBeLessThanOrEqual(WINDOW);
    expect(sim.received.map((r) => r.to).sort()).toEqual(
      ids.map((_, i) => `4179000${String(i).padStart(4, '0')}`),
    );
    const { rows } = await db.query<{ state: string; n: string }>(
      `SELECT state, count(*)::text AS n FROM messages GROUP BY state`,
    );
    expect(rows).toEqual([{ state: 'submitted', n: '12' }]);
  }, 30_000);

  it("commits a group's claim before its submit_sm leave, so a crash cannot send them twice", async () => {
    const accountId = await insertTestAccount(db);
    const ids = await queued(accountId, 2);
    const claims = new MessageClaims(db, DEFAULT_CONNECTOR);
    // The writes of the connector's corked socket, and how many there had been at each commit.
    const flushes = jest.spyOn(Socket.prototype, 'uncork');
    const flushesAtCommit: number[] = [];
    const begin = claims.begin.bind(claims);
    jest.spyOn(claims, 'begin').mockImplementation(async (group) => {
      const claim = await begin(group);
      return {
        ...claim,
        commit: () => {
          flushesAtCommit.push(flushes.mock.calls.length);
          return claim.commit();
        },
      };
    });
    const dispatcher = new MessageDispatcher(
      claims,
      connector,
      new MemoryBus(),
      logger,
      createDispatcherMetrics(createRegistry('dispatcher'), () => []),
      { maxAttempts: 3, submitStaleMs: 60_000 },
    );

    await Promise.all(
      ids.map((messageId) =>
        dispatcher.handle(
          { messageId, accountId, segments: 1 },
          { attempt: 1, redelivered: false },
        ),
      ),
    );
    const flushed = flushes.mock.calls.length;
    jest.restoreAllMocks();

    // Before, the commit followed the flush: a dispatcher killed in between left the group queued
    // while the SMSC had it, and the next one sent it again.
    expect(flushesAtCommit[0]).toBe(0);
    expect(flushed).toBeGreaterThan(0);
    expect(sim.received).toHaveLength(2);
  }, 30_000);
});
