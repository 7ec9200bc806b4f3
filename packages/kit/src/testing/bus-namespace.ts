import { DEFAULT_CONNECTOR, QUEUES, connectorQueue } from '@smsgw/contracts';
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
  /** Connectors whose per-connector submit queues the run used (the default connector's always). */
  connectors: readonly string[] = [],
): Promise<void> {
  const perConnector = [DEFAULT_CONNECTOR, ...connectors].flatMap((connector) =>
    [QUEUES.dispatcherSubmit, QUEUES.dispatcherSubmitGroup].map((queue) => ({
      queue: connectorQueue(queue, connector),
      delays: retryDelays[queue] ?? [],
    })),
  );
  const bus = await AmqpBus.connect({
    url: amqpUrl,
    namespace,
    logger: createLogger('cleanup', 'silent'),
  });
  try {
    await bus.deleteNamespace([
      ...Object.values(QUEUES).map((queue) => ({
        queue,
        retryDelaysMs: [...new Set([...DEFAULT_RETRY_DELAYS_MS, ...(retryDelays[queue] ?? [])])],
      })),
      ...perConnector.map(({ queue, delays }) => ({
        queue,
        retryDelaysMs: [...new Set([...DEFAULT_RETRY_DELAYS_MS, ...delays])],
      })),
    ]);
  } finally {
    await bus.close();
  }
}
