import { readFileSync, readdirSync } from 'node:fs';

/** CPU seconds (user + system) used so far by each process, from /proc (Linux). */
function cpuByPid(): Map<number, { seconds: number; command: string }> {
  const tick = 100; // USER_HZ on Linux
  const result = new Map<number, { seconds: number; command: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      result.set(Number(entry), {
        seconds: (Number(fields[11]) + Number(fields[12])) / tick,
        command,
      });
    } catch {
      // the process ended while we looked
    }
  }
  return result;
}

const GROUPS: [RegExp, string | ((m: RegExpExecArray) => string)][] = [
  [/postgres/, 'postgres'],
  [/beam\.smp/, 'rabbitmq'],
  [/redis-server/, 'redis'],
  [/services\/([^/]+)\/dist\/main\.js/, (m) => m[1]],
];

/**
 * Where the CPU went between start() and stop(), grouped by service, Postgres, RabbitMQ and
 * Redis: on a 2-core box this says what limits a run. Processes that ended in between are missed.
 */
export function cpuUsage(): { stop(): Record<string, number> } {
  const before = cpuByPid();
  return {
    stop() {
      const totals: Record<string, number> = {};
      for (const [pid, now] of cpuByPid()) {
        const group =
          GROUPS.map(([re, name]) => {
            const m = re.exec(now.command);
            return m ? (typeof name === 'string' ? name : name(m)) : undefined;
          }).find((g) => g !== undefined) ??
          (pid === process.pid ? 'bench (load and simulator)' : undefined);
        if (!group) continue;
        totals[group] = Number(
          ((totals[group] ?? 0) + now.seconds - (before.get(pid)?.seconds ?? 0)).toFixed(1),
        );
      }
      return totals;
    },
  };
}
