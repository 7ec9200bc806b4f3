import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { parse } from 'csv-parse/sync';
import { cdrColumns, type CdrRecord } from '@smsgw/contracts';
import { cdrWriter } from '../src/cdr-writer';

const columns = cdrColumns('message');

const records: CdrRecord[] = [
  { id: 'm1', account: 'ann', sender: 'a,"b"', destination: '41790000001', parts: 1, error: null },
  { id: 'm2', account: 'bob', sender: 'line\r\nbreak', destination: '33600000002', parts: 2 },
];

const written = (format: 'csv' | 'ndjson') =>
  text(Readable.from(records).pipe(cdrWriter(format, columns)));

describe('CDR writer', () => {
  it('writes CSV as RFC 4180 has it, which a CSV parser reads back field for field', async () => {
    const csv = await written('csv');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(columns.join(','));
    expect(lines[1]).toBe('m1,ann,,"a,""b""",41790000001,,1,,,,,,,,,,,,,,,,');
    expect(csv.endsWith('\r\n')).toBe(true);
    const parsed = parse<Record<string, string>>(csv, { columns: true });
    expect(parsed.map((r) => [r.id, r.sender, r.parts, r.error])).toEqual([
      ['m1', 'a,"b"', '1', ''],
      ['m2', 'line\r\nbreak', '2', ''],
    ]);
    expect(Object.keys(parsed[0])).toEqual(columns);
  });

  it('writes ndjson: one object per line, every column, null for none', async () => {
    const lines = (await written('ndjson')).split('\n');
    expect(lines.at(-1)).toBe('');
    const objects = lines.slice(0, -1).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objects.map((o) => Object.keys(o))).toEqual([columns, columns]);
    expect(objects[0]).toMatchObject({ sender: 'a,"b"', parts: 1, error: null, route: null });
    expect(objects[1]?.sender).toBe('line\r\nbreak');
  });
});
