import {
  QUEUES,
  TOPICS,
  connectorQueue,
  type MessageSubmitGroupJob,
  type MessageSubmitJob,
} from '@smsgw/contracts';
import type { Bus, Consumer, Db, DeliveryInfo, Logger } from '@smsgw/kit';
import { failOverWaiting, waitingForConnector, type ConnectorStatusReport } from '@smsgw/store';
import { publishSubmitJobs } from '../submit-jobs';
import type { BindLeases } from './bind-leases';
import type { ConnectorConfig } from './open-connector';
import type { ConnectorSession } from './connector-session';
import { RateMeter } from './rate-meter';
import type { DispatcherMetrics } from '../metrics';

export interface LaneOptions {
  /** This dispatcher, as its leases and status rows name it. */
  holder: string;
  leaseTtlMs: number;
  /** A connector down this long passes the waiting messages of failover routes on. */
  failoverAfterMs: number;
  retryDelaysMs: number[];
  prefetch: {
    perWindowPlace: number;
    typicalGroupJob: number;
    minGroupJobs: number;
    heldWindow: number;
  };
}

export interface LaneDeps {
  db: Db;
  bus: Bus;
  leases: BindLeases;
  logger: Logger;
  metrics: DispatcherMetrics;
  /** Opens one session of the connector: its link, dispatcher, receipts and inbound. */
  openSession(config: ConnectorConfig): ConnectorSession;
}

/** How far back the rate in the status looks. */
const RATE_SPAN_MS = 5000;

/** What the admin API shows of this dispatcher's part of a connector. */
export type LaneStatus = ConnectorStatusReport;

/**
 * One connector on this dispatcher. It takes part only while it holds one of the connector's bind
 * leases: then it consumes the connector's queues and, unless an operator stopped the connector,
 * keeps a session open. Without a lease it holds nothing and consumes nothing, so a connector never
 * has more sessions than `binds` across the cluster. A stopped or long-down connector passes the
 * waiting messages of failover routes to their next connector; the others wait for it.
 */
export class ConnectorLane {
  private slot: number | undefined;
  private lastRenewal = 0;
  private session: ConnectorSession | undefined;
  private consumers: Consumer[] = [];
  /** The window the consumers' prefetch was sized for. */
  private consumedFor: number | undefined;
  private downSince: Date | null = null;
  private upSince: Date | null = null;
  private lastError: { text: string; at: Date } | undefined;
  /** The session's accepted count, read each tick: the rate in the status. */
  private readonly rate = new RateMeter(RATE_SPAN_MS);
  /** Serialises lease and session changes: ticks never overlap. */
  private busy: Promise<void> = Promise.resolve();
  private readonly guard: NodeJS.Timeout;
  /** A session being closed: no new one opens until it is (two would exceed the binds). */
  private closing: Promise<void> | undefined;

  constructor(
    private config: ConnectorConfig,
    private readonly deps: LaneDeps,
    private readonly options: LaneOptions,
  ) {
    // Independent of the ticks, which may wait on the database: a lease not renewed for half its
    // time closes the session before another dispatcher could take the slot.
    this.guard = setInterval(() => {
      if (this.slot === undefined || !this.session) return;
      if (Date.now() - this.lastRenewal <= this.options.leaseTtlMs / 2) return;
      const session = this.session;
      this.session = undefined;
      this.deps.logger.warn({ connector: this.name }, 'bind lease not renewed in time; unbinding');
      this.closing = session
        .stop()
        .catch((err: unknown) => this.noteError(err))
        .finally(() => (this.closing = undefined));
    }, 250);
    this.guard.unref();
  }

  get name(): string {
    return this.config.name;
  }

  get holdsLease(): boolean {
    return this.slot !== undefined;
  }

  get isUp(): boolean {
    return this.session?.connector.isUp() ?? false;
  }

  get isStopped(): boolean {
    return this.config.desiredState === 'stopped';
  }

  /** The live session (for metrics), if any. */
  get current(): ConnectorSession | undefined {
    return this.session;
  }

  private ticking = false;

  /**
   * Brings the lane in line with its row and its lease; called every second or so. A tick still
   * running (an SMSC slow to unbind) makes the next one a no-op rather than a queue of them.
   */
  tick(config: ConnectorConfig = this.config): Promise<void> {
    if (this.ticking) return this.busy;
    this.ticking = true;
    this.busy = this.reconcile(config)
      .catch((err: unknown) => {
        this.noteError(err);
        this.deps.logger.error({ err, connector: this.name }, 'connector lane could not reconcile');
      })
      .finally(() => (this.ticking = false));
    return this.busy;
  }

