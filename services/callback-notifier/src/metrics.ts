import { Counter, type Registry } from 'prom-client';

export interface NotifierMetrics {
  sent: Counter<'kind' | 'outcome'>;
  givenUp: Counter<'kind' | 'reason'>;
}

/** Names as docs/metrics.md lists them. */
export function createNotifierMetrics(registry: Registry): NotifierMetrics {
  const registers = [registry];
  return {
    sent: new Counter({ name: 'smsgw_callback_requests_total', help: 'Requests to customer URLs, by kind and outcome (ok, retry, failed)', labelNames: ['kind', 'outcome'], registers }),
    givenUp: new Counter({ name: 'smsgw_callbacks_given_up_total', help: 'Callbacks given up, by kind and reason (attempts, refused)', labelNames: ['kind', 'reason'], registers }),
  };
}
