import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per service; names follow docs/metrics.md. */
export function createRegistry(service: string, collectProcessMetrics = true): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (collectProcessMetrics) collectDefaultMetrics({ register: registry });
  return registry;
}

export interface HttpMetrics {
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
}

export function createHttpMetrics(registry: Registry): HttpMetrics {
  return {
    requests: new Counter({
      name: 'smsgw_http_requests_total',
      help: 'HTTP requests answered, by route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'smsgw_http_request_duration_seconds',
      help: 'Time from request to response, by route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}
