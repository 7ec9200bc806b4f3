import { Transform } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { CdrFormat, CdrRecord } from '@smsgw/contracts';

/** Each record as one line of JSON, its keys in the columns' order, null for an empty cell. */
function ndjsonLines(columns: readonly string[]): Transform {
  return new Transform({
    writableObjectMode: true,
    transform(record: CdrRecord, _encoding, done) {
      const line: Record<string, unknown> = {};
      for (const c of columns) line[c] = record[c as keyof CdrRecord] ?? null;
      done(null, `${JSON.stringify(line)}\n`);
    },
  });
}

/**
 * Writes CDR records (objects in) as the export's text (bytes out): CSV as RFC 4180 has it (a
 * header row, CRLF line ends, a field with a comma, quote or line end quoted and its quotes
 * doubled), or ndjson.
 */
export function cdrWriter(format: CdrFormat, columns: readonly string[]): Transform {
  if (format === 'ndjson') return ndjsonLines(columns);
  return stringify({ header: true, columns: [...columns], record_delimiter: '\r\n' });
}
