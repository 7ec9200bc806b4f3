import Table from 'cli-table3';

/** One column of a listing: its heading, how a row shows in it, and the widest it may grow. */
export interface Column<T> {
  head: string;
  cell(row: T): string;
  maxWidth?: number;
  align?: 'left' | 'right';
}

const GAP = '  ';
const DEFAULT_MAX_WIDTH = 40;
const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: GAP,
};

/** Line breaks and tabs would break a row in two; a cell shows them as spaces. */
const oneLine = (text: string): string => text.replace(/[\r\n\t]+/g, ' ');

const cut = (text: string, width: number): string => {
  const chars = [...text];
  return chars.length > width ? `${chars.slice(0, width - 1).join('')}…` : text;
};

/**
 * Writes rows as aligned columns without borders, page by page as they come: the column widths are
 * set by the first page (and the headings) and kept after it, so later pages line up under the same
 * headings, a longer value cut with an ellipsis. A last column aligned left lines up with nothing
 * after it, so it takes each value whole, up to its widest.
 */
export class TableWriter<T> {
  private widths: number[] | undefined;

  constructor(
    private readonly columns: readonly Column<T>[],
    private readonly print: (line: string) => void,
  ) {}

  write(rows: readonly T[]): void {
    const lastAt = this.columns.length - 1;
    const free = (this.columns[lastAt]?.align ?? 'left') === 'left' ? lastAt : -1;
    const widest = (c: Column<T>) => Math.max(c.maxWidth ?? DEFAULT_MAX_WIDTH, c.head.length);
    const cells = rows.map((row) =>
      this.columns.map((c, i) => {
        const text = oneLine(c.cell(row));
        return i === free ? cut(text, widest(c)) : text;
      }),
    );
    const first = this.widths === undefined;
    const widths = (this.widths ??= this.columns.map((c, i) =>
      Math.min(Math.max(c.head.length, ...cells.map((r) => [...(r[i] ?? '')].length)), widest(c)),
    ));
    const table = new Table({
      chars: NO_BORDERS,
      style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [] },
      colWidths: widths.map((width, i) => (i === free ? null : width)),
      colAligns: this.columns.map((c) => c.align ?? 'left'),
      wordWrap: false,
      ...(first && { head: this.columns.map((c) => c.head) }),
    });
    table.push(...cells);
    if (cells.length === 0 && !first) return;
    for (const line of table.toString().split('\n')) this.print(line.trimEnd());
  }
}
