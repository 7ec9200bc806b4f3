import type { Logger } from '@smsgw/kit';
import type { RateCap, RateLimiter } from './rate-limiter';

export interface GateMetrics {
  waitSeconds: { observe(value: number): void };
  paused: { set(value: number): void };
}

/**
 * Holds each submission until the connector's and the account's cluster-wide caps allow it. When
 * the shared state cannot be reached, it waits for it (dispatch pauses) instead of running
 * uncapped (docs/architecture.md § Throughput caps).
 */
export class ThroughputGate {
  private pausedSince: number | undefined;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly logger: Logger,
    private readonly metrics: GateMetrics,
    private readonly connectorCap: RateCap | undefined,
  ) {}

  async pass(
    accountCap: RateCap | undefined,
    cost: number,
    stopped: () => boolean = () => false,
  ): Promise<void> {
    const caps = [this.connectorCap, accountCap].filter(
      (c): c is RateCap => c !== undefined && c.perSecond > 0,
    );
    if (caps.length === 0) return;
    for (let attempt = 0; !stopped(); attempt++) {
      try {
        const wait = await this.limiter.reserve(caps, cost);
        this.resumed();
        this.metrics.waitSeconds.observe(wait / 1000);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        return;
      } catch (err) {
        if (this.pausedSince === undefined) {
          this.pausedSince = Date.now();
          this.metrics.paused.set(1);
          this.logger.warn(
            { err },
            'throughput state unreachable; dispatch paused until it answers',
          );
        }
        await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** Math.min(attempt, 5))));
      }
    }
  }

  private resumed(): void {
    if (this.pausedSince === undefined) return;
    this.logger.info(
      { pausedMs: Date.now() - this.pausedSince },
      'throughput state reachable again; dispatch resumed',
    );
    this.pausedSince = undefined;
    this.metrics.paused.set(0);
  }

  isPaused(): boolean {
    return this.pausedSince !== undefined;
  }
}
