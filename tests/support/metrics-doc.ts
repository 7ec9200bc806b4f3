import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DocumentedMetric {
  name: string;
  type: string;
  /** Labels besides `service`, which every series carries. */
  labels: string[];
}

/** The table of docs/metrics.md, the contract the dashboard and alert rules rely on. */
export function documentedMetrics(root = join(__dirname, '..', '..')): DocumentedMetric[] {
  const text = readFileSync(join(root, 'docs', 'metrics.md'), 'utf8');
  return [...text.matchAll(/^\| `([a-z_:][a-z0-9_:]*)` *\| (\w+) *\|([^|]*)\|/gm)].map((m) => ({
    name: m[1],
    type: m[2],
    labels: [...m[3].matchAll(/`([a-z_]+)`/g)].map((l) => l[1]),
  }));
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  types: Map<string, string>;
  samples: Sample[];
}

/** Prometheus text exposition as prom-client writes it: TYPE lines and samples. */
export function parseExposition(text: string): Scrape {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1], type[2]);
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`unparsed exposition line: ${line}`);
    const labels = Object.fromEntries(
      [...(sample[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [
        l[1],
        l[2],
      ]),
    );
    samples.push({ name: sample[1], labels, value: Number(sample[3]) });
  }
  return { types, samples };
}

/** The series names a metric of that type is exposed as. */
export function seriesNames(metric: DocumentedMetric): string[] {
  return metric.type === 'histogram'
    ? [`${metric.name}_bucket`, `${metric.name}_sum`, `${metric.name}_count`]
    : [metric.name];
}
