/**
 * docs/performance.md's figures are written by the benchmarks (`pnpm bench <name> --write-docs`)
 * between markers: each pair must be whole and name a benchmark that exists, or a run would have
 * nowhere to write, or write over the wrong section.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BENCH_NAMES } from '../../bench/src/bench-names';
import { figureMarkers, replaceFigures } from '../../bench/src/docs-figures';
import { markdownTable } from '../../bench/src/figure-table';

const doc = readFileSync(join(resolve(__dirname, '../..'), 'docs/performance.md'), 'utf8');
const MARKER = /<!-- bench:([^:\s]+):(start|end) -->/g;

describe("docs/performance.md's generated figures", () => {
  const markers = [...doc.matchAll(MARKER)].map(([, name, side]) => ({ name, side }));

  it('has figures marked for several benchmarks', () => {
    expect(markers.filter((m) => m.side === 'start').length).toBeGreaterThanOrEqual(5);
  });

  it('opens and closes each block once, in order, without nesting', () => {
    const faults: string[] = [];
    const seen = new Set<string>();
    let open: string | undefined;
    for (const { name, side } of markers) {
      if (side === 'start') {
        if (open) faults.push(`${name} starts inside ${open}`);
        if (seen.has(name)) faults.push(`${name} is marked twice`);
        seen.add(name);
        open = name;
      } else {
        if (open !== name) faults.push(`${name} ends where ${open ?? 'no block'} is open`);
        open = undefined;
      }
    }
    if (open) faults.push(`${open} never ends`);
    expect(faults).toEqual([]);
  });

  it('names only benchmarks that `pnpm bench` runs', () => {
    const unknown = markers
      .map((m) => m.name)
      .filter((name) => !(BENCH_NAMES as readonly string[]).includes(name));
    expect(unknown).toEqual([]);
  });

  it('says in each block what writes it, a table, and the machine and commit measured', () => {
    const faults: string[] = [];
    for (const { name, side } of markers) {
      if (side !== 'start') continue;
      const { start, end } = figureMarkers(name);
      const block = doc.slice(doc.indexOf(start) + start.length, doc.indexOf(end));
      if (!block.includes(`pnpm bench ${name} --write-docs`)) faults.push(`${name}: no command`);
      if (!/^\| .* \|$/m.test(block)) faults.push(`${name}: no table`);
      if (!/^Measured on .*commit .*\.$/m.test(block)) faults.push(`${name}: no machine line`);
    }
    expect(faults).toEqual([]);
  });

  it('a bench run replaces its own block and leaves the rest of the document as it was', () => {
    const table = markdownTable({ columns: ['side', 'done/s'], rows: [['with receipts', 1818]] });
    const written = replaceFigures(doc, 'send', table);
    const { start, end } = figureMarkers('send');
    expect(written.slice(0, written.indexOf(start))).toBe(doc.slice(0, doc.indexOf(start)));
    expect(written.slice(written.indexOf(end))).toBe(doc.slice(doc.indexOf(end)));
    expect(written).toContain('| with receipts | 1,818  |');
    expect(() => replaceFigures(doc, 'soak', table)).toThrow(/no <!-- bench:soak:start -->/);
  });
});
