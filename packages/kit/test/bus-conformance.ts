import { randomUUID } from 'node:crypto';
import {
  BROADCASTS,
  BUS_SCHEMAS,
  QUEUES,
  TOPICS,
  type AccountChangedEvent,
  type MessageResultEvent,
} from '@smsgw/contracts';
import { PoisonMessageError, type Bus, type Consumer, type DeliveryInfo } from '../src';
import { waitFor } from '../src/testing';
import { sleep } from './support/wait';

export const accountChanged = (accountId = randomUUID()): AccountChangedEvent => ({
  accountId,
  change: 'disabled',
  at: new Date().toISOString(),
});

export const resultEvent = (messageId = randomUUID()): MessageResultEvent => ({
  messageId,
  accountId: 'acc',
  batchId: null,
  to: '41790000001',
  outcome: 'submitted',
  smscId: '1',
  error: null,
  connector: 'smsc-1',
  at: new Date().toISOString(),
});

/**
 * One suite for both buses: embedded mode must behave as RabbitMQ does (docs/architecture.md § The
 * parts). `open` may be called several times; `cleanup` runs once before the shared bus is closed.
 */
export function describeBusConformance(
  name: string,
  open: () => Promise<Bus>,
  cleanup: (bus: Bus) => Promise<void> = () => Promise.resolve(),
): void {
  describe(`Bus conformance: ${name}`, () => {
    let bus: Bus;
    let n = 0;
    let consumers: Consumer[] = [];
    // Each test gets its own queue names so leftovers of one never reach another.
    const q = (base: string) => `${base}-${process.pid}-${n}`;
    const track = (c: Consumer) => (consumers.push(c), c);

    beforeAll(async () => {
      bus = await open();
    });
    beforeEach(() => {
      n++;
    });
    afterEach(async () => {
      // A failed test must not leave a handler running into the next one.
      await Promise.all(consumers.map((c) => c.cancel()));
      consumers = [];
    });
    afterAll(async () => {
      if (!bus) return;
      await cleanup(bus);
      await bus.close();
    });

    it('delivers a published job with its typed payload, once, on attempt 1', async () => {
      const seen: [string, DeliveryInfo][] = [];
      track(
        await bus.consume({ queue: q('submit'), topic: TOPICS.messageSubmit }, (payload, info) => {
          seen.push([payload.messageId, info]);
        }),
      );
      const id = randomUUID();
      await bus.publish(TOPICS.messageSubmit, { messageId: id });
      await waitFor(() => seen.length === 1);
      // A second job after it, so a repeat of the first would have come by the time it does.
      const marker = randomUUID();
      await bus.publish(TOPICS.messageSubmit, { messageId: marker });
      await waitFor(() => seen.some(([messageId]) => messageId === marker), 5_000, 'the marker');
      expect(seen).toEqual([
        [id, { attempt: 1, redelivered: false }],
        [marker, { attempt: 1, redelivered: false }],
      ]);
    });

    it('keeps messages for a declared queue until a consumer comes', async () => {
      await bus.declare({ queue: q('declared'), topic: TOPICS.messageDlr });
      // Parsed: the schema's defaults filled in, as every consumer sees it.
      const dlr = BUS_SCHEMAS[TOPICS.messageDlr].parse({
        messageId: randomUUID(),
        smscId: '7',
        status: 'DELIVRD',
        err: null,
        at: new Date().toISOString(),
      });
      await bus.publish(TOPICS.messageDlr, dlr);
      await waitFor(
        async () => (await bus.queueDepth(q('declared'))) === 1,
        5_000,
        'the job in the queue',
      );
      const seen: unknown[] = [];
      track(
        await bus.consume(
          { queue: q('declared'), topic: TOPICS.messageDlr },
          (p) => void seen.push(p),
        ),
      );
      await waitFor(() => seen.length === 1);
      expect(seen).toEqual([dlr]);
    });

    it('fans a topic out to every queue bound to it, once each, and only to those', async () => {
      const a: string[] = [];
      const b: string[] = [];
      const other: string[] = [];
      track(
        await bus.consume(
          { queue: q('a'), topic: TOPICS.messageResult },
          (p) => void a.push(p.messageId),
        ),
      );
      track(
        await bus.consume(
          { queue: q('b'), topic: TOPICS.messageResult },
          (p) => void b.push(p.messageId),
        ),
      );
      track(
        await bus.consume(
          { queue: q('other'), topic: TOPICS.batchAccepted },
          (p) => void other.push(p.batchId),
        ),
      );
      const event = resultEvent();
      await bus.publish(TOPICS.messageResult, event);
      await waitFor(() => a.length === 1 && b.length === 1);
      // A job of each topic after it: a repeat, or one routed to the wrong queue, would come first.
      const marker = resultEvent();
      const otherMarker = randomUUID();
      await bus.publish(TOPICS.messageResult, marker);
      await bus.publish(TOPICS.batchAccepted, { batchId: otherMarker });
      await waitFor(
        () =>
          a.includes(marker.messageId) &&
          b.includes(marker.messageId) &&
          other.includes(otherMarker),
        5_000,
        'the markers',
      );
      expect([a, b, other]).toEqual([
        [event.messageId, marker.messageId],
        [event.messageId, marker.messageId],
        [otherMarker],
      ]);
    });

    it('refuses a payload that does not match the topic schema, and delivers nothing', async () => {
      const seen: string[] = [];
      track(
        await bus.consume(
          { queue: q('invalid'), topic: TOPICS.messageSubmit },
          (p) => void seen.push(p.messageId),
        ),
      );
      await expect(
        bus.publish(TOPICS.messageSubmit, { messageId: 'not-a-uuid' }),
      ).rejects.toThrow();
      await expect(bus.publish(TOPICS.messageSubmit, {} as never)).rejects.toThrow();
      await expect(
        bus.publish(TOPICS.messageResult, { ...resultEvent(), outcome: 'maybe' } as never),
      ).rejects.toThrow();
      // A valid job after them: had one of them gone out, it would have come first.
      const marker = randomUUID();
      await bus.publish(TOPICS.messageSubmit, { messageId: marker });
      await waitFor(() => seen.length > 0, 5_000, 'the marker');
      expect(seen).toEqual([marker]);
    });

    it('retries a failing handler after each delay, counting attempts, then dead-letters it', async () => {
      const attempts: [number, number][] = [];
      const queue = q('retry');
      track(
        await bus.consume(
          { queue, topic: TOPICS.messageSubmit, retryDelaysMs: [50, 100] },
          (_p, info) => {
            attempts.push([info.attempt, Date.now()]);
            throw new Error('SMSC down');
          },
        ),
      );
      expect(await bus.deadLetterCount(queue)).toBe(0);
      await bus.publish(TOPICS.messageSubmit, { messageId: randomUUID() });
      await waitFor(async () => (await bus.deadLetterCount(queue)) === 1, 10_000, 'dead letter');
      await sleep(200);
      expect(attempts.map(([a]) => a)).toEqual([1, 2, 3]);
      expect(attempts[1][1] - attempts[0][1]).toBeGreaterThanOrEqual(40);
      expect(attempts[2][1] - attempts[1][1]).toBeGreaterThanOrEqual(90);
      expect(await bus.deadLetterCount(queue)).toBe(1);
    });

    it('a handler that recovers on a retry acks the message: nothing is dead-lettered', async () => {
      const queue = q('recovers');
      const attempts: number[] = [];
      track(
        await bus.consume(
          { queue, topic: TOPICS.messageSubmit, retryDelaysMs: [30, 30] },
          (_p, info) => {
            attempts.push(info.attempt);
            if (info.attempt < 2) throw new Error('transient');
          },
        ),
      );
      await bus.publish(TOPICS.messageSubmit, { messageId: randomUUID() });
      await waitFor(() => attempts.length === 2);
      await sleep(150);
      expect(attempts).toEqual([1, 2]);
      expect(await bus.deadLetterCount(queue)).toBe(0);
    });

    it('a retry goes only to the queue whose handler failed', async () => {
      const event = resultEvent();
      const failing: [string, number][] = [];
      const healthy: [string, number][] = [];
      track(
        await bus.consume(
          { queue: q('fails'), topic: TOPICS.messageResult, retryDelaysMs: [30] },
          (p, info) => {
            failing.push([p.messageId, info.attempt]);
            if (p.messageId === event.messageId && info.attempt === 1) throw new Error('once');
          },
        ),
      );
      track(
        await bus.consume(
          { queue: q('fine'), topic: TOPICS.messageResult, retryDelaysMs: [30] },
          (p, info) => void healthy.push([p.messageId, info.attempt]),
        ),
      );
      await bus.publish(TOPICS.messageResult, event);
      await waitFor(() => failing.length === 2);
      // A job after the retry: a copy of the retry sent to the healthy queue would come before it.
      const marker = resultEvent();
      await bus.publish(TOPICS.messageResult, marker);
      await waitFor(
        () => failing.length === 3 && healthy.some(([id]) => id === marker.messageId),
        5_000,
        'the marker',
      );
      expect([failing, healthy]).toEqual([
        [
          [event.messageId, 1],
          [event.messageId, 2],
          [marker.messageId, 1],
        ],
        [
          [event.messageId, 1],
          [marker.messageId, 1],
        ],
      ]);
    });

    it('dead-letters a poison message without retrying', async () => {
      const queue = q('poison');
      let calls = 0;
      track(
        await bus.consume({ queue, topic: TOPICS.messageSubmit, retryDelaysMs: [30, 30] }, () => {
          calls++;
          throw new PoisonMessageError('cannot ever work');
        }),
      );
      await bus.publish(TOPICS.messageSubmit, { messageId: randomUUID() });
      await waitFor(async () => (await bus.deadLetterCount(queue)) === 1);
      await sleep(150);
      expect(calls).toBe(1);
      expect(await bus.deadLetterCount(queue)).toBe(1);
    });

    it('never runs more handlers at once than the prefetch', async () => {
      let running = 0;
      let peak = 0;
      let done = 0;
      track(
        await bus.consume(
          { queue: q('prefetch'), topic: TOPICS.messageSubmit, prefetch: 3 },
          async () => {
            peak = Math.max(peak, ++running);
            await sleep(20);
            running--;
            done++;
          },
        ),
      );
      await Promise.all(
        Array.from({ length: 12 }, () =>
          bus.publish(TOPICS.messageSubmit, { messageId: randomUUID() }),
        ),
      );
      await waitFor(() => done === 12);
      expect(peak).toBeLessThanOrEqual(3);
      expect(peak).toBe(3); // and the bound is used, not a lower one
    });

    it('shares a queue between competing consumers: each message handled once', async () => {
      const queue = q('compete');
      const byFirst: string[] = [];
      const bySecond: string[] = [];
      // Each handling is counted as it starts; the handler then takes a while, so that the other
      // consumer gets the next one.
      const slow = (list: string[]) => async (p: { messageId: string }) => {
        list.push(p.messageId);
        await sleep(10);
      };
      track(await bus.consume({ queue, topic: TOPICS.messageSubmit, prefetch: 1 }, slow(byFirst)));
      track(await bus.consume({ queue, topic: TOPICS.messageSubmit, prefetch: 1 }, slow(bySecond)));
      const ids = Array.from({ length: 10 }, () => randomUUID());
      for (const messageId of ids) await bus.publish(TOPICS.messageSubmit, { messageId });
      await waitFor(() => byFirst.length + bySecond.length === ids.length);
      // A job after them: a second handling of any of them would have started before it.
      const marker = randomUUID();
      await bus.publish(TOPICS.messageSubmit, { messageId: marker });
      await waitFor(() => [...byFirst, ...bySecond].includes(marker), 5_000, 'the marker');
      expect([...byFirst, ...bySecond].sort()).toEqual([...ids, marker].sort());
      expect(byFirst.length).toBeGreaterThan(0);
      expect(bySecond.length).toBeGreaterThan(0);
    });

    it('cancel waits for the handler in progress, and later messages wait for the next consumer', async () => {
      const queue = q('cancel');
      let finished = false;
      let started = 0;
      const consumer = await bus.consume({ queue, topic: TOPICS.messageSubmit }, async () => {
        started++;
        await sleep(150);
        finished = true;
      });
      await bus.publish(TOPICS.messageSubmit, { messageId: randomUUID() });
      await waitFor(() => started === 1);
      await consumer.cancel();
      expect(finished).toBe(true);
      await consumer.cancel(); // idempotent

      const later = randomUUID();
      await bus.publish(TOPICS.messageSubmit, { messageId: later });
      // It stays in the queue: no consumer takes it.
      await waitFor(async () => (await bus.queueDepth(queue)) === 1, 5_000, 'the job queued');
      expect(started).toBe(1);
      const seen: string[] = [];
      track(
        await bus.consume(
          { queue, topic: TOPICS.messageSubmit },
          (p) => void seen.push(p.messageId),
        ),
      );
      await waitFor(() => seen.length === 1);
      expect(seen).toEqual([later]);
    });

    it('reports how long the job it took last had waited in the queue (consumer lag)', async () => {
      const queue = q('lag');
      expect(bus.consumerLagSeconds(queue)).toBe(0);
      await bus.declare({ queue, topic: TOPICS.messageSubmit });
      await bus.publish(TOPICS.messageSubmit, { messageId: randomUUID() });
      expect(await bus.queueDepth(queue)).toBe(1);
      await sleep(1100);
      const seen: string[] = [];
      track(
        await bus.consume(
          { queue, topic: TOPICS.messageSubmit },
          (p) => void seen.push(p.messageId),
        ),
      );
      await waitFor(() => seen.length === 1);
      // RabbitMQ stamps whole seconds: 1.1 s of waiting reads as 1 or 2.
      expect(bus.consumerLagSeconds(queue)).toBeGreaterThanOrEqual(1);
      expect(bus.consumerLagSeconds(queue)).toBeLessThan(3);
    });

    it('counts no dead letters for a queue it does not know', async () => {
      expect(await bus.deadLetterCount(q('never-declared'))).toBe(0);
    });

    it('uses the queue names of the contracts', () => {
      expect(Object.values(QUEUES).every((queue) => /^[a-z-]+\.[a-z-]+$/.test(queue))).toBe(true);
    });

    it('broadcasts to every subscription once, and needs none', async () => {
      await bus.broadcast(BROADCASTS.accountChanged, accountChanged());
      const first: string[] = [];
      const second: string[] = [];
      for (const seen of [first, second])
        track(
          await bus.subscribe(BROADCASTS.accountChanged, {
            onMessage: (event) => void seen.push(event.accountId),
          }),
        );
      const ids = [randomUUID(), randomUUID()];
      for (const id of ids) await bus.broadcast(BROADCASTS.accountChanged, accountChanged(id));
      await waitFor(() => first.length >= 2 && second.length >= 2, 5_000, 'both subscriptions');
      // A third broadcast after the first two, so a duplicate of those would have arrived by now.
      const last = randomUUID();
      await bus.broadcast(BROADCASTS.accountChanged, accountChanged(last));
      await waitFor(() => first.includes(last) && second.includes(last), 5_000, 'the last one');
      expect(first).toEqual([...ids, last]);
      expect(second).toEqual([...ids, last]);
    });

    it('stops delivering to a cancelled subscription, and validates broadcasts', async () => {
      const kept: string[] = [];
      const dropped: string[] = [];
      track(
        await bus.subscribe(BROADCASTS.accountChanged, {
          onMessage: (event) => void kept.push(event.accountId),
        }),
      );
      const cancelled = await bus.subscribe(BROADCASTS.accountChanged, {
        onMessage: (event) => void dropped.push(event.accountId),
      });
      await cancelled.cancel();
      const id = randomUUID();
      await bus.broadcast(BROADCASTS.accountChanged, accountChanged(id));
      await waitFor(() => kept.includes(id), 5_000, 'the kept subscription');
      expect(dropped).toEqual([]);
      await expect(
        bus.broadcast(BROADCASTS.accountChanged, {
          ...accountChanged(),
          accountId: 'not-a-uuid',
        }),
      ).rejects.toThrow();
    });
  });

  describe(`Bus conformance: ${name}, closed`, () => {
    it('is not ready after close, and refuses to publish or consume', async () => {
      const bus = await open();
      expect(bus.isReady()).toBe(true);
      await bus.close();
      expect(bus.isReady()).toBe(false);
      await expect(
        bus.publish(TOPICS.messageSubmit, { messageId: randomUUID() }),
      ).rejects.toThrow();
      await expect(
        bus.consume({ queue: 'closed', topic: TOPICS.messageSubmit }, () => undefined),
      ).rejects.toThrow();
      await bus.close(); // idempotent
    });

    it('close waits for the handlers in progress', async () => {
      const bus = await open();
      let started = false;
      let finished = false;
      await bus.consume(
        { queue: `close-wait-${process.pid}`, topic: TOPICS.batchAccepted },
        async () => {
          started = true;
          await sleep(150);
          finished = true;
        },
      );
      await bus.publish(TOPICS.batchAccepted, { batchId: randomUUID() });
      await waitFor(() => started);
      await bus.close();
      expect(finished).toBe(true);
    });
  });
}
