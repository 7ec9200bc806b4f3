import { byProcess, figure, latency, type FigureTable } from './figure-table';
import type { runSendRounds } from './send-rounds';

type SideFigures = Awaited<ReturnType<typeof runSendRounds>>['sides'][string];

/**
 * One row per side of runSendRounds, in the order and with the labels given: rates, latency, the
 * CPU that counts against the target and every process's, memory, WAL and the other work that ran.
 */
export function sidesTable(
  sides: Record<string, SideFigures>,
  labels: readonly (readonly [key: string, label: string])[],
): FigureTable {
  return {
    columns: [
      'side',
      'done/s',
      'answers/s',
      'p50 / p99 ms (rounds)',
      'target µs per message',
      'CPU µs per message by process',
      'peak RSS MB',
      'WAL bytes per message',
      'other work, cores',
    ],
    rows: labels
      .filter(([key]) => sides[key])
      .map(([key, label]) => {
        const s = sides[key];
        return [
          label,
          s.doneRate,
          s.rps,
          latency(s.p50, s.p99, s.roundP99),
          s.targetMicrosPerMessage,
          byProcess(s.cpuMicrosPerMessage),
          byProcess(s.peakRssMb),
          s.walBytesPerMessage,
          s.otherWorkCores,
        ];
      }),
  };
}

/** The ratios of a run, one row each, with what each compares. */
export function ratiosTable(
  ratios: Record<string, unknown>,
  labels: Record<string, string>,
): FigureTable {
  return {
    columns: ['ratio (same run)', 'figure'],
    rows: Object.entries(labels)
      .filter(([key]) => typeof ratios[key] === 'number')
      .map(([key, label]) => [label, figure(ratios[key] as number)]),
  };
}
