import { QUEUES, TOPICS, connectorQueue } from '@smsgw/contracts';
import { hostname } from 'node:os';
import type { Db, Logger, SecretBox } from '@smsgw/kit';
import {
  clearConnectorStatus,
  deleteStaleConnectorStatus,
  listConnectors,
  reportConnectorStatus,
} from '@smsgw/store';
import { ConnectorLane, type LaneDeps, type LaneOptions } from './connector-lane';
import type { ConnectorConfig } from './open-connector';

/** Reports a status row may miss before it counts as a dead dispatcher's. */
const STALE_REPORTS = 10;

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
  /** Connectors whose queues this dispatcher has declared. */
  private readonly declared = new Set<string>();
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;
  readonly holder: string;

  constructor(
    private readonly db: Db,
    /** Opens the connectors' sealed passwords. */
    private readonly secrets: SecretBox,
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
    const rows = await listConnectors(this.db, this.secrets);
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.name);
      await this.declare(row.name);
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

  /**
   * A connector's queues exist from the moment a dispatcher sees it, lease or not: jobs published
   * before any dispatcher holds its binds (at start, or while it is stopped) wait in them instead
   * of failing as unroutable.
   */
  private async declare(name: string): Promise<void> {
    if (this.declared.has(name)) return;
    for (const [queue, topic] of [
      [QUEUES.dispatcherSubmit, TOPICS.messageSubmit],
      [QUEUES.dispatcherSubmitGroup, TOPICS.messageSubmitGroup],
    ] as const)
      await this.deps.bus.declare({ queue: connectorQueue(queue, name), topic, key: name });
    this.declared.add(name);
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
    // A dispatcher that died without clearing its rows left them behind; any other removes them
    // once they are ten reports old, so the admin API never sums a dead process's sessions.
    await deleteStaleConnectorStatus(this.db, (STALE_REPORTS * this.options.statusEveryMs) / 1000);
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
