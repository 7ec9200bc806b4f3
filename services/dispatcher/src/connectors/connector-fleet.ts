import { hostname } from 'node:os';
import type { Db, Logger } from '@smsgw/kit';
import { clearConnectorStatus, listConnectors, reportConnectorStatus } from '@smsgw/store';
import { ConnectorLane, type LaneDeps, type LaneOptions } from './connector-lane';
import type { ConnectorConfig } from './open-connector';

export interface FleetOptions extends Omit<LaneOptions, 'holder'> {
  /** How often the connectors table is read: a change takes effect within this long. */
  refreshMs: number;
  /** How often each lane renews its lease and reconciles its session. */
  tickMs: number;
  /** How often this dispatcher reports its connectors' status. */
  statusEveryMs: number;
  /** Told of each connector the first time this dispatcher sees it (its queue metrics). */
  onConnector?: (name: string) => void;
}

/** This dispatcher, as leases and status rows name it: unique across restarts and hosts. */
export function holderName(): string {
  return `${hostname()}:${process.pid}:${Date.now().toString(36)}`;
}

/**
 * Every connector of the `connectors` table, as a lane on this dispatcher: added, changed, stopped
 * or removed through the admin API, they follow within seconds, without a restart.
 */
export class ConnectorFleet {
  private readonly lanes = new Map<string, ConnectorLane>();
  private readonly configs = new Map<string, ConnectorConfig>();
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;
  readonly holder: string;

  constructor(
    private readonly db: Db,
    private readonly deps: LaneDeps,
    private readonly logger: Logger,
    private readonly options: FleetOptions,
    holder: string = holderName(),
  ) {
    this.holder = holder;
  }

  /** Reads the connectors (retrying while the database is away), then keeps them in step. */
  async start(): Promise<void> {
    await this.refresh();
    const every = (ms: number, run: () => Promise<void>, what: string): void => {
      const timer = setInterval(() => {
        if (this.stopped) return;
        run().catch((err: unknown) => this.logger.warn({ err }, `${what} failed; will try again`));
      }, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.options.refreshMs, () => this.refresh(), 'reading the connectors');
    every(this.options.tickMs, () => this.tick(), 'reconciling the connectors');
    every(this.options.statusEveryMs, () => this.report(), 'reporting the connectors');
    await this.tick();
  }

  /** Lanes for every connector in the table; lanes of removed connectors leave. */
  async refresh(): Promise<void> {
    const rows = await listConnectors(this.db);
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.name);
      this.configs.set(row.name, {
        name: row.name,
        url: row.url,
        binds: row.binds,
        bindMode: row.bind_mode,
        desiredState: row.desired_state,
      });
    }
    for (const [name, lane] of this.lanes) {
      if (seen.has(name)) continue;
      this.lanes.delete(name);
      this.configs.delete(name);
      this.logger.info({ connector: name }, 'connector removed');
      await lane.close();
    }
  }

  private tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    for (const [name, config] of this.configs) {
      let lane = this.lanes.get(name);
      if (!lane) {
        lane = new ConnectorLane(config, this.deps, { ...this.options, holder: this.holder });
        this.lanes.set(name, lane);
        this.options.onConnector?.(name);
      }
      // Each lane at its own pace: one waiting on its SMSC must not delay another's renewal.
      void lane.tick(config);
    }
    return Promise.resolve();
  }

  private async report(): Promise<void> {
    const held = [...this.lanes.values()].filter((l) => l.holdsLease);
    await reportConnectorStatus(
      this.db,
      this.holder,
      held.map((l) => l.status()),
    );
  }

  /** The lanes, for metrics and readiness. */
  all(): ConnectorLane[] {
    return [...this.lanes.values()];
  }

  /** Ready while every connector this dispatcher holds and runs is bound. */
  allUp(): boolean {
    return this.all().every((l) => !l.holdsLease || l.isStopped || l.isUp);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    await Promise.all(this.all().map((l) => l.close()));
    await clearConnectorStatus(this.db, this.holder).catch((err: unknown) =>
      this.logger.warn({ err }, 'could not clear the connectors status'),
    );
  }
}
