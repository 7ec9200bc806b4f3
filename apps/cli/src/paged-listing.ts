import { TableWriter, type Column } from './table-writer';

/** One page of a listing as the gateway answered it, and the rows taken from it. */
export interface Page<T> {
  raw: unknown;
  rows: readonly T[];
  next: string | null;
  /** The time range the gateway searched, when it says. */
  range?: { since: string; until: string };
}

export interface Listing<T> {
  /** What the rows are, for the line that says there were none ("messages"). */
  noun: string;
  columns: readonly Column<T>[];
  page(next: string | undefined): Promise<Page<T>>;
}

export interface ListingOptions {
  json?: boolean;
  all?: boolean;
  next?: string;
}

export interface ListingOutput {
  print(line: string): void;
  show(value: unknown): void;
}

/**
 * Prints a listing: one page, or with `all` every page by following `next`, each printed as it
 * comes so a long listing never waits for its end nor is held whole in memory. People get a table;
 * `json` gives the gateway's answer as it is for one page, and NDJSON (one row a line) for all.
 */
export async function printListing<T>(
  listing: Listing<T>,
  o: ListingOptions,
  out: ListingOutput,
): Promise<void> {
  const table = new TableWriter(listing.columns, (line) => out.print(line));
  let cursor = o.next;
  let shown = 0;
  for (;;) {
    const page = await listing.page(cursor);
    if (o.json && !o.all) return out.show(page.raw);
    if (o.json) for (const row of page.rows) out.print(JSON.stringify(row));
    else table.write(page.rows);
    shown += page.rows.length;
    if (page.next === null) {
      if (shown === 0 && !o.json) out.print(nothingFound(listing.noun, page.range));
      return;
    }
    if (!o.all) {
      out.print(`more: --next ${page.next} (or --all for every page)`);
      return;
    }
    // A gateway that answered the same `next` twice would be followed for ever.
    if (page.next === cursor)
      throw new Error(`the gateway answered the same next twice (${cursor})`);
    cursor = page.next;
  }
}

const nothingFound = (noun: string, range: Page<unknown>['range']): string =>
  range ? `no ${noun} from ${range.since} to ${range.until}` : `no ${noun}`;
