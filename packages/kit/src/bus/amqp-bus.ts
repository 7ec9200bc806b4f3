import amqp, {
  type Channel,
  type ChannelModel,
  type ConfirmChannel,
  type ConsumeMessage,
  type Options,
} from 'amqplib';
import { randomUUID } from 'node:crypto';
import {
  BROADCASTS,
  BROADCAST_SCHEMAS,
  BUS_SCHEMAS,
  type Broadcast,
  type BroadcastPayload,
  type BusPayload,
  type Topic,
} from '@smsgw/contracts';
import type { Logger } from '../logger';
import { ConsumerLag } from './consumer-lag';
import { TurnCork, type Corkable } from './turn-cork';
import {
  DEFAULT_RETRY_DELAYS_MS,
  PoisonMessageError,
  routingKey,
  type Bus,
  type ConsumeOptions,
  type Consumer,
  type Handler,
  type QueueBinding,
  type Subscriber,
} from './bus';

export interface AmqpBusOptions {
  url: string;
  /** Prefix of every exchange and queue, so installations and test runs can share a broker. */
  namespace: string;
  logger: Logger;
  /** How long `publish` waits for the broker's confirm before it rejects (default 30 s). */
  publishTimeoutMs?: number;
  /** Upper bound of the reconnect backoff (default 30 s). */
  maxReconnectDelayMs?: number;
  /**
   * How long opening a connection may take, TCP and AMQP handshake (default 10 s): a broker that
   * accepts the socket and never answers (still booting, half dead) must fail the attempt, so it
   * is retried and logged rather than waited on forever.
   */
  connectTimeoutMs?: number;
}

/** Header carrying the delivery attempt (1 on the first delivery) through the delay queues. */
export const ATTEMPT_HEADER = 'x-attempt';
/** Header with the last handler error, on retried and dead-lettered messages (for operators). */
export const LAST_ERROR_HEADER = 'x-last-error';
/**
 * Header saying why a message sits in a dead-letter queue: `poison`, `retries-exhausted` or
 * `invalid`.
 */
export const DEAD_REASON_HEADER = 'x-dead-reason';
/**
 * Redeliveries (consumer died without acking) after which the broker parks a message in the
 * dead-letter queue: a message that crashes every consumer must not crash them forever.
 */
export const AMQP_DELIVERY_LIMIT = 20;
const DEFAULT_PREFETCH = 16;

/**
 * Thrown by `publish` when the broker stored the message in no queue: nobody declared one for the
 * topic.
 */
export class UnroutableMessageError extends Error {
  override name = 'UnroutableMessageError';
}

/** Thrown by `publish` and friends while the bus has no broker connection, or after `close()`. */
export class BusUnavailableError extends Error {
  override name = 'BusUnavailableError';
}

interface ConsumerSpec {
  queue: string;
  topic: Topic;
  key?: string;
  prefetch: number;
  retryDelaysMs: number[];
  handler: Handler<Topic>;
  channel?: Channel | undefined;
  tag?: string | undefined;
  starting?: Promise<void> | undefined;
  restartTimer?: NodeJS.Timeout | undefined;
  restartAttempt: number;
  /** Handler runs in progress, across channels (a reconnect does not forget them). */
  inFlight: Set<Promise<void>>;
  cancelled: boolean;
}

interface SubscriptionSpec {
  topic: Broadcast;
  subscriber: Subscriber<Broadcast>;
  channel?: Channel | undefined;
  starting?: Promise<void> | undefined;
  restartTimer?: NodeJS.Timeout | undefined;
  restartAttempt: number;
  /** Broadcasts may have been missed since the last start (the channel or connection was lost). */
  gap: boolean;
  cancelled: boolean;
}

/** Headers the broker owns; a message moved by us starts without them. */
const BROKER_HEADERS = /^x-(death|first-death-|last-death-|delivery-count)/;

