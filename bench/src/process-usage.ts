import { readFileSync, readdirSync } from 'node:fs';

/** USER_HZ on Linux: /proc/<pid>/stat counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;
const SAMPLE_MS = 250;

/** Names a process (its pid and command line) for the figures, or leaves it out (undefined). */
export type Grouping = (pid: number, command: string) => string | undefined;

export interface Usage {
  /** CPU seconds (user + system) each group used between start and stop. */
  cpuSeconds: Record<string, number>;
  /** The group's largest resident memory seen, shared memory counted once (MB). */
  peakRssMb: Record<string, number>;
  /** CPU seconds the machine spent on everything else (other work on a shared machine). */
  otherCpuSeconds: number;
}

/** CPU seconds the whole machine has been busy (all cores), from /proc/stat. */
function machineBusySeconds(): number {
  const fields = (read('/proc/stat') ?? '').split('\n')[0].split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields;
  return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process ended while we looked
  }
}

function cpuSeconds(pid: number): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Private and file-backed resident memory, and shared memory apart, in kB. */
function memoryKb(pid: number): { own: number; shared: number } | undefined {
  const status = read(`/proc/${pid}/status`);
  if (!status) return undefined;
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { own: kb('RssAnon') + kb('RssFile'), shared: kb('RssShmem') };
}

/**
 * CPU and peak memory of the processes `group` names, read from /proc (Linux) every 250 ms, so a
 * process that ends or starts in between (a Postgres backend) still counts up to its last sample.
 * Postgres's backends share its buffers: a group's memory adds its processes' own pages and the
 * largest shared part once, so the sum is not inflated by every backend mapping the same buffers.
 */
export function processUsage(group: Grouping): { stop(): Usage } {
  const groupOf = new Map<number, string | undefined>();
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const peakKb: Record<string, number> = {};
  const sample = (initial: boolean) => {
    const ownKb: Record<string, number> = {};
    const sharedKb: Record<string, number> = {};
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      if (!groupOf.has(pid)) {
        const command = read(`/proc/${pid}/cmdline`);
        if (command === undefined) continue;
        groupOf.set(pid, group(pid, command.replace(/\0/g, ' ')));
      }
      const name = groupOf.get(pid);
      if (!name) continue;
      const cpu = cpuSeconds(pid);
      const memory = memoryKb(pid);
      if (cpu === undefined || !memory) continue;
      // A process first seen after start() started after it: all its CPU counts.
      if (!first.has(pid)) first.set(pid, initial ? cpu : 0);
      last.set(pid, cpu);
      ownKb[name] = (ownKb[name] ?? 0) + memory.own;
      sharedKb[name] = Math.max(sharedKb[name] ?? 0, memory.shared);
    }
    for (const name of Object.keys(ownKb))
      peakKb[name] = Math.max(peakKb[name] ?? 0, ownKb[name] + sharedKb[name]);
  };
  sample(true);
  const busyBefore = machineBusySeconds();
  const timer = setInterval(() => sample(false), SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      sample(false);
      const cpu: Record<string, number> = {};
      for (const [pid, seconds] of last) {
        const name = groupOf.get(pid);
        if (name) cpu[name] = (cpu[name] ?? 0) + seconds - (first.get(pid) ?? 0);
      }
      const grouped = Object.values(cpu).reduce((n, v) => n + v, 0);
      return {
        otherCpuSeconds: round(Math.max(0, machineBusySeconds() - busyBefore - grouped), 2),
        cpuSeconds: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, round(v, 2)])),
        peakRssMb: Object.fromEntries(
          Object.entries(peakKb).map(([k, v]) => [k, Math.round(v / 1024)]),
        ),
      };
    },
  };
}

const round = (v: number, digits: number) => Number(v.toFixed(digits));

/**
 * The shared servers, as their processes are named on Debian: Postgres's backends of `database`
 * and its background processes (other databases' backends are other work on the machine),
 * RabbitMQ's Erlang VM, Redis.
 */
export function sharedServers(database: string | undefined): Grouping {
  return (_pid, command) => {
    if (/beam\.smp/.test(command)) return 'rabbitmq';
    if (/^redis-server/.test(command)) return 'redis';
    if (!/^(postgres|\/usr\/lib\/postgresql\/)/.test(command)) return undefined;
    // A backend's title is `postgres: <cluster>: <user> <database> <client>(<port>) <activity>`.
    const backend = /^postgres: [^:]+: \S+ (\S+) (\S+\(\d+\)|\[local\])/.exec(command);
    if (!backend) return database === undefined ? undefined : 'postgres';
    return backend[1] === database ? 'postgres' : undefined;
  };
}

/** Each group's CPU in microseconds per message. */
export function microsPerMessage(
  cpuSeconds: Record<string, number>,
  messages: number,
): Record<string, number> {
  const each = Object.fromEntries(
    Object.entries(cpuSeconds).map(([k, v]) => [k, Math.round((v * 1e6) / messages)]),
  );
  return sortedDescending(each);
}

export function sortedDescending(values: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(values).sort((a, b) => b[1] - a[1]));
}
