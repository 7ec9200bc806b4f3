/** A table of a benchmark's figures, as docs/performance.md shows it. */
export interface FigureTable {
  columns: readonly string[];
  rows: readonly (readonly (string | number | undefined)[])[];
}

/** `1818` → `1,818`, as the docs write figures; text is kept as it is, a missing figure is `—`. */
export function figure(value: string | number | undefined): string {
  if (value === undefined || (typeof value === 'number' && !Number.isFinite(value))) return '—';
  return typeof value === 'number' ? value.toLocaleString('en-US') : value;
}

/** The smallest and largest of a figure over rounds: `41–58`, or `41` when they agree. */
export function span(values: readonly number[]): string {
  if (values.length === 0) return '—';
  const low = Math.min(...values);
  const high = Math.max(...values);
  return low === high ? figure(low) : `${figure(low)}–${figure(high)}`;
}

/** `{ dispatcher: 146, Postgres: 143 }` → `dispatcher 146, Postgres 143` (largest first). */
export function byProcess(values: Record<string, number> | undefined): string {
  if (!values) return '—';
  return Object.entries(values)
    .filter(([, v]) => v > 0)
    .sort(([, a], [, b]) => b - a)
    .map(([k, v]) => `${k} ${figure(v)}`)
    .join(', ');
}

/** `p50 / p99 (each round's p99)`, in ms. */
export function latency(
  p50: number | undefined,
  p99: number | undefined,
  rounds?: number[],
): string {
  const worst =
    rounds && rounds.length > 1 ? ` (${Math.min(...rounds)}–${Math.max(...rounds)})` : '';
  return `${figure(p50)} / ${figure(p99)}${worst}`;
}

/**
 * The table in Markdown, its columns padded as prettier pads them, so a written doc passes
 * `prettier --check` unchanged. A `|` in a cell is escaped.
 */
export function markdownTable(table: FigureTable): string {
  const cells = [
    table.columns.map((c) => c.replace(/\|/g, '\\|')),
    ...table.rows.map((row) => table.columns.map((_, i) => figure(row[i]).replace(/\|/g, '\\|'))),
  ];
  const widths = table.columns.map((_, i) => Math.max(3, ...cells.map((row) => row[i].length)));
  const line = (row: readonly string[]) =>
    `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(cells[0]), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join(
    '\n',
  );
}
