import {
  BROADCAST_SCHEMAS,
  BUS_SCHEMAS,
  type Broadcast,
  type BroadcastPayload,
  type BusPayload,
  type Topic,
} from '@smsgw/contracts';
import type { Logger } from '../logger';
import { ConsumerLag } from './consumer-lag';
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

const DEFAULT_PREFETCH = 16;

interface Envelope {
  payload: unknown;
  attempt: number;
  /** When it was first published (epoch ms), for the consumer lag. */
  publishedAt: number;
}

export interface DeadLetter {
  payload: unknown;
  attempt: number;
  reason: 'poison' | 'retries-exhausted';
  error: string;
}

interface MemoryConsumer {
  handler: Handler<Topic>;
  prefetch: number;
  retryDelaysMs: number[];
  inFlight: Set<Promise<void>>;
}

interface QueueState {
  name: string;
  topic: Topic;
  /** What it is bound to: the topic, or `topic.key`. */
  bindingKey: string;
  ready: Envelope[];
  dead: DeadLetter[];
  /** Competing consumers, served round-robin within their prefetch. */
  consumers: MemoryConsumer[];
  next: number;
  pumpScheduled: boolean;
}

export interface MemoryBusOptions {
  logger?: Logger;
}

/**
 * The in-process bus of embedded mode, with the AMQP bus's semantics: a topic fans out to every
 * queue bound to it, each queue is FIFO with competing consumers, prefetch bounds the handlers
 * running at once, a failing handler is retried after the same delays (attempt 2, 3, …), then
 * dead-lettered; PoisonMessageError dead-letters at once. Payloads are validated on publish and
 * each delivery gets its own copy, as a serialized message would.
 *
 * It keeps nothing across a restart: in embedded mode the dispatcher's recovery sweep re-publishes
 * from Postgres at start (docs/architecture.md § The parts). Handlers start asynchronously, never
 * inside `publish`.
 */
export class MemoryBus implements Bus {
  private readonly queues = new Map<string, QueueState>();
  /**
   * Messages of a topic no queue is bound to yet. In RabbitMQ a queue is declared by its service,
   * and a publish before that is refused (mandatory); in one process the services start in some
   * order, and the API may accept a message before the dispatcher has called `consume`. Rather
   * than drop those (or fail the request), the bus holds them per topic and hands them to the
   * first queue bound to the topic (by `declare` or `consume`). Later queues of the topic start
   * empty, as a newly declared AMQP queue would.
   */
  private readonly pending = new Map<string, Envelope[]>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly subscribers = new Map<Broadcast, Set<Subscriber<Broadcast>>>();
  private readonly lag = new ConsumerLag();
  private readonly logger: Logger | undefined;
  private closed = false;

  constructor(options: MemoryBusOptions = {}) {
    this.logger = options.logger;
  }

  declare<T extends Topic>(binding: QueueBinding<T>): Promise<void> {
    if (this.closed) return Promise.reject(new Error('bus is closed'));
    this.queueFor(binding.queue, binding.topic, binding.key);
    return Promise.resolve();
  }