/** Names declared per namespace in this process, so tests can delete what they made. */
const declaredNames = new Map<string, Set<string>>();

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Waits for a broker round trip at most `ms`: a half-dead socket must not hang a shutdown. */
const bounded = (promise: Promise<unknown>, ms = 5000): Promise<unknown> =>
  Promise.race([promise.catch(() => undefined), sleep(ms)]);

/**
 * Heartbeats every 10 s unless the URL says otherwise, so a dead peer is noticed in ~20 s, not
 * minutes.
 */
function withHeartbeat(url: string): string {
  if (/[?&]heartbeat=/.test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}heartbeat=10`;
}

/**
 * RabbitMQ as docs/architecture.md § The bus says.
 *
 * Topology of namespace `ns`, for each consumer queue `q` bound to topic `t`:
 * - `ns.events`: durable topic exchange; publishes go there with routing key `t`.
 * - `ns.q`: quorum queue bound to `ns.events` by `t` and to `ns.retry` by its own name.
 *   A message redelivered more than AMQP_DELIVERY_LIMIT times is dead-lettered by the broker.
 * - `ns.q.retry.<ms>`: quorum delay queue, one per retry delay; its messages expire after `<ms>`
 *   and are dead-lettered (at-least-once) through the direct exchange `ns.retry` with key `ns.q`,
 *   so a retry reaches only the consumer that failed, never the other queues of the topic.
 * - `ns.q.dead`: quorum dead-letter queue.
 *
 * Broadcast `b` goes to the durable fanout exchange `ns.broadcast.b`; each subscribing process
 * binds an exclusive, auto-delete queue of its own (named by the broker), which goes away with
 * its connection. Broadcasts are neither persistent nor mandatory: they matter only to processes
 * running now, and a subscriber told of a gap (reconnect) drops what they would have invalidated.
 *
 * Messages are persistent and confirmed; `publish` is mandatory, so a topic with no queue rejects
 * instead of being dropped silently. Moving a message (retry, dead letter) publishes the copy with
 * confirm first and acks the original after, so a crash in between duplicates, never loses.
 */
export class AmqpBus implements Bus {
  private connection: ChannelModel | undefined;
  private publisher: ConfirmChannel | undefined;
  private readonly consumers = new Set<ConsumerSpec>();
  private readonly subscriptions = new Set<SubscriptionSpec>();
  /** Message ids the broker returned as unroutable; their confirm then rejects. */
  private readonly returned = new Set<string>();
  private readonly pendingPublishes = new Set<Promise<void>>();
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectAttempt = 0;
  private opening: Promise<void> | undefined;
  private blocked = false;
  private closing = false;
  private readonly cork = new TurnCork();
  private readonly lag = new ConsumerLag();

  private constructor(private readonly options: AmqpBusOptions) {}

  static async connect(options: AmqpBusOptions): Promise<AmqpBus> {
    const bus = new AmqpBus(options);
    await bus.openOnce();
    return bus;
  }

  private get logger(): Logger {
    return this.options.logger;
  }
  private get events(): string {
    return `${this.options.namespace}.events`;
  }
  private get retries(): string {
    return `${this.options.namespace}.retry`;
  }
  private queueName(queue: string): string {
    return `${this.options.namespace}.${queue}`;
  }
  private broadcastExchange(topic: Broadcast): string {
    return `${this.options.namespace}.broadcast.${topic}`;
  }
  private deadQueue(queue: string): string {
    return `${this.queueName(queue)}.dead`;
  }
  private delayQueue(queue: string, delayMs: number): string {
    return `${this.queueName(queue)}.retry.${delayMs}`;
  }
  private remember(...names: string[]): void {
    let set = declaredNames.get(this.options.namespace);
    if (!set) declaredNames.set(this.options.namespace, (set = new Set()));
    for (const name of names) set.add(name);
  }

  // ---- connection lifecycle ----

  private openOnce(): Promise<void> {
    this.opening ??= this.open().finally(() => (this.opening = undefined));
    return this.opening;
  }

  private async open(): Promise<void> {
    const connection = await amqp.connect(withHeartbeat(this.options.url), {
      clientProperties: { connection_name: `smsgw ${this.options.namespace} pid ${process.pid}` },
      timeout: this.options.connectTimeoutMs ?? 10_000,
    });
    connection.on('error', (err: Error) => this.logger.warn({ err }, 'AMQP connection error'));
    connection.on('close', () => this.lost(connection));
    connection.on('blocked', (reason: unknown) => {
      this.blocked = true;
      this.logger.warn(
        { reason },
        'RabbitMQ blocked this connection (resource alarm); publishes wait',
      );
    });
    connection.on('unblocked', () => {
      this.blocked = false;
      this.logger.info('RabbitMQ unblocked this connection');
    });
    try {
      const publisher = await connection.createConfirmChannel();
      publisher.on('error', (err: Error) =>
        this.logger.warn({ err }, 'AMQP publish channel error'),
      );
      publisher.on('return', (msg: ConsumeMessage) => {
        const id = msg.properties.messageId as unknown;
        if (typeof id === 'string') this.returned.add(id);
      });
      publisher.on('close', () => {
        // Closed by the broker, not by us: the connection is suspect; start over (reconnect).
        if (this.publisher === publisher && !this.closing)
          void connection.close().catch(() => undefined);
      });
      await publisher.assertExchange(this.events, 'topic', { durable: true });
      await publisher.assertExchange(this.retries, 'direct', { durable: true });
      for (const topic of Object.values(BROADCASTS))
        await publisher.assertExchange(this.broadcastExchange(topic), 'fanout', { durable: true });
      if (this.closing) throw new BusUnavailableError('AMQP bus was closed while connecting');
      this.connection = connection;
      this.publisher = publisher;
      this.blocked = false;
      this.reconnectAttempt = 0;
      for (const spec of this.consumers) {
        // One consumer that cannot start (say, its queue was redeclared with other arguments)
        // must not keep the whole bus disconnected: it retries on its own backoff.
        await this.ensureConsumer(spec).catch((err: unknown) => {
          this.logger.error({ err, queue: spec.queue }, 'could not restart the consumer');
          this.scheduleConsumerRestart(spec);
        });
      }
      for (const spec of this.subscriptions) {
        await this.ensureSubscription(spec).catch((err: unknown) => {
          this.logger.error({ err, topic: spec.topic }, 'could not restart the subscription');
          this.scheduleSubscriptionRestart(spec);
        });
      }
    } catch (err) {
      // Leave nothing half-open behind; `lost` schedules the next attempt if this one was current.
      await connection.close().catch(() => undefined);
      throw err;
    }
  }

  private lost(connection: ChannelModel): void {
    if (this.connection !== connection) return;
    this.connection = undefined;
    this.publisher = undefined;
    this.returned.clear();
    for (const spec of this.consumers) {
      spec.channel = undefined;
      spec.tag = undefined;
    }
    for (const spec of this.subscriptions) {
      spec.channel = undefined;
      spec.gap = true;
    }
    if (this.closing) return;
    this.logger.warn('AMQP connection lost; reconnecting');
    this.scheduleReconnect();
  }

  private backoff(attempt: number): number {
    const base = Math.min(
      this.options.maxReconnectDelayMs ?? 30_000,
      250 * 2 ** Math.min(attempt, 16),
    );
    return base / 2 + Math.random() * (base / 2);
  }

  private scheduleReconnect(): void {
    if (this.closing || this.reconnectTimer) return;
    const delay = this.backoff(this.reconnectAttempt++);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.closing) return;
      this.openOnce().then(
        () => this.logger.info('AMQP connection re-established'),
        (err: unknown) => {
          this.logger.warn({ err, attempt: this.reconnectAttempt }, 'AMQP reconnect failed');
          this.scheduleReconnect();
        },
      );
    }, delay);
    this.reconnectTimer.unref();
  }

  private requireConnection(): ChannelModel {
    if (this.closing) throw new BusUnavailableError('AMQP bus is closed');
    if (!this.connection)
      throw new BusUnavailableError('AMQP bus is not connected to RabbitMQ (reconnecting)');
    return this.connection;
  }

  private requirePublisher(): ConfirmChannel {
    this.requireConnection();
    if (!this.publisher)
      throw new BusUnavailableError('AMQP bus is not connected to RabbitMQ (reconnecting)');
    return this.publisher;
  }

  /** Runs `fn` on a short-lived channel: a broker error there (404, 406) cannot hurt the others. */
  private async withChannel<R>(fn: (channel: Channel) => Promise<R>): Promise<R> {
    const channel = await this.requireConnection().createChannel();
    channel.on('error', () => undefined); // surfaces as the rejection of the operation
    try {
      return await fn(channel);
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  // ---- topology ----

  private async assertTopology(
    channel: Channel,
    queue: string,
    bindingKey: string,
    retryDelaysMs: number[],
  ): Promise<void> {
    const name = this.queueName(queue);
    const dead = this.deadQueue(queue);
    this.remember(name, dead);
    await channel.assertQueue(dead, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await channel.assertQueue(name, {
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        'x-delivery-limit': AMQP_DELIVERY_LIMIT,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': dead,
      },
    });
    await channel.bindQueue(name, this.events, bindingKey);
    await channel.bindQueue(name, this.retries, name);
    for (const delay of new Set(retryDelaysMs)) {
      const delayQueue = this.delayQueue(queue, delay);
      this.remember(delayQueue);
      await channel.assertQueue(delayQueue, {
        durable: true,
        arguments: {
          'x-queue-type': 'quorum',
          'x-message-ttl': delay,
          'x-dead-letter-exchange': this.retries,
          'x-dead-letter-routing-key': name,
          'x-dead-letter-strategy': 'at-least-once',
          'x-overflow': 'reject-publish',
        },
      });
    }
  }

  async declare<T extends Topic>(binding: QueueBinding<T>): Promise<void> {
    await this.withChannel((channel) =>
      this.assertTopology(channel, binding.queue, routingKey(binding.topic, binding.key), []),
    );
  }

  // ---- publishing ----

  /** Publishes (mandatory, persistent) and waits for the broker's confirm. */
  private send(
    exchange: string,
    routingKey: string,
    body: Buffer,
    properties: Partial<Options.Publish> = {},
  ): Promise<void> {
    let channel: ConfirmChannel;
    try {
      channel = this.requirePublisher();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const messageId = properties.messageId ?? randomUUID();
    const timeoutMs = this.options.publishTimeoutMs ?? 30_000;
    const sent = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new BusUnavailableError(
            `RabbitMQ did not confirm the message within ${timeoutMs} ms${this.blocked ? ' (connection blocked by a resource alarm)' : ''}`,
          ),
        );
      }, timeoutMs);
      timer.unref();
      const done = (err: unknown) => {
        clearTimeout(timer);
        const returned = this.returned.delete(messageId);
        if (err)
          reject(
            err instanceof Error
              ? err
              : new Error(`RabbitMQ did not store the message: ${JSON.stringify(err)}`),
          );
        else if (returned)
          reject(
            new UnroutableMessageError(
              `no queue is bound to ${exchange || 'queue'} ${routingKey} in namespace ${this.options.namespace}; the message was not stored`,
            ),
          );
        else resolve();
      };
      try {
        channel.publish(
          exchange,
          routingKey,
          body,
          {
            persistent: true,
            mandatory: true,
            contentType: 'application/json',
            timestamp: Math.floor(Date.now() / 1000),
            ...properties,
            messageId,
          },
          done,
        );
        this.cork.hold(this.socket());
      } catch (err) {
        done(err); // channel closed under us
      }
    });
    const tracked = sent
      .catch(() => undefined)
      .finally(() => this.pendingPublishes.delete(tracked));
    this.pendingPublishes.add(tracked);
    return sent;
  }

  /** The connection's socket (an amqplib internal; without it publishes are just not corked). */
  private socket(): Corkable | undefined {
    const stream = (this.connection as { connection?: { stream?: Partial<Corkable> } } | undefined)
      ?.connection?.stream;
    return typeof stream?.cork === 'function' && typeof stream.uncork === 'function'
      ? (stream as Corkable)
      : undefined;
  }

  async publish<T extends Topic>(topic: T, payload: BusPayload<T>, key?: string): Promise<void> {
    const parsed: unknown = BUS_SCHEMAS[topic].parse(payload);
    await this.send(this.events, routingKey(topic, key), Buffer.from(JSON.stringify(parsed)));
  }

  async broadcast<T extends Broadcast>(topic: T, payload: BroadcastPayload<T>): Promise<void> {
    const parsed: unknown = BROADCAST_SCHEMAS[topic].parse(payload);
    await this.send(this.broadcastExchange(topic), '', Buffer.from(JSON.stringify(parsed)), {
      mandatory: false,
      persistent: false,
    });
  }

  // ---- broadcast subscriptions ----

  async subscribe<T extends Broadcast>(topic: T, subscriber: Subscriber<T>): Promise<Consumer> {
    this.requirePublisher();
    const spec: SubscriptionSpec = {
      topic,
      subscriber,
      restartAttempt: 0,
      gap: false,
      cancelled: false,
    };
    this.subscriptions.add(spec);
    try {
      await this.ensureSubscription(spec);
    } catch (err) {
      this.subscriptions.delete(spec);
      spec.cancelled = true;
      throw err;
    }
    return {
      cancel: async () => {
        spec.cancelled = true;
        this.subscriptions.delete(spec);
        clearTimeout(spec.restartTimer);
        await spec.starting?.catch(() => undefined);
        const channel = spec.channel;
        spec.channel = undefined;
        if (channel) await bounded(channel.close());
      },
    };
  }

  private ensureSubscription(spec: SubscriptionSpec): Promise<void> {
    if (spec.cancelled || this.closing || spec.channel) return Promise.resolve();
    spec.starting ??= this.startSubscription(spec).finally(() => (spec.starting = undefined));
    return spec.starting;
  }

  private async startSubscription(spec: SubscriptionSpec): Promise<void> {
    const { topic } = spec;
    const channel = await this.requireConnection().createChannel();
    channel.on('error', (err: Error) =>
      this.logger.warn({ err, topic }, 'AMQP subscription channel error'),
    );
    channel.on('close', () => {
      if (spec.channel !== channel) return;
      spec.channel = undefined;
      spec.gap = true;
      if (!spec.cancelled && !this.closing) this.scheduleSubscriptionRestart(spec);
    });
    try {
      const { queue } = await channel.assertQueue('', {
        exclusive: true,
        autoDelete: true,
        durable: false,
      });
      await channel.bindQueue(queue, this.broadcastExchange(topic), '');
      if (spec.cancelled || this.closing) {
        await channel.close().catch(() => undefined);
        return;
      }
      spec.channel = channel;
      await channel.consume(
        queue,
        (msg) => {
          if (!msg) {
            void channel.close().catch(() => undefined);
            return;
          }
          let payload: BroadcastPayload<Broadcast>;
          try {
            payload = BROADCAST_SCHEMAS[topic].parse(JSON.parse(msg.content.toString('utf8')));
          } catch (err) {
            this.logger.error({ err, topic }, 'invalid broadcast; ignored');
            return;
          }
          try {
            spec.subscriber.onMessage(payload);
          } catch (err) {
            this.logger.error({ err, topic }, 'broadcast subscriber failed');
          }
        },
        { noAck: true },
      );
      spec.restartAttempt = 0;
      if (spec.gap) {
        spec.gap = false;
        spec.subscriber.onGap?.();
      }
    } catch (err) {
      if (spec.channel === channel) spec.channel = undefined;
      await channel.close().catch(() => undefined);
      throw err;
    }
  }

  private scheduleSubscriptionRestart(spec: SubscriptionSpec): void {
    if (spec.restartTimer) return;
    spec.restartTimer = setTimeout(() => {
      spec.restartTimer = undefined;
      if (!this.connection) return; // the connection-level reconnect takes care of it
      this.ensureSubscription(spec).catch((err: unknown) => {
        this.logger.warn({ err, topic: spec.topic }, 'could not restart the subscription');
        if (!spec.cancelled && !this.closing) this.scheduleSubscriptionRestart(spec);
      });
    }, this.backoff(spec.restartAttempt++));
    spec.restartTimer.unref();
  }

  // ---- consuming ----

  async consume<T extends Topic>(
    options: ConsumeOptions<T>,
    handler: Handler<T>,
  ): Promise<Consumer> {
    this.requirePublisher();
    const prefetch = Math.max(1, Math.floor(options.prefetch ?? DEFAULT_PREFETCH));
    const retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    if (retryDelaysMs.some((d) => !Number.isInteger(d) || d < 0))
      throw new Error('retryDelaysMs must be non-negative integers');
    const spec: ConsumerSpec = {
      queue: options.queue,
      topic: options.topic,
      ...(options.key !== undefined && { key: options.key }),
      prefetch,
      retryDelaysMs,
      handler: handler,
      restartAttempt: 0,
      inFlight: new Set(),
      cancelled: false,
    };
    this.consumers.add(spec);
    try {
      await this.ensureConsumer(spec);
    } catch (err) {
      this.consumers.delete(spec);
      spec.cancelled = true;
      throw err;
    }
    let cancelling: Promise<void> | undefined;
    return { cancel: () => (cancelling ??= this.cancel(spec)) };
  }

  /** Starts the consumer's channel unless it runs or is starting. */
  private ensureConsumer(spec: ConsumerSpec): Promise<void> {
    if (spec.cancelled || this.closing || spec.channel) return Promise.resolve();
    spec.starting ??= this.startConsumer(spec).finally(() => (spec.starting = undefined));
    return spec.starting;
  }

  private async startConsumer(spec: ConsumerSpec): Promise<void> {
    const { queue } = spec;
    const channel = await this.requireConnection().createChannel();
    let open = true;
    channel.on('error', (err: Error) =>
      this.logger.warn({ err, queue }, 'AMQP consumer channel error'),
    );
    channel.on('close', () => {
      open = false;
      if (spec.channel !== channel) return;
      spec.channel = undefined;
      spec.tag = undefined;
      // If the whole connection went down, the reconnect restarts every consumer; otherwise
      // (the broker closed just this channel) restart this one on its own backoff.
      if (!spec.cancelled && !this.closing) this.scheduleConsumerRestart(spec);
    });
    const isOpen = () => open;
    try {
      await this.assertTopology(
        channel,
        queue,
        routingKey(spec.topic, spec.key),
        spec.retryDelaysMs,
      );
      await channel.prefetch(spec.prefetch);
      if (spec.cancelled || this.closing) {
        await channel.close().catch(() => undefined);
        return;
      }
      spec.channel = channel;
      const { consumerTag } = await channel.consume(this.queueName(queue), (msg) => {
        if (!msg) {
          // The broker cancelled us (queue deleted, or a node went away): start over on a fresh
          // channel.
          this.logger.warn({ queue }, 'RabbitMQ cancelled the consumer; restarting it');
          void channel.close().catch(() => undefined);
          return;
        }
        const run: Promise<void> = this.handle(spec, channel, isOpen, msg)
          .catch((err: unknown) =>
            this.logger.error({ err, queue }, 'bus delivery failed unexpectedly'),
          )
          .finally(() => spec.inFlight.delete(run));
        spec.inFlight.add(run);
      });
      spec.tag = consumerTag;
      spec.restartAttempt = 0;
    } catch (err) {
      if (spec.channel === channel) spec.channel = undefined;
      await channel.close().catch(() => undefined);
      throw err;
    }
  }

  private scheduleConsumerRestart(spec: ConsumerSpec): void {
    if (spec.restartTimer) return;
    spec.restartTimer = setTimeout(() => {
      spec.restartTimer = undefined;
      if (!this.connection) return; // the connection-level reconnect takes care of it
      this.ensureConsumer(spec).catch((err: unknown) => {
        this.logger.warn({ err, queue: spec.queue }, 'could not restart the consumer');
        if (!spec.cancelled && !this.closing) this.scheduleConsumerRestart(spec);
      });
    }, this.backoff(spec.restartAttempt++));
    spec.restartTimer.unref();
  }

  private async handle(
    spec: ConsumerSpec,
    channel: Channel,
    isOpen: () => boolean,
    msg: ConsumeMessage,
  ): Promise<void> {
    const { queue, topic, retryDelaysMs } = spec;
    const headers = (msg.properties.headers ?? {}) as Record<string, unknown>;
    const rawAttempt = Number(headers[ATTEMPT_HEADER] ?? 1);
    const attempt = Number.isInteger(rawAttempt) && rawAttempt >= 1 ? rawAttempt : 1;
    const { timestamp } = msg.properties as { timestamp?: unknown };
    // publish() stamps whole seconds; so is the lag measured, or it would read up to 1 s high.
    if (typeof timestamp === 'number')
      this.lag.taken(queue, timestamp * 1000, attempt, Math.floor(Date.now() / 1000) * 1000);
    let payload: unknown;
    try {
      payload = BUS_SCHEMAS[topic].parse(JSON.parse(msg.content.toString('utf8')));
    } catch (err) {
      this.logger.error(
        { err, queue, messageId: msg.properties.messageId },
        'invalid bus message; dead-lettered',
      );
      await this.move(channel, isOpen, msg, this.deadQueue(queue), {
        attempt,
        reason: 'invalid',
        error: err,
      });
      return;
    }
    let failure: unknown;
    let failed = false;
    try {
      await spec.handler(payload as BusPayload<Topic>, {
        attempt,
        redelivered: msg.fields.redelivered,
      });
    } catch (err) {
      failed = true;
      failure = err;
    }
    if (!failed) {
      this.ack(channel, msg, queue);
      return;
    }
    if (!isOpen()) {
      // The broker has put the message back already (unacked on a closed channel): it comes
      // again with `redelivered`, so scheduling a retry too would only duplicate it.
      this.logger.warn(
        { err: failure, queue, attempt },
        'handler failed after the channel closed; the broker redelivers',
      );
      return;
    }
    const delay = retryDelaysMs[attempt - 1];
    if (failure instanceof PoisonMessageError || delay === undefined) {
      const reason = failure instanceof PoisonMessageError ? 'poison' : 'retries-exhausted';
      this.logger.warn(
        { err: failure, queue, attempt, reason, messageId: msg.properties.messageId },
        'bus message dead-lettered',
      );
      await this.move(channel, isOpen, msg, this.deadQueue(queue), {
        attempt,
        reason,
        error: failure,
      });
    } else {
      this.logger.debug({ err: failure, queue, attempt, delay }, 'bus message will be retried');
      await this.move(channel, isOpen, msg, this.delayQueue(queue, delay), {
        attempt: attempt + 1,
        error: failure,
      });
    }
  }

  private ack(channel: Channel, msg: ConsumeMessage, queue: string): void {
    try {
      channel.ack(msg);
    } catch (err) {
      // The channel is gone: the broker redelivers the message (consumers are idempotent).
      this.logger.warn({ err, queue }, 'could not ack; the broker will redeliver the message');
    }
  }

  /**
   * Copies a message to another queue with confirm, then acks the original: duplicates, never
   * loses.
   */
  private async move(
    channel: Channel,
    isOpen: () => boolean,
    msg: ConsumeMessage,
    target: string,
    meta: { attempt: number; reason?: string; error: unknown },
  ): Promise<void> {
    const headers: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(msg.properties.headers ?? {})) {
      if (!BROKER_HEADERS.test(key)) headers[key] = value;
    }
    headers[ATTEMPT_HEADER] = meta.attempt;
    headers[LAST_ERROR_HEADER] = (
      meta.error instanceof Error ? meta.error.message : String(meta.error)
    ).slice(0, 1000);
    if (meta.reason) headers[DEAD_REASON_HEADER] = meta.reason;
    const { messageId, timestamp } = msg.properties as { messageId?: unknown; timestamp?: unknown };
    try {
      await this.send('', target, msg.content, {
        headers,
        ...(typeof messageId === 'string' ? { messageId } : {}),
        ...(typeof timestamp === 'number' ? { timestamp } : {}),
      });
    } catch (err) {
      this.logger.warn({ err, target }, 'could not move the bus message; it returns to its queue');
      if (isOpen()) {
        try {
          channel.nack(msg, false, true);
        } catch {
          // closed meanwhile: the broker requeues unacked messages itself
        }
      }
      return;
    }
    this.ack(channel, msg, target);
  }

  private async cancel(spec: ConsumerSpec): Promise<void> {
    spec.cancelled = true;
    this.consumers.delete(spec);
    clearTimeout(spec.restartTimer);
    spec.restartTimer = undefined;
    await spec.starting?.catch(() => undefined);
    const channel = spec.channel;
    if (channel && spec.tag) await bounded(channel.cancel(spec.tag));
    await Promise.allSettled([...spec.inFlight]);
    spec.channel = undefined;
    if (channel) await bounded(channel.close());
  }

  // ---- operations ----

  async queueDepth(queue: string): Promise<number> {
    try {
      return await this.withChannel(
        async (channel) => (await channel.checkQueue(this.queueName(queue))).messageCount,
      );
    } catch (err) {
      if ((err as { code?: unknown }).code === 404) return 0;
      throw err;
    }
  }

  consumerLagSeconds(queue: string): number {
    return this.lag.seconds(queue);
  }

  async deadLetterCount(queue: string): Promise<number> {
    try {
      return await this.withChannel(
        async (channel) => (await channel.checkQueue(this.deadQueue(queue))).messageCount,
      );
    } catch (err) {
      if ((err as { code?: unknown }).code === 404) return 0; // never declared: nothing parked
      throw err;
    }
  }

  isReady(): boolean {
    return this.publisher !== undefined && !this.closing && !this.blocked;
  }

  /**
   * Deletes the namespace's exchanges and queues (tests: each run uses its own namespace): every
   * queue any AmqpBus of this process declared in it, plus the base queue names given (with
   * their dead-letter queue and the delay queues of `retryDelaysMs`).
   */
  async deleteNamespace(queues: { queue: string; retryDelaysMs?: number[] }[] = []): Promise<void> {
    const names = new Set(declaredNames.get(this.options.namespace) ?? []);
    for (const { queue, retryDelaysMs = [] } of queues) {
      names.add(this.queueName(queue));
      names.add(this.deadQueue(queue));
      for (const delay of retryDelaysMs) names.add(this.delayQueue(queue, delay));
    }
    await this.withChannel(async (channel) => {
      for (const name of names) await channel.deleteQueue(name);
      await channel.deleteExchange(this.events);
      await channel.deleteExchange(this.retries);
      for (const topic of Object.values(BROADCASTS))
        await channel.deleteExchange(this.broadcastExchange(topic));
    });
    declaredNames.delete(this.options.namespace);
  }

  /** Cancels the consumers, waits for their handlers and pending confirms, then disconnects. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    await Promise.allSettled([...this.consumers].map((spec) => this.cancel(spec)));
    for (const spec of this.subscriptions) {
      spec.cancelled = true;
      clearTimeout(spec.restartTimer);
    }
    this.subscriptions.clear();
    await Promise.race([Promise.allSettled([...this.pendingPublishes]), sleep(5000)]);
    await this.opening?.catch(() => undefined);
    const connection = this.connection;
    this.connection = undefined;
    this.publisher = undefined;
    if (connection) await bounded(connection.close());
  }
}
