import { QUEUES } from '@smsgw/contracts';
import { AmqpBus } from '../bus/amqp-bus';
import { DEFAULT_RETRY_DELAYS_MS } from '../bus/bus';
import { createLogger } from '../logger';

/**
 * Deletes a namespace's queues (with their retry and dead-letter queues) and exchanges after a test
 * or benchmark run: queues outlive the processes that declared them, and a broker holds only a few
 * hundred. `retryDelays` names consumers whose delays differ from the default.
 */
export async function deleteBusNamespace(
  amqpUrl: string,
  namespace: string,
  retryDelays: Record<string, number[]> = {},
): Promise<void> {
  const bus = await AmqpBus.connect({
    url: amqpUrl,
    namespace,
    logger: createLogger('cleanup', 'silent'),
  });
  try {
    await bus.deleteNamespace(
      Object.values(QUEUES).map((queue) => ({
        queue,
        retryDelaysMs: [...new Set([...DEFAULT_RETRY_DELAYS_MS, ...(retryDelays[queue] ?? [])])],
      })),
    );
  } finally {
    await bus.close();
  }
}
