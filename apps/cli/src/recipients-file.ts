import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';

/**
 * Recipients from a CSV file: the first column of each row (or the column named `to`). A header
 * row is recognised by its first field not being a number.
 */
export function readRecipients(path: string): string[] {
  const rows: string[][] = parse(readFileSync(path, 'utf8'), {
    skip_empty_lines: true,
    trim: true,
    relax_column_count: true,
    bom: true,
  });
  if (rows.length === 0) return [];
  let column = 0;
  let start = 0;
  const header = rows[0];
  if (!/^\+?\d+$/.test(header[0] ?? '')) {
    const named = header.findIndex((h) => h.toLowerCase() === 'to');
    column = named >= 0 ? named : 0;
    start = 1;
  }
  const recipients: string[] = [];
  for (let i = start; i < rows.length; i++) {
    const value = rows[i][column];
    if (value) recipients.push(value);
  }
  return recipients;
}
