import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg } from 'node:os';
import type { BenchName } from './bench-names';
import { writeFigures } from './docs-figures';
import { markdownTable, type FigureTable } from './figure-table';

interface Machine {
  cpu: string;
  cores: number;
  node: string;
  /** One-minute load average when the benchmark started and when it reported. */
  loadAverage: { start: number; end: number };
  /** `git describe --always --dirty` of the code measured. */
  commit: string;
}

let loadAtStart = loadavg()[0];

/** Notes the machine's load as a benchmark starts (run.ts calls it before each). */
export function benchStarting(): void {
  loadAtStart = loadavg()[0];
}

function commit(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], {
      cwd: __dirname,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

/**
 * The machine a result was measured on. Absolute figures move with it and with the other work on
 * it (docs/performance.md § What is measured), so every result names it, and ratios to a baseline
 * of the same run are what compare across machines.
 */
function machine(): Machine {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    node: process.version,
    loadAverage: { start: round(loadAtStart), end: round(loadavg()[0]) },
    commit: commit(),
  };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Whether this run refreshes docs/performance.md (`pnpm bench <name> --write-docs`). */
function writesDocs(): boolean {
  return process.argv.includes('--write-docs') || process.env['BENCH_WRITE_DOCS'] === '1';
}

/** The generated block: the tables, then the machine and code they were measured on. */
function figuresBlock(bench: BenchName, m: Machine, tables: readonly FigureTable[]): string {
  return [
    `<!-- written by \`pnpm bench ${bench} --write-docs\`; edit bench/src, not these lines -->`,
    ...tables.map(markdownTable),
    `Measured on ${m.cpu}, ${m.cores} cores, Node ${m.node}; load average ${m.loadAverage.start} ` +
      `at the start, ${m.loadAverage.end} at the end; commit ${m.commit}.`,
  ].join('\n\n');
}

/**
 * Prints one benchmark's result as one JSON line, with the machine it ran on; with `--write-docs`
 * also writes `figures` into the benchmark's section of docs/performance.md.
 */
export function report(
  result: { bench: BenchName } & Record<string, unknown>,
  figures?: readonly FigureTable[],
): void {
  const { bench, ...rest } = result;
  const m = machine();
  process.stdout.write(`${JSON.stringify({ bench, machine: m, ...rest })}\n`);
  if (figures && writesDocs()) writeFigures(bench, figuresBlock(bench, m, figures));
}
