import autocannon from 'autocannon';
import { benchChaosSoak, minutesOption } from './chaos-soak';
import { memoryMb, startCluster, type Cluster } from './cluster';
import { report } from './report';

const CONNECTIONS = 32;
const BODY = '{"to":"41790000001","content":"Hello"}';
/** Minutes at the start whose figures are warm-up: caches and JIT fill, pools open. */
const WARM_UP_MINUTES = 2;
/** Growth of a process's RSS past its warm-up peak that still counts as flat. */
const RSS_SLACK = { ratio: 0.15, mb: 20 };

interface Sample {
  minute: number;
  requests: number;
  rps: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** Each service's resident memory (MB) and event-loop delay p99 (ms) at the minute's end. */
  rssMb: Record<string, number>;
  loopP99Ms: Record<string, number>;
}

/** The event-loop delay p99 prom-client's default metrics report on the service's /metrics. */
async function loopP99Ms(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = /^nodejs_eventloop_lag_p99_seconds(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(text)?.[1];
  return value === undefined ? NaN : Math.round(Number(value) * 10000) / 10;
}

async function load(url: string, auth: string, seconds: number, rate?: number) {
  return autocannon({
    url,
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: BODY,
    connections: CONNECTIONS,
    duration: seconds,
    ...(rate !== undefined && { overallRate: rate }),
  });
}

async function sample(cluster: Cluster, minute: number, result: autocannon.Result) {
  const s: Sample = {
    minute,
    requests: result.requests.total,
    rps: Math.round(result.requests.total / result.duration),
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    rssMb: {},
    loopP99Ms: {},
  };
  for (const service of cluster.services) {
    const name =
      cluster.services.filter((x) => x.name === service.name).length > 1
        ? `${service.name}-${service.port}`
        : service.name;
    s.rssMb[name] = memoryMb(service.child.pid, 'VmRSS');
    s.loopP99Ms[name] = await loopP99Ms(service.url);
  }
  return s;
}

/** Processes whose RSS at the end stands above their warm-up peak by more than the slack. */
export function memoryGrowth(samples: readonly Sample[]): string[] {
  const warm = samples.filter((s) => s.minute <= WARM_UP_MINUTES);
  const last = samples[samples.length - 1];
  if (warm.length === 0 || !last || last.minute <= WARM_UP_MINUTES) return [];
  return Object.keys(last.rssMb).filter((name) => {
    const peak = Math.max(...warm.map((s) => s.rssMb[name] ?? 0));
    return last.rssMb[name] > peak * (1 + RSS_SLACK.ratio) + RSS_SLACK.mb;
  });
}

/**
 * `pnpm soak [--minutes N]`, or with `--chaos` the chaos soak (docs/reliability.md § The chaos
 * soak): mixed traffic through a random fault every 60–120 s. Both default to SOAK_MINUTES (30).
 */
export function benchSoak(args: readonly string[]): Promise<void> {
  const minutes = minutesOption(args, Number(process.env['SOAK_MINUTES'] ?? 30));
  return args.includes('--chaos') ? benchChaosSoak(minutes) : benchSteadySoak(minutes);
}

/**
 * `pnpm bench soak`: `/secure/send` at half the rate this machine sustains (measured first, for
 * 10 s), for SOAK_MINUTES (30), every message answered with a delivery receipt. Each minute it
 * samples every service's RSS and event-loop delay and the minute's p99; it fails on any error or
 * on memory that keeps growing after the warm-up.
 */
async function benchSteadySoak(minutes: number): Promise<void> {
  const cluster = await startCluster({ deliveryReceipts: true });
  try {
    const auth = await cluster.createAccount('soak');
    const url = `${cluster.gateway.url}/secure/send`;
    await load(url, auth, 3);
    const max = await load(url, auth, 10);
    const rate = Math.max(1, Math.round(max.requests.total / max.duration / 2));
    const samples: Sample[] = [];
    for (let minute = 1; minute <= minutes; minute++) {
      const s = await sample(cluster, minute, await load(url, auth, 60, rate));
      samples.push(s);
      process.stderr.write(`${JSON.stringify(s)}\n`);
    }
    const sent = samples.reduce((n, s) => n + s.requests - s.non2xx - s.errors, 0);
    const growing = memoryGrowth(samples);
    const failures = samples.reduce((n, s) => n + s.non2xx + s.errors, 0);
    console.table(
      samples.map((s) => ({
        minute: s.minute,
        rps: s.rps,
        p99Ms: s.p99Ms,
        errors: s.non2xx + s.errors,
        ...Object.fromEntries(Object.entries(s.rssMb).map(([k, v]) => [`${k} MB`, v])),
        ...Object.fromEntries(Object.entries(s.loopP99Ms).map(([k, v]) => [`${k} loop ms`, v])),
      })),
    );
    report({
      bench: 'soak',
      minutes,
      maxRps: Math.round(max.requests.total / max.duration),
      rate,
      accepted: sent,
      atSimulator: cluster.sim.received.length,
      failures,
      memoryGrowing: growing,
      samples,
    });
    if (failures > 0 || growing.length > 0)
      throw new Error(
        `soak failed: ${failures} failed requests; memory still growing: ${growing.join(', ') || 'none'}`,
      );
  } finally {
    await cluster.stop();
  }
}
