/**
 * Every benchmark `pnpm bench <name>` runs. docs/performance.md's generated figures are marked
 * with one of these names each (tests/docs/bench-figures.test.ts holds them to it).
 */
export const BENCH_NAMES = [
  'send',
  'send-noreceipt',
  'batch',
  'batch-noreceipt',
  'embedded',
  'legacy',
  'lifecycle',
  'pacing',
  'routing',
  'scale',
  'credentials',
  'soak',
  'kannel',
  'smpp-server',
  'search',
] as const;

export type BenchName = (typeof BENCH_NAMES)[number];
