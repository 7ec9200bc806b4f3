import { Counter, type Registry } from 'prom-client';

export interface GatewayMetrics {
  accepted: Counter<'kind'>;
}

/** Names as docs/metrics.md lists them. */
export function createGatewayMetrics(registry: Registry): GatewayMetrics {
  return {
    accepted: new Counter({
      name: 'smsgw_messages_accepted_total',
      help: 'Messages accepted (charged and recorded), by kind: single send or batch recipients',
      labelNames: ['kind'],
      registers: [registry],
    }),
  };
}
