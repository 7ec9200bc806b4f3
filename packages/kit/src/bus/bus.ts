import type { Broadcast, BroadcastPayload, BusPayload, Topic } from '@smsgw/contracts';

export interface ConsumeOptions<T extends Topic> {
  /** The consumer's own queue (QUEUES in contracts). */
  queue: string;
  topic: T;
  /**
   * Binds the queue to `topic.key` instead of `topic`: one queue per connector for the same kind
   * of job (publish with the same key).
   */
  key?: string;
  /** How many deliveries may be in the handler at once. */
  prefetch?: number;
  /** Delay before each retry; its length is the number of retries before dead-lettering. */
  retryDelaysMs?: number[];
}

export interface DeliveryInfo {
  /** 1 on first delivery, then 2, 3, … for each retry through the delay queues. */
  attempt: number;
  /** The broker delivered it again after a consumer died without acking. */
  redelivered: boolean;
}

/** Resolve: ack. Throw: retry after the next delay, or dead-letter when retries are spent. */
export type Handler<T extends Topic> = (
  payload: BusPayload<T>,
  info: DeliveryInfo,
) => Promise<void> | void;

/** Thrown by a handler for a message no retry can help: it goes straight to the dead-letter queue. */
export class PoisonMessageError extends Error {
  override name = 'PoisonMessageError';
}

export interface Consumer {
  /** Stop taking deliveries and wait for the handlers in progress; unacked ones return to the queue. */
  cancel(): Promise<void>;
}

export interface QueueBinding<T extends Topic> {
  queue: string;
  topic: T;
  /** As ConsumeOptions.key. */
  key?: string;
}

/** The routing key of a topic published or bound with a key. */
export function routingKey(topic: Topic, key?: string): string {
  return key === undefined ? topic : `${topic}.${key}`;
}

/** Receives a broadcast in this process. */
export interface Subscriber<T extends Broadcast> {
  onMessage(payload: BroadcastPayload<T>): void;
  /**
   * Called when the subscription starts again after the broker connection was lost: broadcasts of
   * the time in between were missed, so whatever they would have invalidated must be dropped.
   */
  onGap?(): void;
}

export interface Bus {
  /** The queue exists and keeps its topic's messages from now on, whether or not anyone consumes yet. */
  declare<T extends Topic>(binding: QueueBinding<T>): Promise<void>;
  /**
   * Resolves once the broker has confirmed the message is stored; with `key`, only queues bound
   * with that key get it.
   */
  publish<T extends Topic>(topic: T, payload: BusPayload<T>, key?: string): Promise<void>;
  consume<T extends Topic>(options: ConsumeOptions<T>, handler: Handler<T>): Promise<Consumer>;
  /**
   * Hands the payload to every process subscribed to the broadcast now, once each; nothing is
   * stored for processes that are not (no subscriber is no error). Resolves once the broker has it.
   */
  broadcast<T extends Broadcast>(topic: T, payload: BroadcastPayload<T>): Promise<void>;
  /** This process receives the broadcast from now on, through a queue of its own that dies with it. */
  subscribe<T extends Broadcast>(topic: T, subscriber: Subscriber<T>): Promise<Consumer>;
  /** Messages waiting in a consumer's queue, not yet delivered (the queue-depth metric). */
  queueDepth(queue: string): Promise<number>;
  /**
   * How long the job this process last took from the queue had waited in it (first deliveries
   * only; 0 before any). RabbitMQ stamps messages in whole seconds, so there it is to the second.
   */
  consumerLagSeconds(queue: string): number;
  /** Messages parked in the consumer's dead-letter queue (for operators and tests). */
  deadLetterCount(queue: string): Promise<number>;
  /** True while the broker connection is usable (for /readyz). */
  isReady(): boolean;
  close(): Promise<void>;
}

export const DEFAULT_RETRY_DELAYS_MS = [1000, 5000, 30000, 120000];
