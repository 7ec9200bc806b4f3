import { QUEUES, connectorQueue } from '@smsgw/contracts';
import { exportQueueMetrics, type Bus } from '@smsgw/kit';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface DispatcherMetrics {
  submitted: Counter<'connector'>;
  /** PDUs (parts) of the submitted messages: what the connector's cap counts. */
  submittedPdus: Counter<'connector'>;
  failed: Counter<'connector' | 'reason'>;
  /** Messages a delivery receipt completed, by the final state it gave them. */
  final: Counter<'connector' | 'state'>;
  retried: Counter<'connector' | 'reason'>;
  /** Messages passed from a connector to the next of their route. */
  rerouted: Counter<'connector' | 'to' | 'reason'>;
  receipts: Counter<'connector' | 'status'>;
  smscResponse: Histogram<'connector' | 'outcome'>;
  sessionUp: Gauge<'connector'>;
  swept: Counter<'state'>;
  throughputWait: Histogram;
  throughputPaused: Gauge;
  qosRate: Gauge<'connector'>;
  qosDecreases: Counter<'connector' | 'reason'>;
  throughputCap: Gauge<'connector' | 'scope'>;
  dispatchLag: Gauge;
}

/** Read at scrape time: the submit queues (depth, lag) and the age of the oldest message not yet claimed. */
/** `smsgw_queue_depth` and `smsgw_queue_lag_seconds` of a connector's submit queues. */
export function exportConnectorQueueMetrics(registry: Registry, bus: Bus, connector: string): void {
  exportQueueMetrics(registry, bus, [
    connectorQueue(QUEUES.dispatcherSubmit, connector),
    connectorQueue(QUEUES.dispatcherSubmitGroup, connector),
  ]);
}

export interface BacklogProbe {
  bus: Bus;
  oldestWaitingSeconds(): Promise<number>;
}

/** What the metrics read of each connector this dispatcher runs, at scrape time. */
export interface ConnectorView {
  name: string;
  holdsLease: boolean;
  isUp: boolean;
  isStopped: boolean;
  current:
    | {
        throughput: number;
        qos:
          | { current(): number; decreasesBy(): Readonly<Record<'throttled' | 'slow', number>> }
          | undefined;
        sessions(): number;
        load(): { inWindow: number; waiting: number };
      }
    | undefined;
}

