import type { Logger } from '../logger';
import { AmqpBus } from './amqp-bus';
import type { Bus } from './bus';
import { MemoryBus } from './memory-bus';

export interface OpenBusOptions {
  /** RabbitMQ URL; unset or empty: the in-process bus of embedded mode. */
  amqpUrl?: string | undefined;
  /** Prefix of the exchanges and queues on the broker. */
  namespace: string;
  logger: Logger;
  /** Upper bound of the back-off between reconnections to RabbitMQ (AmqpBus's default if unset). */
  maxReconnectDelayMs?: number | undefined;
}

/** RabbitMQ when AMQP_URL is set, else the in-process bus (docs/architecture.md § The parts). */
export async function openBus(options: OpenBusOptions): Promise<Bus> {
  if (options.amqpUrl) {
    const bus = await AmqpBus.connect({
      url: options.amqpUrl,
      namespace: options.namespace,
      logger: options.logger,
      ...(options.maxReconnectDelayMs !== undefined && {
        maxReconnectDelayMs: options.maxReconnectDelayMs,
      }),
    });
    options.logger.info({ namespace: options.namespace }, 'connected to RabbitMQ');
    return bus;
  }
  options.logger.info('AMQP_URL unset: using the in-process bus');
  return new MemoryBus({ logger: options.logger });
}
