import { availableParallelism, cpus } from 'node:os';

/**
 * The machine a result was measured on. Absolute figures move with it (docs/performance.md,
 * Current figures), so every result names it, and ratios to a baseline of the same run are what
 * compare across machines.
 */
function machine(): { cpu: string; cores: number; node: string } {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    node: process.version,
  };
}

/** Prints one benchmark's result as one JSON line, with the machine it ran on. */
export function report(result: { bench: string } & Record<string, unknown>): void {
  const { bench, ...rest } = result;
  process.stdout.write(`${JSON.stringify({ bench, machine: machine(), ...rest })}\n`);
}
