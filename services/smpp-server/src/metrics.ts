import { Counter, Gauge, type Registry } from 'prom-client';

export interface SmppServerMetrics {
  sessions: Gauge<'account' | 'bind_type'>;
  binds: Counter<'outcome'>;
  submits: Counter<'account' | 'status'>;
  delivered: Counter<'account' | 'kind'>;
  waiting: Gauge<'kind'>;
  oldestWaiting: Gauge<'kind'>;
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
  };
}
