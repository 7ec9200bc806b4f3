import { MemoryBus, createLogger, createRegistry, type Db } from '@smsgw/kit';
import { openMigratedPglite, waitFor } from '@smsgw/kit/testing';
import { QUEUES, TOPICS } from '@smsgw/contracts';
import { SmppConnector, SmppSimulator, parseSmscUrl, type OriginateRequest } from '@smsgw/smsc';
import type { InboundMessageRow } from '@smsgw/store';
import { InboundReceiver } from '../src/inbound-receiver';
import { createInboundMetrics } from '../src/metrics';

/**
 * Inbound messages over a real SMPP session from the simulator: recorded before the deliver_sm is
 * answered, parts joined in any order, decoded by their coding, repeats recorded once.
 */
const logger = createLogger('test', 'silent');
const ESME_RX_T_APPN = 0x64;

let db: Db;
let sim: SmppSimulator;
let connector: SmppConnector;
let receiver: InboundReceiver;
let events: string[];
/** Set to make the next recording fail, as a database that does not answer. */
let failNext = false;

beforeEach(async () => {
  db = await openMigratedPglite();
  const bus = new MemoryBus();
  events = [];
  await bus.consume({ queue: QUEUES.notifierInbound, topic: TOPICS.inboundReceived }, (e) => {
    events.push(e.inboundId);
    return Promise.resolve();
  });
  sim = new SmppSimulator({ deliveryReceipts: false });
  const { port } = await sim.start();
  connector = new SmppConnector(
    { ...parseSmscUrl(`smpp://sys:pw@127.0.0.1:${port}`), name: 'operator-a' },
    logger,
  );
  const flaky: Db = Object.create(db) as Db;
  flaky.query = (...args: Parameters<Db['query']>) => {
    if (failNext) {
      failNext = false;
      return Promise.reject(new Error('the database did not answer'));
    }
    return db.query(...args);
  };
  receiver = new InboundReceiver(
    flaky,
    bus,
    logger,
    createInboundMetrics(createRegistry('dispatcher')),
    {
      connector: 'operator-a',
      partTimeoutMs: 300,
      dedupWindowMs: 600_000,
      sweepEveryMs: 60_000,
    },
  );
  connector.onInbound(receiver.receive);
  await connector.start();
});

afterEach(async () => {
  await connector.stop();
  await sim.stop();
  await db.close();
});

async function inbound() {
  const { rows } = await db.query<InboundMessageRow>(
    `SELECT id, connector, from_addr, to_addr, coding, content, hex_content, parts_expected,
            parts_received, incomplete, keyword, state FROM inbound_messages ORDER BY received_at`,
  );
  return rows;
}

const base: OriginateRequest = { from: '41790000001', to: '4000' };

describe('inbound messages from the SMSC', () => {
  it('records a GSM 03.38 message with extension characters, answered OK after recording', async () => {
    const text = 'Yes 5€ [a] {b} ~|^\\';
    expect(await sim.originate({ ...base, text })).toEqual([0]);
    const rows = await inbound();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      connector: 'operator-a',
      from_addr: '41790000001',
      to_addr: '4000',
      coding: 0,
      content: text,
      hex_content: null,
      keyword: 'YES',
      state: 'received',
      incomplete: false,
    });
    expect(events).toEqual([rows[0].id]);
  });

  it('joins a UCS-2 message with an emoji split inside its surrogate pair, parts out of order', async () => {
    const text = 'Hi 😀 there, 你好 again';
    // 8 bytes a part: the emoji's two code units fall in two parts.
    const statuses = await sim.originate({
      ...base,
      text,
      dataCoding: 8,
      partBytes: 8,
      concatenation: 'udh16',
      order: [3, 1, 5, 2, 6, 4],
    });
    expect(statuses.every((s) => s === 0)).toBe(true);
    const rows = await inbound();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      content: text,
      coding: 8,
      parts_expected: 6,
      parts_received: 6,
    });
    expect(events).toHaveLength(1);
  });

  it('joins three parts concatenated by SAR TLVs, arriving out of order', async () => {
    await sim.originate({
      ...base,
      text: 'one two three four five six seven',
      partBytes: 12,
      concatenation: 'sar',
      order: [2, 3, 1],
    });
    expect((await inbound()).map((r) => r.content)).toEqual(['one two three four five six seven']);
  });

  it('delivers what arrived, marked incomplete, once the missing part is overdue', async () => {
    await sim.originate({ ...base, text: 'aaaaabbbbbccccc', partBytes: 5, withhold: [2] });
    expect(await inbound()).toEqual([]);
    // Overdue: its first part is older than the part timeout by the database's clock.
    await waitFor(
      async () => {
        const { rows } = await db.query<{ overdue: boolean | null }>(
          `SELECT min(received_at) < now() - interval '300 milliseconds' AS overdue FROM inbound_parts`,
        );
        return rows[0].overdue === true;
      },
      5_000,
      'the missing part overdue',
    );
    expect(await receiver.sweep()).toBe(1);
    const rows = await inbound();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      content: 'aaaaaccccc',
      parts_expected: 3,
      parts_received: 2,
      incomplete: true,
    });
    expect(await receiver.sweep()).toBe(0);
  });

  it('records a message the SMSC delivers twice (a lost answer) once', async () => {
    expect(await sim.originate({ ...base, text: 'STOP', times: 2 })).toEqual([0, 0]);
    await sim.originate({ ...base, text: 'part one, part two', partBytes: 9, times: 2 });
    expect((await inbound()).map((r) => r.content)).toEqual(['STOP', 'part one, part two']);
    expect(events).toHaveLength(2);
  });

  it('answers a temporary error when it cannot record, and records the SMSC’s next delivery', async () => {
    failNext = true;
    expect(await sim.originate({ ...base, text: 'hello' })).toEqual([ESME_RX_T_APPN]);
    expect(await inbound()).toEqual([]);
    expect(await sim.originate({ ...base, text: 'hello' })).toEqual([0]);
    expect((await inbound()).map((r) => r.content)).toEqual(['hello']);
  });

  it('keeps a coding that is not text as hex', async () => {
    await sim.originate({ ...base, hex: '0001feff', dataCoding: 4 });
    expect(await inbound()).toMatchObject([{ content: null, hex_content: '0001feff', coding: 4 }]);
  });
});
