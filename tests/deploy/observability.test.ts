/**
 * deploy/grafana and deploy/prometheus: every PromQL expression parses (the Prometheus project's
 * own grammar, @prometheus-io/lezer-promql) and uses only metric names that docs/metrics.md lists,
 * which is the contract with the services; alert rules carry what an on-call person needs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parse } from 'yaml';
import type * as LezerPromql from '@prometheus-io/lezer-promql' with {
  'resolution-mode': 'import',
};

// The package is an ES module ("type": "module") to the type checker, which a CommonJS file may
// import only for its types; it also ships a CommonJS build (its "require" export), loaded here.
const { parser } = createRequire(__filename)('@prometheus-io/lezer-promql') as typeof LezerPromql;

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** docs/metrics.md's table: name → type. */
const documented = new Map<string, string>();
for (const match of read('docs/metrics.md').matchAll(/^\| `([a-z_:][a-z0-9_:]*)` *\| (\w+) *\|/gm))
  documented.set(match[1], match[2]);

/** Default prom-client metrics, which docs/metrics.md says every service also serves. */
const DEFAULT_PREFIXES = ['process_', 'nodejs_'];

function isDocumented(name: string): boolean {
  if (documented.has(name)) return true;
  const histogram = /^(.+)_(bucket|sum|count)$/.exec(name);
  if (histogram && documented.get(histogram[1]) === 'histogram') return true;
  return DEFAULT_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** Grafana's interval variables are not PromQL; any duration stands in for them. */
const withoutGrafanaVariables = (expr: string) =>
  expr.replace(/\$__(rate_interval|interval|range)/g, '5m');

/** Parses one expression and returns the metric names of its selectors; throws on a syntax error. */
function metricNames(expr: string): string[] {
  const source = withoutGrafanaVariables(expr);
  const tree = parser.parse(source);
  const names: string[] = [];
  const errors: number[] = [];
  tree.iterate({
    enter(node) {
      if (node.type.isError) errors.push(node.from);
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector')
        names.push(source.slice(node.from, node.to));
    },
  });
  if (errors.length > 0) throw new Error(`PromQL syntax error at ${errors[0]} in: ${source}`);
  return names;
}

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { uid: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: { expr: string }[];
  panels?: Panel[];
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: unknown; definition?: string }[] };
}
const dashboard = JSON.parse(read('deploy/grafana/sms-gateway.json')) as Dashboard;
const allPanels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const dashboardExprs = allPanels.flatMap((p) =>
  (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr })),
);

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const alertFile = parse(read('deploy/prometheus/alerts.yml')) as {
  groups: { name: string; rules: Rule[] }[];
};
const rules = alertFile.groups.flatMap((g) => g.rules);
const alertExprs = rules.map((r) => ({ where: `alert ${r.alert ?? r.record}`, expr: r.expr }));

describe('the PromQL checker', () => {
  it('finds the metrics behind functions, aggregations, label matchers and ranges', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, route) (rate(a_bucket{route=~"/x", status!="200"}[$__rate_interval])))',
      ),
    ).toEqual(['a_bucket']);
    expect(
      metricNames(
        'sum(rate(a_total[5m])) / on() group_left() (sum(b) or vector(0)) and absent(c) unless d offset 5m',
      ),
    ).toEqual(['a_total', 'b', 'c', 'd']);
    expect(() => metricNames('sum(rate(a_total[5m])')).toThrow(/syntax/);
  });

  it('reads the documented names, and the documented names are the ones the services register', () => {
    expect(documented.size).toBeGreaterThanOrEqual(10);
    const sources = [
      'packages/kit/src/metrics.ts',
      'packages/kit/src/queue-metrics.ts',
      'services/auth/src/metrics.ts',
      'services/api-gateway/src/metrics.ts',
      'services/dispatcher/src/metrics.ts',
      'services/batch-scheduler/src/metrics.ts',
      'services/callback-notifier/src/metrics.ts',
      'services/smpp-server/src/metrics.ts',
    ]
      .map(read)
      .join('\n');
    for (const name of documented.keys())
      expect({ name, registered: sources.includes(`'${name}'`) }).toEqual({
        name,
        registered: true,
      });
    expect(isDocumented('smsgw_http_request_duration_seconds_bucket')).toBe(true);
    expect(isDocumented('smsgw_http_requests_total_bucket')).toBe(false);
    expect(isDocumented('smsgw_not_a_metric')).toBe(false);
  });
});