  private async reconcile(config: ConnectorConfig): Promise<void> {
    const previous = this.config;
    this.config = config;
    const relinked = previous.url !== config.url || previous.bindMode !== config.bindMode;
    if (this.slot !== undefined && (relinked || this.slot >= config.binds)) {
      this.deps.logger.info({ connector: this.name }, 'connector changed; leaving its bind');
      await this.leave();
    }
    if (this.slot === undefined) {
      const slot = await this.deps.leases.acquire(
        this.name,
        config.binds,
        this.options.holder,
        this.options.leaseTtlMs,
      );
      if (slot === undefined) return;
      this.slot = slot;
      this.lastRenewal = Date.now();
      this.deps.logger.info({ connector: this.name, slot }, 'took a bind lease of the connector');
      // The session first: a job taken before it exists would be held as for a stopped connector.
      await this.closing;
      if (!this.isStopped) this.openSession();
      await this.consume();
    } else if (!(await this.renew())) return;
    if (this.isStopped && this.session) await this.closeSession('stopped by an operator');
    if (!this.isStopped && !this.session && !this.closing) {
      const session = this.openSession();
      // Consuming since the lease was taken while stopped: sized for holding, not for this window.
      if (this.consumedFor !== session.connector.window) {
        await this.stopConsuming();
        await this.consume();
      }
    }
    this.trackSession();
  }

  /**
   * Renews the lease; a holder that could not renew for most of its lease closes its session at
   * once, before another dispatcher can take the slot.
   */
  private async renew(): Promise<boolean> {
    const slot = this.slot!;
    let renewed: boolean | undefined;
    try {
      renewed = await this.deps.leases.renew(
        this.name,
        slot,
        this.options.holder,
        this.options.leaseTtlMs,
      );
    } catch (err) {
      this.noteError(err);
    }
    if (renewed === true) {
      this.lastRenewal = Date.now();
      return true;
    }
    // Answered no: another dispatcher may hold the slot now. No answer: ours for a while yet.
    const lost = renewed === false || Date.now() - this.lastRenewal > this.options.leaseTtlMs / 2;
    if (lost) {
      this.deps.logger.warn({ connector: this.name, slot }, 'bind lease lost; closing the session');
      await this.leave();
    }
    return false;
  }

  /** Up/down bookkeeping for the status and the failover of waiting messages. */
  private trackSession(): void {
    this.rate.sample(this.session?.submitted() ?? 0);
    if (this.isUp) {
      if (!this.upSince) this.upSince = new Date();
      this.downSince = null;
    } else {
      this.upSince = null;
      this.downSince ??= new Date();
    }
  }

  private openSession(): ConnectorSession {
    const session = this.deps.openSession(this.config);
    this.session = session;
    this.downSince = new Date();
    // A session may take long to bind (an SMSC away): the lane keeps ticking meanwhile.
    session.start().catch((err: unknown) => {
      this.noteError(err);
      this.deps.logger.warn({ err, connector: this.name }, 'connector did not bind');
    });
    // Not awaited: the lease's renewals must not wait on the database.
    void this.republishHeld().catch((err: unknown) => {
      this.noteError(err);
      this.deps.logger.warn({ err, connector: this.name }, 'could not re-publish held messages');
    });
    return session;
  }

  private async closeSession(why: string): Promise<void> {
    const session = this.session;
    if (!session) return;
    this.session = undefined;
    this.deps.logger.info({ connector: this.name, why }, 'closing the connector session');
    await session.stop();
    this.upSince = null;
    this.downSince = new Date();
  }

  /**
   * Consumes the connector's queues, prefetching for the window of its session's connector (the
   * connector's own count); without a session, for holding jobs.
   */
  private async consume(): Promise<void> {
    const { perWindowPlace, typicalGroupJob, minGroupJobs, heldWindow } = this.options.prefetch;
    const window = this.session?.connector.window ?? heldWindow;
    this.consumedFor = window;
    this.consumers = [
      await this.deps.bus.consume(
        {
          queue: connectorQueue(QUEUES.dispatcherSubmit, this.name),
          topic: TOPICS.messageSubmit,
          key: this.name,
          prefetch: window * perWindowPlace,
          retryDelaysMs: this.options.retryDelaysMs,
        },
        (job, info) => this.handle(job, info),
      ),
      await this.deps.bus.consume(
        {
          queue: connectorQueue(QUEUES.dispatcherSubmitGroup, this.name),
          topic: TOPICS.messageSubmitGroup,
          key: this.name,
          prefetch: Math.max(minGroupJobs, Math.ceil((window * perWindowPlace) / typicalGroupJob)),
          retryDelaysMs: this.options.retryDelaysMs,
        },
        (job, info) => this.handleGroup(job, info),
      ),
    ];
  }

