import { Gauge, type Registry } from 'prom-client';
import type { Bus } from './bus/bus';

/** A broker answer serves the depth and lag gauges of one scrape instead of one each. */
const DEPTH_READ_REUSE_MS = 1000;

class QueueWatch {
  readonly queues = new Map<string, Bus>();
  private read: { at: number; depths: Promise<Map<string, number>> } | undefined;

  /** Depth per queue; NaN where the broker did not answer. */
  depths(): Promise<Map<string, number>> {
    if (!this.read || Date.now() - this.read.at > DEPTH_READ_REUSE_MS) {
      const entries = [...this.queues].map(
        async ([queue, bus]) => [queue, await bus.queueDepth(queue).catch(() => NaN)] as const,
      );
      this.read = { at: Date.now(), depths: Promise.all(entries).then((pairs) => new Map(pairs)) };
    }
    return this.read.depths;
  }
}

/** In embedded mode every service registers its queues on the one shared registry. */
const watches = new WeakMap<Registry, QueueWatch>();

/**
 * `smsgw_queue_depth` and `smsgw_queue_lag_seconds` (docs/metrics.md) for the queues the calling
 * service consumes, read at scrape time. Each service calls it for its own queues.
 */
export function exportQueueMetrics(registry: Registry, bus: Bus, queues: readonly string[]): void {
  let watch = watches.get(registry);
  if (!watch) {
    watch = new QueueWatch();
    watches.set(registry, watch);
    registerGauges(registry, watch);
  }
  for (const queue of queues) watch.queues.set(queue, bus);
}

function registerGauges(registry: Registry, watch: QueueWatch): void {
  new Gauge({
    name: 'smsgw_queue_depth',
    help: 'Jobs waiting in a consumer queue, not yet delivered to a consumer',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      for (const [queue, depth] of await watch.depths()) this.set({ queue }, depth);
    },
  });
  new Gauge({
    name: 'smsgw_queue_lag_seconds',
    help: 'How long the job this process last took from the queue had waited in it; 0 while the queue is empty',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      // A lag read before an idle spell would otherwise stay up until the next job comes.
      for (const [queue, depth] of await watch.depths())
        this.set({ queue }, depth === 0 ? 0 : watch.queues.get(queue)!.consumerLagSeconds(queue));
    },
  });
}
