import { randomUUID } from 'node:crypto';
import {
  DEFAULT_CONNECTOR,
  QUEUES,
  SUBMIT_GROUP_MAX,
  TOPICS,
  connectorQueue,
  type MessageSubmitGroupJob,
  type MessageSubmitJob,
} from '@smsgw/contracts';
import { MemoryBus, type Bus } from '@smsgw/kit';
import { waitFor } from '@smsgw/kit/testing';
import { SubmitJobPublisher, type SubmitJob } from '../src/send-pipeline/submit-job-publisher';

const job = (accountId: string, segments = 1): SubmitJob => ({
  messageId: randomUUID(),
  accountId,
  segments,
  connector: DEFAULT_CONNECTOR,
});

/**
 * Fakes only performance.now(), the clock a linger reads; the linger's own timer, the bus and the
 * waits here run as usual.
 */
const fakeLingerClock = () =>
  jest.useFakeTimers({
    doNotFake: [
      'Date',
      'hrtime',
      'nextTick',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });

describe('SubmitJobPublisher', () => {
  let bus: MemoryBus;
  let singles: MessageSubmitJob[];
  let groups: MessageSubmitGroupJob[];

  beforeEach(async () => {
    bus = new MemoryBus();
    singles = [];
    groups = [];
    // The jobs' connector's queues, as its dispatcher binds them: jobs are published keyed by it.
    await bus.consume(
      {
        queue: connectorQueue(QUEUES.dispatcherSubmit, DEFAULT_CONNECTOR),
        topic: TOPICS.messageSubmit,
        key: DEFAULT_CONNECTOR,
      },
      (j) => void singles.push(j),
    );
    await bus.consume(
      {
        queue: connectorQueue(QUEUES.dispatcherSubmitGroup, DEFAULT_CONNECTOR),
        topic: TOPICS.messageSubmitGroup,
        key: DEFAULT_CONNECTOR,
      },
      (j) => void groups.push(j),
    );
  });
  afterEach(async () => {
    jest.useRealTimers();
    await bus.close();
  });

  const delivered = (count: number) =>
    waitFor(
      () => singles.length + groups.reduce((n, g) => n + g.messages.length, 0) >= count,
      10_000,
      `${count} jobs delivered`,
    );

  it('publishes the jobs of one turn as one group job per account, and a lone job as a plain one', async () => {
    const alice = randomUUID();
    const bob = randomUUID();
    const publisher = new SubmitJobPublisher(bus);
    const together = [job(alice, 2), job(bob), job(alice), job(alice, 3)];

    await Promise.all(together.map((j) => publisher.publish(j)));
    await publisher.publish(job(bob));
    await delivered(5);

    expect(groups).toEqual([
      {
        accountId: alice,
        messages: [
          { messageId: together[0].messageId, segments: 2 },
          { messageId: together[2].messageId, segments: 1 },
          { messageId: together[3].messageId, segments: 3 },
        ],
      },
    ]);
    expect(singles.map((s) => s.accountId)).toEqual([bob, bob]);
    // The connector travels as the routing key, not in the job.
    const { connector: _connector, ...plain } = together[1];
    expect(singles[0]).toEqual(plain);
  });

  it('keeps group jobs within the size the dispatcher takes', async () => {
    const alice = randomUUID();
    const publisher = new SubmitJobPublisher(bus);
    await Promise.all(
      Array.from({ length: SUBMIT_GROUP_MAX * 2 + 1 }, () => publisher.publish(job(alice))),
    );
    await delivered(SUBMIT_GROUP_MAX * 2 + 1);
    expect(groups.map((g) => g.messages.length)).toEqual([SUBMIT_GROUP_MAX, SUBMIT_GROUP_MAX]);
    expect(singles).toHaveLength(1);
  });

  const nextTurn = () => new Promise((r) => setImmediate(r));

  it('with a linger, publishes a job that comes alone at once, and the jobs of its turn with it', async () => {
    const alice = randomUUID();
    const publisher = new SubmitJobPublisher(bus, { lingerMs: 60_000 });
    // Nothing came before: the turn's jobs do not wait out the 60 s.
    await Promise.all([publisher.publish(job(alice)), publisher.publish(job(alice))]);
    await delivered(2);
    expect(groups.map((g) => g.messages.length)).toEqual([2]);
  });

  it('with a linger, gathers a stream of jobs over several turns into one group job, and sends a full group at once', async () => {
    const alice = randomUUID();
    const publisher = new SubmitJobPublisher(bus, { lingerMs: 60_000 });
    await publisher.publish(job(alice));
    await delivered(1);
    await nextTurn();
    // A job came less than lingerMs ago: these are a stream and wait for each other.
    const first = publisher.publish(job(alice));
    await nextTurn();
    const later = Array.from({ length: SUBMIT_GROUP_MAX - 1 }, () => publisher.publish(job(alice)));

    // The hundredth job ends the linger long before its 60 s: all go as one group job.
    await Promise.all([first, ...later]);
    await delivered(SUBMIT_GROUP_MAX + 1);
    expect(singles).toHaveLength(1);
    expect(groups.map((g) => g.messages.length)).toEqual([SUBMIT_GROUP_MAX]);
  });

  it('with a linger, publishes what waits once the linger is over, and a job after a quiet spell at once', async () => {
    // The quiet spell below is the linger's clock moved on by the linger.
    fakeLingerClock();
    const alice = randomUUID();
    const publisher = new SubmitJobPublisher(bus, { lingerMs: 200 });
    await publisher.publish(job(alice));
    await nextTurn();
    const published = [publisher.publish(job(alice))];
    await nextTurn();
    published.push(publisher.publish(job(alice)));
    expect(groups).toEqual([]);

    await Promise.all(published);
    await delivered(3);
    expect(groups.map((g) => g.messages.length)).toEqual([2]);

    jest.advanceTimersByTime(200);
    const quiet = publisher.publish(job(alice));
    let done = false;
    void quiet.then(() => (done = true));
    await delivered(4);
    expect(singles).toHaveLength(2);
    await quiet;
    expect(done).toBe(true);
  });

  it('fails only the callers whose broker message was refused', async () => {
    const alice = randomUUID();
    const bob = randomUUID();
    const refusing: Pick<Bus, 'publish'> = {
      publish: async (topic, payload, key) => {
        if ((payload as { accountId?: string }).accountId === bob)
          throw new Error('broker refused');
        await bus.publish(topic, payload, key);
      },
    };
    const publisher = new SubmitJobPublisher(refusing);
    const results = await Promise.allSettled(
      [job(alice), job(bob), job(alice), job(bob)].map((j) => publisher.publish(j)),
    );
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
    ]);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('broker refused'));
    await publisher.publish(job(bob, 1)).catch(() => undefined);
    await publisher.publish(job(alice));
    await delivered(3);
    expect(groups.map((g) => g.accountId)).toEqual([alice]);
    expect(singles.map((s) => s.accountId)).toEqual([alice]);
  });
});
