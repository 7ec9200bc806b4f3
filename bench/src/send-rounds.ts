import { dispatchCounts, waitUntilDone, type DoneBy } from './dispatch-counters';
import { sendLoad, summary, type Segment } from './http-load';
import { microsPerMessage, processUsage, sortedDescending, type Grouping } from './process-usage';
import { walBytes } from './wal';

/** One thing driven with `/secure/send`: the gateway with or without receipts, embedded mode, the ceiling. */
export interface Side {
  name: string;
  /** Several: replicas of the gateway, sharing the connections. */
  url: string | readonly string[];
  headers: Record<string, string>;
  /** The body of POST /secure/send, when not the bench's one message. */
  body?: string;
  /** Names the processes whose CPU and memory count for this side. */
  grouping: Grouping;
  /** The /metrics of the dispatchers and what makes a message done; none: done when answered. */
  done?: { metricsUrls: string[]; by: DoneBy };
  /** Whether its database is on the Postgres server, whose WAL it then counts. */
  serverWal?: boolean;
  /** Groups summed for the target: the gateway's processes and the servers it uses. */
  targetGroups?: (group: string) => boolean;
  /** Drives the side another way than POST /secure/send (Kannel's GET sendsms). */
  load?: (seconds: number) => Promise<Segment>;
  /**
   * Called at a segment's start when `done` is not given: answers how to wait until the messages
   * the segment's load had accepted are done (Kannel's reports reaching the bench's sink).
   */
  tracker?: () => (accepted: number) => Promise<{ done: number; at: number }>;
  /** Its own warm-up instead of BENCH_WARMUP_SECONDS (a side whose backlog drains slowly). */
  warmUpSeconds?: number;
}

interface Tally {
  segments: Segment[];
  messages: number;
  cpuSeconds: Record<string, number>;
  peakRssMb: Record<string, number>;
  /** From each segment's start until its last message was done. */
  doneSeconds: number;
  otherCpuSeconds: number;
  /** WAL the server wrote during the side's segments (other databases' writes included). */
  walBytes: number;
}

/**
 * The sides in alternating segments (BENCH_ROUNDS, default 3, of BENCH_SECONDS / rounds each), so a
 * change of the shared machine's speed during the run weighs on every side. CPU is counted from a
 * segment's start until its last message is done (its receipt recorded), so the receipts' work
 * after the load stopped counts too; the next segment starts only then.
 */
export async function runSendRounds(sides: readonly Side[]) {
  const seconds = Number(process.env['BENCH_SECONDS'] ?? 30);
  const rounds = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 3));
  const segmentSeconds = Math.max(2, Math.round(seconds / rounds));
  const emptyTally = (): Tally => ({
    segments: [],
    messages: 0,
    cpuSeconds: {},
    peakRssMb: {},
    doneSeconds: 0,
    otherCpuSeconds: 0,
    walBytes: 0,
  });
  const tallies = new Map<string, Tally>(sides.map((s) => [s.name, emptyTally()]));
  const warmUps = new Map<string, Tally>(sides.map((s) => [s.name, emptyTally()]));
  const segment = async (side: Side, loadSeconds: number, tally?: Tally) => {
    const before = side.done ? await dispatchCounts(side.done.metricsUrls) : undefined;
    const walBefore = side.serverWal ? await walBytes() : 0;
    const track = side.tracker?.();
    const usage = processUsage(side.grouping);
    const started = Date.now();
    const load = side.load
      ? await side.load(loadSeconds)
      : await sendLoad(side.url, side.headers, loadSeconds, side.body);
    const finished =
      side.done && before
        ? await waitUntilDone(side.done.metricsUrls, side.done.by, before, load.ok)
        : track
          ? await track(load.ok)
          : { done: load.ok, at: Date.now() };
    const used = usage.stop();
    const wal = side.serverWal ? (await walBytes()) - walBefore : 0;
    if (!tally) return;
    tally.walBytes += wal;
    tally.segments.push(load);
    tally.messages += finished.done;
    tally.doneSeconds += (finished.at - started) / 1000;
    tally.otherCpuSeconds += used.otherCpuSeconds;
    for (const [k, v] of Object.entries(used.cpuSeconds))
      tally.cpuSeconds[k] = (tally.cpuSeconds[k] ?? 0) + v;
    for (const [k, v] of Object.entries(used.peakRssMb))
      tally.peakRssMb[k] = Math.max(tally.peakRssMb[k] ?? 0, v);
  };
  // Warm-up of each side (BENCH_WARMUP_SECONDS), so every side is measured with its code compiled
  // and its pools open.
  const warmUp = Math.max(1, Number(process.env['BENCH_WARMUP_SECONDS'] ?? 5));
  for (const side of sides)
    await segment(side, side.warmUpSeconds ?? warmUp, warmUps.get(side.name));
  for (let round = 0; round < rounds; round++)
    for (const side of sides) await segment(side, segmentSeconds, tallies.get(side.name));
  return {
    segmentSeconds,
    rounds,
    sides: Object.fromEntries(
      sides.map((side) => {
        const t = tallies.get(side.name)!;
        const cpu = microsPerMessage(t.cpuSeconds, t.messages);
        const target = side.targetGroups;
        const targetOf = (perMessage: Record<string, number>) =>
          target &&
          Object.entries(perMessage)
            .filter(([k]) => target(k))
            .reduce((n, [, v]) => n + v, 0);
        const w = warmUps.get(side.name)!;
        return [
          side.name,
          {
            // The warm-up is the side's first load on its fresh database: what a new deployment
            // or a new partition costs before its statistics exist.
            warmUp: {
              seconds: side.warmUpSeconds ?? warmUp,
              messagesDone: w.messages,
              doneRate: Math.round(w.messages / w.doneSeconds),
              p99: summary(w.segments).p99,
              targetMicrosPerMessage: targetOf(microsPerMessage(w.cpuSeconds, w.messages)),
            },
            ...summary(t.segments),
            messagesDone: t.messages,
            doneRate: Math.round(t.messages / t.doneSeconds),
            cpuMicrosPerMessage: cpu,
            ...(target && { targetMicrosPerMessage: targetOf(cpu) }),
            allMicrosPerMessage: Object.values(cpu).reduce((n, v) => n + v, 0),
            ...(side.serverWal && { walBytesPerMessage: Math.round(t.walBytes / t.messages) }),
            peakRssMb: sortedDescending(t.peakRssMb),
            // Cores that other work on the shared machine kept busy meanwhile (of its two).
            otherWorkCores: Number((t.otherCpuSeconds / t.doneSeconds).toFixed(2)),
          },
        ];
      }),
    ),
  };
}

/** `a / b` to three places. */
export const ratio = (a: number, b: number) => Number((a / b).toFixed(3));
