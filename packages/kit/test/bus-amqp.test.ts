import amqp from 'amqplib';
import { randomBytes, randomUUID } from 'node:crypto';
import { BROADCASTS, TOPICS } from '@smsgw/contracts';
import { AmqpBus, BusUnavailableError, UnroutableMessageError, createLogger } from '../src';
import { waitFor } from '../src/testing';
import { accountChanged, describeBusConformance, resultEvent } from './bus-conformance';
import { killConnection, resolveAmqpUrl } from './support/amqp';

const url = resolveAmqpUrl();
const logger = createLogger('bus-test', 'silent');
const namespace = `test-${randomBytes(4).toString('hex')}`;
const opened: AmqpBus[] = [];
const open = async (options: { namespace?: string } = {}): Promise<AmqpBus> => {
  const bus = await AmqpBus.connect({
    url: url!,
    namespace: options.namespace ?? namespace,
    logger,
    maxReconnectDelayMs: 500,
  });
  opened.push(bus);
  return bus;
};

if (url) {
  afterAll(async () => {
    await Promise.allSettled(opened.map((bus) => bus.close()));
    // Every queue and exchange this run declared in its namespace goes.
    const cleaner = await AmqpBus.connect({ url, namespace, logger });
    try {
      await cleaner.deleteNamespace();
    } finally {
      await cleaner.close();
    }
  });

  describeBusConformance('AmqpBus (RabbitMQ)', () => open());

  describe('AmqpBus specifics', () => {
    it('broadcasts to every process, and tells a subscription of the gap after a reconnect', async () => {
      const [sender, first, second] = await Promise.all([open(), open(), open()]);
      const seen: Record<string, string[]> = { first: [], second: [] };
      let gaps = 0;
      await first.subscribe(BROADCASTS.accountChanged, {
        onMessage: (event) => void seen['first'].push(event.accountId),
        onGap: () => void gaps++,
      });
      await second.subscribe(BROADCASTS.accountChanged, {
        onMessage: (event) => void seen['second'].push(event.accountId),
      });
      const id = randomUUID();
      await sender.broadcast(BROADCASTS.accountChanged, accountChanged(id));
      await waitFor(() => seen['first'].length === 1 && seen['second'].length === 1, 5_000);
      expect(seen).toEqual({ first: [id], second: [id] });

      killConnection(first);
      await waitFor(() => gaps === 1, 10_000, 'the gap after the reconnect');
      const after = randomUUID();
      await sender.broadcast(BROADCASTS.accountChanged, accountChanged(after));
      await waitFor(() => seen['first'].includes(after), 5_000, 'a broadcast after the reconnect');
      expect(seen['first']).toEqual([id, after]);
    });

    it('redelivers a message left unacked by a consumer whose connection died, to another consumer', async () => {
      const first = await open();
      let release!: () => void;
      const stuck = new Promise<void>((r) => (release = r));
      let firstGot = 0;
      await first.consume({ queue: 'crash', topic: TOPICS.messageSubmit }, async () => {
        firstGot++;
        await stuck;
      });
      const id = randomUUID();
      await first.publish(TOPICS.messageSubmit, { messageId: id });
      await waitFor(() => firstGot === 1);
      // Cut the socket under the handler, as a killed process would; close() keeps it from reconnecting.
      killConnection(first);
      const closing = first.close();
      const second = await open();
      const seen: [string, boolean, number][] = [];
      await second.consume(
        { queue: 'crash', topic: TOPICS.messageSubmit },
        (p, info) => void seen.push([p.messageId, info.redelivered, info.attempt]),
      );
      await waitFor(() => seen.length === 1, 10_000, 'redelivery');
      expect(seen).toEqual([[id, true, 1]]);
      release(); // the first handler now acks on a dead channel: logged, not thrown
      await closing;
      expect(firstGot).toBe(1);
      await second.close();
    });

    it('reconnects after losing the connection, refusing publishes meanwhile, and resumes its consumers', async () => {
      const bus = await open();
      const seen: string[] = [];
      await bus.consume(
        { queue: 'reconnect', topic: TOPICS.batchAccepted },
        (p) => void seen.push(p.batchId),
      );
      expect(bus.isReady()).toBe(true);
      killConnection(bus);
      await waitFor(() => !bus.isReady(), 2000, 'not ready');
      const refused = bus.publish(TOPICS.batchAccepted, { batchId: randomUUID() });
      await expect(refused).rejects.toThrow(BusUnavailableError);
      await expect(refused).rejects.toThrow(/not connected/);
      await waitFor(() => bus.isReady(), 10_000, 'reconnected');
      const batchId = randomUUID();
      // The queue outlived the connection: the job waits there for the consumer to come back.
      await bus.publish(TOPICS.batchAccepted, { batchId });
      await waitFor(() => seen.includes(batchId), 10_000, 'delivery after reconnect');
      await bus.close();
    });

    it('refuses a publish no queue is bound to, instead of letting the broker drop it', async () => {
      const bus = await open({ namespace: `${namespace}-unbound` });
      try {
        await expect(bus.publish(TOPICS.batchAccepted, { batchId: randomUUID() })).rejects.toThrow(
          UnroutableMessageError,
        );
        expect(bus.isReady()).toBe(true); // an unroutable message does not hurt the channel
      } finally {
        await bus.deleteNamespace();
        await bus.close();
      }
    });

    it('dead-letters a message that fails its schema on the wire, without calling the handler', async () => {
      const bus = await open();
      let calls = 0;
      await bus.consume(
        { queue: 'wire', topic: TOPICS.messageSubmit, retryDelaysMs: [20] },
        () => void calls++,
      );
      const connection = await amqp.connect(url);
      try {
        const channel = await connection.createConfirmChannel();
        for (const body of ['{"messageId":"not-a-uuid"}', 'not json']) {
          channel.publish(`${namespace}.events`, TOPICS.messageSubmit, Buffer.from(body), {
            persistent: true,
          });
        }
        await channel.waitForConfirms();
      } finally {
        await connection.close();
      }
      // The other queues of this namespace bound to message.submit got them too; look at ours.
      await waitFor(async () => (await bus.deadLetterCount('wire')) === 2, 5000, 'dead letters');
      expect(calls).toBe(0);
      await bus.close();
    });

    it('carries the attempt and the last error to the dead-letter queue, keeping the message id', async () => {
      const bus = await open();
      await bus.consume(
        { queue: 'headers', topic: TOPICS.messageResult, retryDelaysMs: [20] },
        () => {
          throw new Error('callback endpoint answered 500');
        },
      );
      const event = resultEvent();
      await bus.publish(TOPICS.messageResult, event);
      await waitFor(async () => (await bus.deadLetterCount('headers')) === 1, 5000, 'dead letter');
      const connection = await amqp.connect(url);
      try {
        const channel = await connection.createChannel();
        const msg = await channel.get(`${namespace}.headers.dead`, { noAck: true });
        expect(msg).not.toBe(false);
        if (msg === false) return;
        expect(JSON.parse(msg.content.toString())).toEqual(event);
        expect(msg.properties.headers).toMatchObject({
          'x-attempt': 2,
          'x-last-error': 'callback endpoint answered 500',
          'x-dead-reason': 'retries-exhausted',
        });
        expect(msg.properties.deliveryMode).toBe(2);
        expect(msg.properties.contentType).toBe('application/json');
        expect(typeof msg.properties.messageId).toBe('string');
      } finally {
        await connection.close();
      }
      await bus.close();
    });

    it('declares quorum queues (a classic redeclaration is refused by the broker)', async () => {
      const bus = await open();
      await bus.declare({ queue: 'quorum-check', topic: TOPICS.messageSubmit });
      const connection = await amqp.connect(url);
      try {
        const channel = await connection.createChannel();
        channel.on('error', () => undefined);
        const args = {
          'x-delivery-limit': 20,
          'x-dead-letter-exchange': '',
          'x-dead-letter-routing-key': `${namespace}.quorum-check.dead`,
        };
        await expect(
          channel.assertQueue(`${namespace}.quorum-check`, {
            durable: true,
            arguments: { ...args, 'x-queue-type': 'classic' },
          }),
        ).rejects.toThrow(/inequivalent arg 'x-queue-type'/);
      } finally {
        await connection.close().catch(() => undefined);
      }
      await bus.close();
    });
  });
} else {
  // jest.config.js runs this file only with AMQP_URL set; run by hand without a broker, it fails.
  describe('AmqpBus', () => {
    it('needs a RabbitMQ broker (set AMQP_URL)', () => {
      throw new Error('no RabbitMQ: AMQP_URL unset and nothing at 127.0.0.1:5672');
    });
  });
}
