import { parse } from 'csv-parse/sync';
import { DEFAULT_PRICE_PREFIX, MAX_PRICE_ROWS } from '@smsgw/contracts';
import type { PriceRowInput } from '@smsgw/store';

/** A row of a price list file that cannot be taken, by its line (the header is line 1). */
export interface PriceCsvProblem {
  line: number;
  message: string;
}

const COLUMNS = ['prefix', 'price', 'currency', 'description'] as const;
const PRICE = /^\d{1,14}(\.\d{1,6})?$/;
/** Problems listed at most: a file with every row wrong says so without a megabyte of answer. */
const MAX_PROBLEMS = 100;

/**
 * Reads a price list file: a header naming `prefix` and `price` and optionally `currency` and
 * `description`, in any order, then a row per prefix (`*` for the default row). Every row is
 * checked; any problem refuses the whole file, each named by its line.
 */
export function parsePriceCsv(
  text: string,
  currency: string,
): { rows: PriceRowInput[] } | { problems: PriceCsvProblem[] } {
  let records: string[][];
  try {
    records = parse(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
    });
  } catch (err) {
    const line = (err as { lines?: number }).lines ?? 1;
    return { problems: [{ line, message: `not CSV: ${(err as Error).message}` }] };
  }
  const header = (records[0] ?? []).map((h) => h.toLowerCase());
  const at = Object.fromEntries(COLUMNS.map((c) => [c, header.indexOf(c)])) as Record<
    (typeof COLUMNS)[number],
    number
  >;
  const unknown = header.filter((h) => !(COLUMNS as readonly string[]).includes(h));
  if (at.prefix < 0 || at.price < 0 || unknown.length > 0)
    return {
      problems: [
        {
          line: 1,
          message: `expected a header of prefix,price[,currency][,description]${unknown.length > 0 ? `, not ${unknown.join(', ')}` : ''}`,
        },
      ],
    };
  if (records.length - 1 > MAX_PRICE_ROWS)
    return { problems: [{ line: MAX_PRICE_ROWS + 2, message: `at most ${MAX_PRICE_ROWS} rows` }] };
  const problems: PriceCsvProblem[] = [];
  const rows: PriceRowInput[] = [];
  const lineOf = new Map<string, number>();
  for (let i = 1; i < records.length && problems.length < MAX_PROBLEMS; i++) {
    const line = i + 1;
    const record = records[i];
    const prefix = (record[at.prefix] ?? '').replace(/^\+/, '');
    const price = record[at.price] ?? '';
    const rowCurrency = at.currency >= 0 ? (record[at.currency] ?? '') : '';
    const description = at.description >= 0 ? (record[at.description] ?? '') : '';
    if (record.length > header.length) {
      problems.push({
        line,
        message: `${record.length} fields, the header names ${header.length}`,
      });
      continue;
    }
    if (prefix !== DEFAULT_PRICE_PREFIX && !/^\d{1,15}$/.test(prefix)) {
      problems.push({
        line,
        message: `prefix ${JSON.stringify(prefix)}: expected 1 to 15 digits, or * for the default row`,
      });
      continue;
    }
    if (!PRICE.test(price)) {
      problems.push({
        line,
        message: `price ${JSON.stringify(price)}: expected a price ≥ 0 with at most 6 decimals`,
      });
      continue;
    }
    if (rowCurrency !== '' && rowCurrency.toUpperCase() !== currency) {
      problems.push({ line, message: `currency ${rowCurrency}: the list is in ${currency}` });
      continue;
    }
    if (description.length > 200) {
      problems.push({ line, message: 'description: at most 200 characters' });
      continue;
    }
    const first = lineOf.get(prefix);
    if (first !== undefined) {
      problems.push({ line, message: `prefix ${prefix} again (line ${first} has it)` });
      continue;
    }
    lineOf.set(prefix, line);
    rows.push({ prefix, price, description: description === '' ? null : description });
  }
  if (problems.length > 0) return { problems };
  if (rows.length === 0)
    return { problems: [{ line: 2, message: 'no rows: a list prices something' }] };
  return { rows };
}
