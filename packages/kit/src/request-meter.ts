import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { createHttpMetrics, type HttpMetrics } from './metrics';

/** One set of HTTP metrics per registry, shared by the express app and its hot routes. */
const byRegistry = new WeakMap<Registry, HttpMetrics>();

function httpMetricsOf(registry: Registry): HttpMetrics {
  let metrics = byRegistry.get(registry);
  if (!metrics) {
    metrics = createHttpMetrics(registry);
    byRegistry.set(registry, metrics);
  }
  return metrics;
}

/** Counts a request and its duration once it is answered, under the route `routeOf` names then. */
export type RequestMeter = (
  req: IncomingMessage,
  res: ServerResponse,
  routeOf: () => string,
) => void;

export function requestMeter(registry: Registry): RequestMeter {
  const metrics = httpMetricsOf(registry);
  return (req, res, routeOf) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const labels = { method: req.method ?? '', route: routeOf(), status: String(res.statusCode) };
      metrics.requests.inc(labels);
      metrics.duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
  };
}