describe.each([
  ['deploy/grafana/sms-gateway.json', dashboardExprs],
  ['deploy/prometheus/alerts.yml', alertExprs],
])('%s', (_file, exprs) => {
  it('has expressions', () => expect(exprs.length).toBeGreaterThan(5));
  it.each(exprs.map((e) => [e.where, e.expr] as const))(
    '%s: valid PromQL over documented metrics only',
    (_where, expr) => {
      const names = metricNames(expr);
      expect(names.length).toBeGreaterThan(0);
      for (const name of names)
        expect({ name, documented: isDocumented(name) }).toEqual({ name, documented: true });
    },
  );
});

describe('deploy/grafana/sms-gateway.json', () => {
  const used = new Set(dashboardExprs.flatMap((e) => metricNames(e.expr)));

  it('shows traffic, errors, latency, submits, failures, SMSC latency, sessions, callbacks and batch expansion', () => {
    for (const name of [
      'smsgw_http_requests_total',
      'smsgw_http_request_duration_seconds_bucket',
      'smsgw_messages_submitted_total',
      'smsgw_messages_failed_total',
      'smsgw_smsc_response_seconds_bucket',
      'smsgw_smsc_session_up',
      'smsgw_callback_requests_total',
      'smsgw_batch_messages_expanded_total',
      'smsgw_messages_final_total',
      'smsgw_throughput_cap',
      'smsgw_queue_depth',
      'smsgw_queue_lag_seconds',
      'smsgw_callbacks_pending',
      'smsgw_batches',
      'smsgw_callback_attempts_bucket',
      'smsgw_smpp_sessions',
      'smsgw_smpp_submits_total',
      'smsgw_smpp_deliveries_waiting',
    ])
      expect({ name, used: used.has(name) }).toEqual({ name, used: true });
    const exprs = dashboardExprs.map((e) => e.expr).join('\n');
    expect(exprs).toMatch(
      /histogram_quantile\(0\.99, sum by \(le, route\) \(rate\(smsgw_http_request_duration_seconds_bucket/,
    );
    expect(exprs).toMatch(/sum by \(route, status\) \(rate\(smsgw_http_requests_total/);
    expect(exprs).toMatch(/sum by \(reason\) \(rate\(smsgw_messages_failed_total/);
    expect(exprs).toMatch(/sum by \(kind, outcome\) \(rate\(smsgw_callback_requests_total/);
  });

  it('shows stalled batches by reason and overdue messages by state', () => {
    const panel = allPanels.find((p) => /stalled batches/i.test(p.title))!;
    expect(panel).toBeDefined();
    expect((panel.targets ?? []).map((t) => t.expr)).toEqual([
      'max by (reason) (smsgw_batches_stalled)',
      'max by (state) (smsgw_messages_overdue)',
    ]);
  });

  it('draws the submit rate against the configured caps, and queue depth per queue', () => {
    const panel = allPanels.find((p) => /throughput versus cap/i.test(p.title))!;
    const exprs = (panel.targets ?? []).map((t) => t.expr);
    expect(exprs.some((e) => /rate\(smsgw_messages_submitted_total/.test(e))).toBe(true);
    expect(
      exprs.filter((e) => /smsgw_throughput_cap\{[^}]*scope="(connector|worker)"/.test(e)),
    ).toHaveLength(2);
    expect(dashboardExprs.map((e) => e.expr)).toContain('max by (queue) (smsgw_queue_depth)');
    expect(dashboardExprs.some((e) => /smsgw_messages_final_total/.test(e.expr))).toBe(true);
  });

  it('is importable: a uid, unique panel ids, panels inside the 24-column grid, one data source variable', () => {
    expect(dashboard.uid).toMatch(/^[a-z0-9-]+$/);
    const ids = allPanels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of allPanels) {
      expect(panel.gridPos.x + panel.gridPos.w).toBeLessThanOrEqual(24);
      if (panel.type !== 'row') expect(panel.datasource?.uid).toBe('${datasource}');
    }
    expect(dashboard.templating.list.find((v) => v.name === 'datasource')).toMatchObject({
      type: 'datasource',
      query: 'prometheus',
    });
  });

  it('fills its variables from documented metrics', () => {
    for (const variable of dashboard.templating.list.filter((v) => v.type === 'query')) {
      const match = /^label_values\(([a-z_:][a-z0-9_:]*), *(\w+)\)$/.exec(
        variable.definition ?? '',
      );
      expect(match).not.toBeNull();
      expect(isDocumented(match![1])).toBe(true);
      // The label exists on that metric per docs/metrics.md (`service` is on every series).
      const row = read('docs/metrics.md')
        .split('\n')
        .find((line) => line.startsWith(`| \`${match![1]}\``))!;
      expect(match![2] === 'service' || row.includes(`\`${match![2]}\``)).toBe(true);
    }
  });
});

describe('deploy/prometheus/alerts.yml', () => {
  const alerts = rules.filter((r) => r.alert !== undefined);

  it.each(alerts.map((r) => [r.alert!, r] as const))(
    '%s: has for, a severity and a summary',
    (_name, rule) => {
      expect(rule.for).toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning', 'info']).toContain(rule.labels?.['severity']);
      expect(rule.annotations?.['summary']?.length).toBeGreaterThan(10);
    },
  );

  it('has unique alert names', () => {
    const names = alerts.map((r) => r.alert);
    expect(new Set(names).size).toBe(names.length);
  });

  it('covers SMSC sessions, HTTP 5xx, a growing queue and failing callbacks', () => {
    const byMetric = (metric: string) => alerts.filter((r) => metricNames(r.expr).includes(metric));
    expect(alerts.find((r) => r.expr.trim() === 'smsgw_smsc_session_up == 0')).toMatchObject({
      for: '2m',
    });
    expect(byMetric('smsgw_http_requests_total').some((r) => /status=~"5\.\."/.test(r.expr))).toBe(
      true,
    );
    const queue = alerts.find((r) => r.alert === 'SubmitQueueGrowing')!;
    for (const metric of ['smsgw_queue_depth', 'smsgw_dispatch_lag_seconds']) {
      expect(metricNames(queue.expr)).toContain(metric);
    }
    // The other consumer queues (notifier, scheduler) have their own growth alert.
    expect(metricNames(alerts.find((r) => r.alert === 'ConsumerQueueGrowing')!.expr)).toContain(
      'smsgw_queue_depth',
    );
    expect(
      byMetric('smsgw_callbacks_given_up_total').some((r) =>
        /rate\(smsgw_callbacks_given_up_total/.test(r.expr),
      ),
    ).toBe(true);
  });
});

describe('deploy/prometheus/alerts.yml: a batch that stops moving', () => {
  const alert = (name: string) => rules.find((r) => r.alert === name)!;

  it('fires on a stalled batch, by reason, and names where the list of them is', () => {
    const stalled = alert('BatchStalled');
    expect(metricNames(stalled.expr)).toEqual(['smsgw_batches_stalled']);
    expect(stalled.expr).toMatch(/by \(reason\)/);
    expect(stalled.labels?.['severity']).toBe('critical');
    expect(stalled.annotations?.['description']).toContain('/admin/v1/batches/stalled');
  });

  it('fires on overdue messages, and when no batch-scheduler reports at all', () => {
    expect(metricNames(alert('MessagesOverdue').expr)).toEqual(['smsgw_messages_overdue']);
    // The gauges come from the batch-scheduler: without one, the stall alert could never fire.
    expect(alert('NoBatchSchedulerReporting').expr.trim()).toBe('absent(smsgw_batches_stalled)');
  });
});

describe('deploy/prometheus/prometheus.yml', () => {
  const config = parse(read('deploy/prometheus/prometheus.yml')) as {
    rule_files: string[];
    scrape_configs: {
      job_name: string;
      metrics_path?: string;
      static_configs?: { targets: string[] }[];
    }[];
  };

  it('loads the alert rules', () => {
    for (const file of config.rule_files)
      expect(existsSync(join(root, 'deploy', 'prometheus', file))).toBe(true);
    expect(config.rule_files).toContain('alerts.yml');
  });

  it('scrapes /metrics of the six services where docker-compose.yml runs them', () => {
    const compose = parse(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    const expected = [
      'auth',
      'api-gateway',
      'batch-scheduler',
      'dispatcher',
      'callback-notifier',
      'smpp-server',
    ].map((name) => `${name}:${compose.services[name].environment!['PORT']}`);
    const job = config.scrape_configs.find((j) => j.job_name === 'sms-gateway')!;
    expect(job.metrics_path ?? '/metrics').toBe('/metrics');
    expect(job.static_configs!.flatMap((s) => s.targets).sort()).toEqual(expected.sort());
  });
});
