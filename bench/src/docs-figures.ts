import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchName } from './bench-names';

/** The document whose figures the benchmarks write, from bench/dist or bench/src. */
export const FIGURES_DOC = join(__dirname, '..', '..', 'docs', 'performance.md');

/** The comments that open and close the figures of one benchmark in the document. */
export function figureMarkers(bench: string): { start: string; end: string } {
  return { start: `<!-- bench:${bench}:start -->`, end: `<!-- bench:${bench}:end -->` };
}

/**
 * The document with the figures of `bench` between its markers replaced by `figures`; everything
 * else is kept byte for byte. Throws when the markers are missing, repeated or out of order, so a
 * run never appends figures where no section describes them.
 */
export function replaceFigures(doc: string, bench: string, figures: string): string {
  const { start, end } = figureMarkers(bench);
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from < 0 || to < from)
    throw new Error(`docs/performance.md has no ${start} … ${end} for these figures`);
  if (doc.indexOf(start, from + 1) >= 0 || doc.indexOf(end, to + 1) >= 0)
    throw new Error(`docs/performance.md marks the figures of ${bench} twice`);
  return `${doc.slice(0, from + start.length)}\n${figures.trim()}\n${doc.slice(to)}`;
}

/** Writes a benchmark's figures into docs/performance.md in place. */
export function writeFigures(bench: BenchName, figures: string): void {
  const doc = readFileSync(FIGURES_DOC, 'utf8');
  writeFileSync(FIGURES_DOC, replaceFigures(doc, bench, figures));
}
