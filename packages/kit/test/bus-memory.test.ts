import { randomUUID } from 'node:crypto';
import { TOPICS } from '@smsgw/contracts';
import { MemoryBus, PoisonMessageError } from '../src';
import { waitFor } from '../src/testing';
import { describeBusConformance } from './bus-conformance';

/** One turn of the event loop: the microtasks queued before it have all run. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describeBusConformance('MemoryBus', () => Promise.resolve(new MemoryBus()));

describe('MemoryBus specifics', () => {
  let bus: MemoryBus;
  beforeEach(() => {
    bus = new MemoryBus();
  });
  afterEach(async () => {
    await bus.close();
  });

  it('holds messages of a topic no queue is bound to yet, for its first consumer', async () => {
    const ids = [randomUUID(), randomUUID()];
    for (const messageId of ids) await bus.publish(TOPICS.messageSubmit, { messageId });
    const seen: string[] = [];
    await bus.consume(
      { queue: 'first', topic: TOPICS.messageSubmit },
      (p) => void seen.push(p.messageId),
    );
    await waitFor(() => seen.length === 2);
    expect(seen).toEqual(ids);
  });

  it('starts handlers after publish returns, never inside it', async () => {
    let called = false;
    await bus.consume({ queue: 'async', topic: TOPICS.messageSubmit }, () => void (called = true));
    const publishing = bus.publish(TOPICS.messageSubmit, { messageId: randomUUID() });
    expect(called).toBe(false);
    await publishing;
    await waitFor(() => called);
  });

  it('gives each delivery its own copy of the payload', async () => {
    const seen: string[] = [];
    await bus.consume(
      { queue: 'mutates', topic: TOPICS.messageSubmit, retryDelaysMs: [10] },
      (p, info) => {
        seen.push(p.messageId);
        p.messageId = 'changed';
        if (info.attempt === 1) throw new Error('again');
      },
    );
    const id = randomUUID();
    await bus.publish(TOPICS.messageSubmit, { messageId: id });
    await waitFor(() => seen.length === 2);
    expect(seen).toEqual([id, id]);
  });

  it('keeps the dead letters with their reason', async () => {
    await bus.consume({ queue: 'dead', topic: TOPICS.messageSubmit, retryDelaysMs: [] }, (p) => {
      if (p.messageId.startsWith('0')) throw new PoisonMessageError('bad');
      throw new Error('down');
    });
    const poison = `0${randomUUID().slice(1)}`;
    const failing = `1${randomUUID().slice(1)}`;
    await bus.publish(TOPICS.messageSubmit, { messageId: poison });
    await bus.publish(TOPICS.messageSubmit, { messageId: failing });
    await waitFor(async () => (await bus.deadLetterCount('dead')) === 2);
    expect(bus.deadLetters('dead').map((d) => [d.payload, d.reason, d.error])).toEqual([
      [{ messageId: poison }, 'poison', 'bad'],
      [{ messageId: failing }, 'retries-exhausted', 'down'],
    ]);
  });

  it('drops pending retry timers on close', async () => {
    // Fake timers: the retry's timer can be seen pending, and the clock moved past its delay. The
    // bus hands messages over in microtasks, which stay real, as do the turns awaited here.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
    try {
      let calls = 0;
      await bus.consume(
        { queue: 'timers', topic: TOPICS.messageSubmit, retryDelaysMs: [100] },
        () => {
          calls++;
          throw new Error('x');
        },
      );
      await bus.publish(TOPICS.messageSubmit, { messageId: randomUUID() });
      await nextTurn();
      expect(calls).toBe(1);
      expect(jest.getTimerCount()).toBe(1); // the retry
      await bus.close();
      expect(jest.getTimerCount()).toBe(0);
      await jest.advanceTimersByTimeAsync(200);
      await nextTurn();
      expect(calls).toBe(1);
    } finally {
      jest.useRealTimers();
    }
  });
});