  private async handle(job: MessageSubmitJob, info: DeliveryInfo): Promise<void> {
    const session = await this.passOn([job.messageId]);
    if (!session || session.kept.length === 0) return;
    await session.session.dispatcher.handle(job, info);
  }

  private async handleGroup(job: MessageSubmitGroupJob, info: DeliveryInfo): Promise<void> {
    const session = await this.passOn(job.messages.map((m) => m.messageId));
    if (!session || session.kept.length === 0) return;
    const kept = new Set(session.kept);
    const messages = job.messages.filter((m) => kept.has(m.messageId));
    await session.session.dispatcher.handleGroup({ ...job, messages }, info);
  }

  /**
   * While the connector is stopped, or down longer than failoverAfterMs, the messages of failover
   * routes go to their next connector. What stays: submitted here when a session is open (it waits
   * for the bind, then is retried), else, for a stopped connector, held in the database until it
   * starts again.
   */
  private async passOn(
    ids: string[],
  ): Promise<{ session: ConnectorSession; kept: string[] } | undefined> {
    const session = this.session;
    // Between losing the lease and leaving, jobs go back to the queue for the next holder.
    if (!session && !this.isStopped)
      throw new Error(`connector ${this.name} has no session on this dispatcher now; retry later`);
    const down =
      !session ||
      (!session.connector.isUp() &&
        this.downSince !== null &&
        Date.now() - this.downSince.getTime() >= this.options.failoverAfterMs);
    if (!down) return { session, kept: ids };
    const moved = await failOverWaiting(this.deps.db, ids, this.name);
    if (moved.length > 0)
      await publishSubmitJobs(this.deps.bus, moved, (to, n) =>
        this.deps.metrics.rerouted.inc(
          { connector: this.name, to, reason: session ? 'DOWN' : 'STOPPED' },
          n,
        ),
      );
    if (!session) return undefined;
    const gone = new Set(moved.map((m) => m.id));
    return { session, kept: ids.filter((id) => !gone.has(id)) };
  }

  /** Messages held while the connector was stopped get their jobs again once it starts. */
  private async republishHeld(): Promise<void> {
    let after: string | null = null;
    for (let round = 0; round < 1000; round++) {
      const rows = await waitingForConnector(this.deps.db, this.name, after, 1000);
      if (rows.length === 0) return;
      after = rows[rows.length - 1].id;
      await publishSubmitJobs(this.deps.bus, rows);
      if (rows.length < 1000) return;
    }
  }

  /** Stops consuming, closes the session and gives the lease back. */
  async leave(): Promise<void> {
    await this.stopConsuming();
    await this.closeSession('left the bind');
    const slot = this.slot;
    this.slot = undefined;
    if (slot !== undefined)
      await this.deps.leases
        .release(this.name, slot, this.options.holder)
        .catch((err: unknown) => this.noteError(err));
  }

  private async stopConsuming(): Promise<void> {
    const consumers = this.consumers;
    this.consumers = [];
    this.consumedFor = undefined;
    await Promise.all(consumers.map((c) => c.cancel()));
  }

  /** Waits for the tick in progress, then leaves (on shutdown or when the connector is removed). */
  async close(): Promise<void> {
    clearInterval(this.guard);
    await this.busy;
    await this.leave();
  }

  private noteError(err: unknown): void {
    this.lastError = { text: err instanceof Error ? err.message : String(err), at: new Date() };
  }

  /** This dispatcher's part of the connector, for connector_status. */
  status(): LaneStatus {
    const session = this.session;
    const sessionError = session?.lastError();
    const error =
      sessionError && (!this.lastError || sessionError.at > this.lastError.at)
        ? sessionError
        : this.lastError;
    const load = session?.load();
    return {
      connector: this.name,
      bound: session?.sessions() ?? 0,
      window_in_use: load?.inWindow ?? 0,
      waiting: load?.waiting ?? 0,
      rate: Math.round(this.rate.perSecond() * 10) / 10,
      last_error: error?.text ?? null,
      last_error_at: error?.at ?? null,
      up_since: this.upSince,
      down_since: this.upSince ? null : this.downSince,
    };
  }
}