/** Names as docs/metrics.md lists them; every connector metric carries a `connector` label. */
export function createDispatcherMetrics(
  registry: Registry,
  connectors: () => readonly ConnectorView[],
  backlog?: BacklogProbe,
  /** HTTP_THROUGHPUT_PER_WORKER: messages per second this dispatcher submits (0: none). */
  perWorker = 0,
  /** MT routes naming a connector (the down-connector alert fires only for those with routes). */
  routesUsing: (connector: string) => number = () => 0,
): DispatcherMetrics {
  /** One gauge per connector, reset at each scrape so removed connectors disappear. */
  const perConnector = (name: string, help: string, value: (c: ConnectorView) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['connector'],
      registers,
      collect() {
        this.reset();
        for (const c of connectors()) this.set({ connector: c.name }, value(c));
      },
    });
  const registers = [registry];
  perConnector(
    'smsgw_connector_lease_held',
    "1 while this dispatcher holds one of the connector's bind leases",
    (c) => (c.holdsLease ? 1 : 0),
  );
  perConnector('smsgw_connector_routes', 'MT routes that name the connector', (c) =>
    routesUsing(c.name),
  );
  perConnector('smsgw_connector_stopped', '1 while an operator has the connector stopped', (c) =>
    c.isStopped ? 1 : 0,
  );
  perConnector(
    'smsgw_connector_sessions',
    'SMPP sessions of the connector this dispatcher has bound',
    (c) => c.current?.sessions() ?? 0,
  );
  perConnector(
    'smsgw_connector_window_in_use',
    "Window places of the connector written and waiting for the SMSC's answer on this dispatcher",
    (c) => c.current?.load().inWindow ?? 0,
  );
  perConnector(
    'smsgw_connector_waiting',
    'Messages of the connector taken from the bus and not yet written on this dispatcher',
    (c) => c.current?.load().waiting ?? 0,
  );
  return {
    submitted: new Counter({
      name: 'smsgw_messages_submitted_total',
      help: 'Messages the SMSC accepted',
      labelNames: ['connector'],
      registers,
    }),
    submittedPdus: new Counter({
      name: 'smsgw_pdus_submitted_total',
      help: 'submit_sm PDUs (message parts) the SMSC accepted',
      labelNames: ['connector'],
      registers,
    }),
    failed: new Counter({
      name: 'smsgw_messages_failed_total',
      help: 'Messages that failed for good, by reason',
      labelNames: ['connector', 'reason'],
      registers,
    }),
    final: new Counter({
      name: 'smsgw_messages_final_total',
      help: 'Messages a delivery receipt completed, by the final state it gave them (delivered, undelivered, expired, rejected)',
      labelNames: ['connector', 'state'],
      registers,
    }),
    retried: new Counter({
      name: 'smsgw_submit_retries_total',
      help: 'Submissions retried after a transient SMSC error',
      labelNames: ['connector', 'reason'],
      registers,
    }),
    rerouted: new Counter({
      name: 'smsgw_messages_rerouted_total',
      help: 'Messages passed from a connector to the next of their failover route (reason: the SMPP status, STOPPED or DOWN)',
      labelNames: ['connector', 'to', 'reason'],
      registers,
    }),
    receipts: new Counter({
      name: 'smsgw_delivery_receipts_total',
      help: 'Delivery receipts received, by status',
      labelNames: ['connector', 'status'],
      registers,
    }),
    smscResponse: new Histogram({
      name: 'smsgw_smsc_response_seconds',
      help: 'Time from submit to the SMSC answer',
      labelNames: ['connector', 'outcome'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    sessionUp: new Gauge({
      name: 'smsgw_smsc_session_up',
      help: '1 while this dispatcher has a bound session of the connector',
      labelNames: ['connector'],
      registers,
      collect() {
        this.reset();
        for (const c of connectors())
          if (c.holdsLease) this.set({ connector: c.name }, c.isUp ? 1 : 0);
      },
    }),
    throughputWait: new Histogram({
      name: 'smsgw_throughput_wait_seconds',
      help: 'Time a submission waited for the cluster-wide throughput caps',
      buckets: [0, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers,
    }),
    throughputPaused: new Gauge({
      name: 'smsgw_throughput_paused',
      help: '1 while dispatch is paused because the throughput state (Redis) is unreachable',
      registers,
    }),
    qosRate: new Gauge({
      name: 'smsgw_qos_rate',
      help: 'Messages per second smart QoS currently allows this worker',
      labelNames: ['connector'],
      registers,
      collect() {
        this.reset();
        for (const c of connectors()) {
          const qos = c.current?.qos;
          if (qos) this.set({ connector: c.name }, qos.current());
        }
      },
    }),
    qosDecreases: new Counter({
      name: 'smsgw_qos_decreases_total',
      help: 'Times smart QoS lowered the rate, by reason: throttled (ESME_RTHROTTLED) or slow (answers well above their recent floor)',
      labelNames: ['connector', 'reason'],
      registers,
      collect() {
        // The controller counts; a new session starts it from zero, which Prometheus reads as a
        // counter reset.
        this.reset();
        for (const c of connectors()) {
          const qos = c.current?.qos;
          if (!qos) continue;
          for (const [reason, n] of Object.entries(qos.decreasesBy())) {
            this.inc({ connector: c.name, reason }, n);
          }
        }
      },
    }),
    throughputCap: new Gauge({
      name: 'smsgw_throughput_cap',
      help: 'Configured throughput cap (0: none); scope connector: PDUs per second cluster-wide, worker: messages per second this dispatcher',
      labelNames: ['connector', 'scope'],
      registers,
      collect() {
        this.reset();
        for (const c of connectors()) {
          if (!c.current) continue;
          this.set({ connector: c.name, scope: 'connector' }, c.current.throughput);
          this.set({ connector: c.name, scope: 'worker' }, perWorker);
        }
      },
    }),
    dispatchLag: new Gauge({
      name: 'smsgw_dispatch_lag_seconds',
      help: 'Age of the oldest accepted message the dispatcher has not taken yet (consumer lag)',
      registers,
      async collect() {
        if (backlog) this.set(await backlog.oldestWaitingSeconds().catch(() => NaN));
      },
    }),
    swept: new Counter({
      name: 'smsgw_recovery_republished_total',
      help: 'Jobs re-published by the recovery sweep, by message state',
      labelNames: ['state'],
      registers,
    }),
  };
}

/** The inbound messages' counters (InboundReceiver); names as docs/metrics.md lists them. */
export function createInboundMetrics(registry: Registry) {
  return {
    received: new Counter({
      name: 'smsgw_inbound_received_total',
      help: 'Inbound PDUs (deliver_sm or data_sm that is not a receipt) recorded, single or part',
      labelNames: ['connector', 'kind'] as const,
      registers: [registry],
    }),
    messages: new Counter({
      name: 'smsgw_inbound_messages_total',
      help: 'Inbound messages recorded whole: single, joined from parts, or incomplete',
      labelNames: ['connector', 'kind'] as const,
      registers: [registry],
    }),
    duplicates: new Counter({
      name: 'smsgw_inbound_duplicates_total',
      help: 'Inbound messages the SMSC delivered again, recognised and not recorded twice',
      labelNames: ['connector'] as const,
      registers: [registry],
    }),
  };
}
export type InboundMetrics = ReturnType<typeof createInboundMetrics>;
