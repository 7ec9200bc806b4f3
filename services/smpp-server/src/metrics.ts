import { Counter, Gauge, type Registry } from 'prom-client';

export interface SmppServerMetrics {
  sessions: Gauge<'account' | 'bind_type'>;
  binds: Counter<'outcome'>;
  submits: Counter<'account' | 'status'>;
  delivered: Counter<'account' | 'kind'>;
  waiting: Gauge<'kind'>;
  oldestWaiting: Gauge<'kind'>;
  pduFailures: Counter;
  stalledSessions: Counter;
  connectionsRefused: Counter<'reason'>;
  /** smsgw_messages_accepted_total, the api-gateway's, counting submit_sm as kind `smpp`. */
  accepted: Counter<'kind'>;
}

/** Names as docs/metrics.md lists them. */
export function createSmppServerMetrics(registry: Registry): SmppServerMetrics {
  return {
    sessions: new Gauge({
      name: 'smsgw_smpp_sessions',
      help: 'SMPP sessions bound to this replica, by account and bind type',
      labelNames: ['account', 'bind_type'],
      registers: [registry],
    }),
    binds: new Counter({
      name: 'smsgw_smpp_binds_total',
      help: 'SMPP bind attempts by outcome (ok or the refusal status)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    submits: new Counter({
      name: 'smsgw_smpp_submits_total',
      help: 'submit_sm answered, by account and status (ESME_ROK or the refusal)',
      labelNames: ['account', 'status'],
      registers: [registry],
    }),
    delivered: new Counter({
      name: 'smsgw_smpp_deliver_sm_total',
      help: 'deliver_sm answered ESME_ROK by a customer, by account and kind (receipt or inbound)',
      labelNames: ['account', 'kind'],
      registers: [registry],
    }),
    waiting: new Gauge({
      name: 'smsgw_smpp_deliveries_waiting',
      help: 'Receipts and inbound messages waiting for a session of their account, by kind',
      labelNames: ['kind'],
      registers: [registry],
    }),
    oldestWaiting: new Gauge({
      name: 'smsgw_smpp_deliveries_oldest_waiting_seconds',
      help: 'Age of the oldest receipt or inbound message waiting for an SMPP session, by kind',
      labelNames: ['kind'],
      registers: [registry],
    }),
    pduFailures: new Counter({
      name: 'smsgw_smpp_pdu_failures_total',
      help: 'PDUs whose handling failed; each closed its own session',
      registers: [registry],
    }),
    stalledSessions: new Counter({
      name: 'smsgw_smpp_stalled_sessions_total',
      help: 'Times a session stopped being read because its client did not read its answers',
      registers: [registry],
    }),
    connectionsRefused: new Counter({
      name: 'smsgw_smpp_connections_refused_total',
      help: 'Connections closed by the caps, by reason (connections: the cap; address: the cap per address; gave_way: the oldest not bound, for a new one)',
      labelNames: ['reason'],
      registers: [registry],
      // Both reasons from the start, so an alert on a rise sees the first refusal too.
      collect() {
        for (const reason of ['connections', 'address', 'gave_way']) this.inc({ reason }, 0);
      },
    }),
    // Embedded mode's one registry already has it from the api-gateway: the same counter then.
    accepted:
      (registry.getSingleMetric('smsgw_messages_accepted_total') as Counter<'kind'> | undefined) ??
      new Counter({
        name: 'smsgw_messages_accepted_total',
        help: 'Messages accepted (charged and recorded), by kind: single send, batch recipients or smpp',
        labelNames: ['kind'],
        registers: [registry],
      }),
  };
}
