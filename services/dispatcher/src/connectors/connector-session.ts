import { TOPICS } from '@smsgw/contracts';
import type { Bus, Db, Logger } from '@smsgw/kit';
import type { MtRouter } from '@smsgw/routing';
import type { SmscConnector } from '@smsgw/smsc';
import { dispatcherDefaults } from '../defaults';
import { InboundReceiver } from '../inbound-receiver';
import { MessageClaims } from '../message-claims';
import { MessageDispatcher, type DispatcherLoad } from '../message-dispatcher';
import type { DispatcherMetrics, InboundMetrics } from '../metrics';
import { ReceiptMatcher } from '../receipt-matcher';
import type { AccountCaps } from '../throughput/account-caps';
import type { RateLimiter } from '../throughput/rate-limiter';
import { EventLoopLag } from '../throughput/event-loop-lag';
import { SmartQos } from '../throughput/smart-qos';
import { ThroughputGate } from '../throughput/throughput-gate';
import { SubmitPacing } from '../throughput/submit-pacing';
import type { SubmitTlvs } from '../submit-tlvs';
import type { SupplierCosts } from '../submit-outcomes';
import { openConnector, type ConnectorAccess, type ConnectorConfig } from './open-connector';

export interface SessionSettings {
  maxAttempts: number;
  submitStaleMs: number;
  throughputPerWorker: number;
  smartQos: boolean;
  inboundPartTimeoutMs: number;
}

export interface SessionDeps {
  db: Db;
  bus: Bus;
  logger: Logger;
  metrics: DispatcherMetrics;
  inboundMetrics: InboundMetrics;
  rateLimiter: RateLimiter;
  accountCaps: AccountCaps;
  router: MtRouter;
  settings: SessionSettings;
  access: ConnectorAccess;
  /** Connector and route TLVs, shared by every session of this dispatcher. */
  tlvs?: SubmitTlvs;
  /** The connectors' supplier prices, shared likewise. */
  costs?: SupplierCosts;
}

/**
 * One open session of a connector on this dispatcher: the link to the SMSC, the dispatcher that
 * claims, submits and records through it within its window, and the receipts and inbound messages
 * it brings back, matched to this connector only.
 */
export class ConnectorSession {
  readonly connector: SmscConnector;
  readonly dispatcher: MessageDispatcher;
  readonly qos: SmartQos | undefined;
  readonly throughput: number;
  private readonly receipts: ReceiptMatcher;
  private readonly loopLag: EventLoopLag | undefined;
  private readonly inbound: InboundReceiver;
  private failure: { text: string; at: Date } | undefined;

  constructor(
    config: ConnectorConfig,
    private readonly deps: SessionDeps,
  ) {
    const { db, bus, logger, metrics, settings } = deps;
    const opened = openConnector(config, logger, deps.access);
    this.connector = opened.connector;
    this.throughput = opened.throughput;
    const name = config.name;
    // Smart QoS climbs back to the configured rate: the worker's, else the connector's cap, else a ceiling.
    const ceiling =
      settings.throughputPerWorker || opened.throughput || dispatcherDefaults.uncappedQosRate;
    const loopLag = settings.smartQos ? new EventLoopLag() : undefined;
    this.loopLag = loopLag;
    this.qos = loopLag
      ? new SmartQos({ ...dispatcherDefaults.smartQos, maxRate: ceiling }, Date.now(), () =>
          loopLag.meanMsSinceLast(),
        )
      : undefined;
    const claims = new MessageClaims(db, name);
    const gate = new ThroughputGate(
      deps.rateLimiter,
      logger,
      { waitSeconds: metrics.throughputWait, paused: metrics.throughputPaused },
      opened.throughput > 0
        ? { key: `connector:${name}`, perSecond: opened.throughput }
        : undefined,
    );
    this.dispatcher = new MessageDispatcher(
      claims,
      this.connector,
      bus,
      logger,
      metrics,
      {
        maxAttempts: settings.maxAttempts,
        submitStaleMs: settings.submitStaleMs,
        ...(deps.tlvs && { tlvs: deps.tlvs }),
        ...(deps.costs && { costs: deps.costs }),
      },
      new SubmitPacing({
        gate,
        accountCaps: deps.accountCaps,
        throughputPerWorker: settings.throughputPerWorker,
        ...(this.qos && { qos: this.qos }),
      }),
      {
        reroutesOn: (route, status) => deps.router.reroutesOn(route, status),
        publish: (job, connector) => bus.publish(TOPICS.messageSubmit, job, connector),
      },
    );
    this.receipts = new ReceiptMatcher(claims, bus, logger, metrics, {
      connector: name,
      holdMs: dispatcherDefaults.receipts.holdMs,
      retryEveryMs: dispatcherDefaults.receipts.retryEveryMs,
      lingerMs: dispatcherDefaults.receipts.lingerMs,
    });
    this.inbound = new InboundReceiver(db, bus, logger, deps.inboundMetrics, {
      connector: name,
      partTimeoutMs: settings.inboundPartTimeoutMs,
      dedupWindowMs: dispatcherDefaults.inbound.dedupWindowMs,
      sweepEveryMs: Math.min(
        dispatcherDefaults.inbound.sweepEveryMs,
        settings.inboundPartTimeoutMs,
      ),
    });
    this.connector.onReceipt(this.receipts.receive);
    this.connector.onInbound(this.inbound.receive);
  }

  /** Binds (resolves at the first bind; keeps reconnecting afterwards). */
  async start(): Promise<void> {
    this.inbound.start();
    try {
      await this.connector.start();
    } catch (err) {
      this.failure = { text: err instanceof Error ? err.message : String(err), at: new Date() };
      throw err;
    }
  }

  /** Finishes the submissions in progress, then unbinds. */
  async stop(): Promise<void> {
    await this.dispatcher.drain();
    this.receipts.stop();
    this.inbound.stop();
    this.loopLag?.stop();
    await this.connector.stop();
  }

  /** Sessions bound at the SMSC: two with a transmitter and a receiver. */
  sessions(): number {
    return this.connector.sessions();
  }

  /** The window in use and the messages waiting (the connector's count, and jobs not claimed). */
  load(): DispatcherLoad {
    return this.dispatcher.load();
  }

  /** Messages the SMSC accepted through this session so far (for the connector's rate). */
  submitted(): number {
    return this.dispatcher.submittedCount;
  }

  lastError(): { text: string; at: Date } | undefined {
    const last = this.dispatcher.lastFailure;
    if (last && (!this.failure || last.at > this.failure.at)) return last;
    return this.failure;
  }
}