  publish<T extends Topic>(topic: T, payload: BusPayload<T>, key?: string): Promise<void> {
    try {
      this.enqueue(topic, payload, key);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private enqueue<T extends Topic>(topic: T, payload: BusPayload<T>, key?: string): void {
    if (this.closed) throw new Error('bus is closed');
    const parsed: unknown = BUS_SCHEMAS[topic].parse(payload);
    const publishedAt = Date.now();
    const bindingKey = routingKey(topic, key);
    const bound = [...this.queues.values()].filter((q) => q.bindingKey === bindingKey);
    if (bound.length === 0) {
      const list = this.pending.get(bindingKey) ?? [];
      list.push({ payload: parsed, attempt: 1, publishedAt });
      this.pending.set(bindingKey, list);
      return;
    }
    for (const queue of bound) {
      queue.ready.push({ payload: parsed, attempt: 1, publishedAt });
      this.schedulePump(queue);
    }
  }

  consume<T extends Topic>(options: ConsumeOptions<T>, handler: Handler<T>): Promise<Consumer> {
    if (this.closed) return Promise.reject(new Error('bus is closed'));
    const retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    if (retryDelaysMs.some((d) => !Number.isInteger(d) || d < 0))
      return Promise.reject(new Error('retryDelaysMs must be non-negative integers'));
    const queue = this.queueFor(options.queue, options.topic, options.key);
    const consumer: MemoryConsumer = {
      handler: handler,
      prefetch: Math.max(1, Math.floor(options.prefetch ?? DEFAULT_PREFETCH)),
      retryDelaysMs,
      inFlight: new Set(),
    };
    queue.consumers.push(consumer);
    this.schedulePump(queue);
    let cancelling: Promise<void> | undefined;
    return Promise.resolve({
      cancel: () =>
        (cancelling ??= (async () => {
          const at = queue.consumers.indexOf(consumer);
          if (at >= 0) queue.consumers.splice(at, 1);
          await Promise.allSettled([...consumer.inFlight]);
        })()),
    });
  }

  broadcast<T extends Broadcast>(topic: T, payload: BroadcastPayload<T>): Promise<void> {
    if (this.closed) return Promise.reject(new Error('bus is closed'));
    let parsed: unknown;
    try {
      parsed = BROADCAST_SCHEMAS[topic].parse(payload);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    for (const subscriber of this.subscribers.get(topic) ?? []) {
      queueMicrotask(() => {
        if (this.closed) return;
        try {
          subscriber.onMessage(structuredClone(parsed) as BroadcastPayload<Broadcast>);
        } catch (err) {
          this.logger?.error({ err, topic }, 'broadcast subscriber failed');
        }
      });
    }
    return Promise.resolve();
  }

  subscribe<T extends Broadcast>(topic: T, subscriber: Subscriber<T>): Promise<Consumer> {
    if (this.closed) return Promise.reject(new Error('bus is closed'));
    let set = this.subscribers.get(topic);
    if (!set) this.subscribers.set(topic, (set = new Set()));
    const own = subscriber as Subscriber<Broadcast>;
    set.add(own);
    return Promise.resolve({
      cancel: () => {
        set.delete(own);
        return Promise.resolve();
      },
    });
  }

  queueDepth(queue: string): Promise<number> {
    return Promise.resolve(this.queues.get(queue)?.ready.length ?? 0);
  }

  consumerLagSeconds(queue: string): number {
    return this.lag.seconds(queue);
  }

  deadLetterCount(queue: string): Promise<number> {
    return Promise.resolve(this.queues.get(queue)?.dead.length ?? 0);
  }

  /** The dead letters of a queue, oldest first (tests and the embedded CLI). */
  deadLetters(queue: string): readonly DeadLetter[] {
    return this.queues.get(queue)?.dead ?? [];
  }

  isReady(): boolean {
    return !this.closed;
  }

  /** Stops deliveries, drops pending retries, waits for the handlers in progress. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const inFlight: Promise<void>[] = [];
    for (const queue of this.queues.values()) {
      for (const consumer of queue.consumers) inFlight.push(...consumer.inFlight);
      queue.consumers = [];
    }
    await Promise.allSettled(inFlight);
  }

  private queueFor(name: string, topic: Topic, key?: string): QueueState {
    const bindingKey = routingKey(topic, key);
    let queue = this.queues.get(name);
    if (queue) {
      if (queue.bindingKey !== bindingKey)
        throw new Error(`queue ${name} is bound to ${queue.bindingKey}, not ${bindingKey}`);
      return queue;
    }
    queue = {
      name,
      topic,
      bindingKey,
      ready: this.pending.get(bindingKey) ?? [],
      dead: [],
      consumers: [],
      next: 0,
      pumpScheduled: false,
    };
    this.pending.delete(bindingKey);
    this.queues.set(name, queue);
    return queue;
  }

  private schedulePump(queue: QueueState): void {
    if (queue.pumpScheduled) return;
    queue.pumpScheduled = true;
    queueMicrotask(() => {
      queue.pumpScheduled = false;
      this.pump(queue);
    });
  }

  /** Hands ready messages to consumers with room, round-robin. */
  private pump(queue: QueueState): void {
    while (!this.closed && queue.ready.length > 0) {
      const consumer = this.nextWithRoom(queue);
      if (!consumer) return;
      const envelope = queue.ready.shift()!;
      const run: Promise<void> = this.deliver(queue, consumer, envelope).finally(() => {
        consumer.inFlight.delete(run);
        this.schedulePump(queue);
      });
      consumer.inFlight.add(run);
    }
  }

  private nextWithRoom(queue: QueueState): MemoryConsumer | undefined {
    const n = queue.consumers.length;
    for (let i = 0; i < n; i++) {
      const consumer = queue.consumers[(queue.next + i) % n];
      if (consumer.inFlight.size < consumer.prefetch) {
        queue.next = (queue.next + i + 1) % n;
        return consumer;
      }
    }
    return undefined;
  }

  private async deliver(
    queue: QueueState,
    consumer: MemoryConsumer,
    envelope: Envelope,
  ): Promise<void> {
    this.lag.taken(queue.name, envelope.publishedAt, envelope.attempt);
    try {
      await consumer.handler(structuredClone(envelope.payload) as BusPayload<Topic>, {
        attempt: envelope.attempt,
        redelivered: false,
      });
    } catch (err) {
      const delay = consumer.retryDelaysMs[envelope.attempt - 1];
      const error = err instanceof Error ? err.message : String(err);
      if (err instanceof PoisonMessageError || delay === undefined) {
        const reason = err instanceof PoisonMessageError ? 'poison' : 'retries-exhausted';
        this.logger?.warn(
          { err, queue: queue.name, attempt: envelope.attempt, reason },
          'bus message dead-lettered',
        );
        queue.dead.push({ payload: envelope.payload, attempt: envelope.attempt, reason, error });
        return;
      }
      if (this.closed) return; // retries are not kept across a close; the recovery sweep re-publishes
      this.logger?.debug(
        { err, queue: queue.name, attempt: envelope.attempt, delay },
        'bus message will be retried',
      );
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        queue.ready.push({
          payload: envelope.payload,
          attempt: envelope.attempt + 1,
          publishedAt: envelope.publishedAt,
        });
        this.schedulePump(queue);
      }, delay);
      timer.unref();
      this.timers.add(timer);
    }
  }
}
