/**
 * The pieces of the operators' view commands that need no gateway: the table written page by page,
 * the times an option takes, and the usage errors that stop a command before it asks anything (the
 * gateway named here listens nowhere, so a command that called it would fail with UNREACHABLE).
 */
import { CommanderError, InvalidArgumentError } from 'commander';
import { buildProgram } from '../src/program';
import { pointInTime } from '../src/search-options';
import { TableWriter } from '../src/table-writer';

interface Row {
  name: string;
  count: number;
}

describe('TableWriter', () => {
  it('writes the headings once and keeps the first page’s columns for the pages after it', () => {
    const lines: string[] = [];
    const table = new TableWriter<Row>(
      [
        { head: 'NAME', cell: (r) => r.name, maxWidth: 12 },
        { head: 'COUNT', cell: (r) => String(r.count), align: 'right' },
      ],
      (line) => lines.push(line),
    );
    table.write([
      { name: 'alice', count: 3 },
      { name: 'bob', count: 120 },
    ]);
    table.write([]);
    table.write([{ name: 'a-name-longer-than-the-column', count: 7 }]);
    expect(lines).toEqual(['NAME   COUNT', 'alice      3', 'bob      120', 'a-na…      7']);
  });

  it('gives a last column aligned left each value whole, up to its widest', () => {
    const lines: string[] = [];
    const table = new TableWriter<Row>(
      [
        { head: 'COUNT', cell: (r) => String(r.count), align: 'right' },
        { head: 'NAME', cell: (r) => r.name, maxWidth: 12 },
      ],
      (line) => lines.push(line),
    );
    table.write([{ name: 'bob', count: 1 }]);
    table.write([
      { name: 'a-longer-name', count: 22 },
      { name: 'eve', count: 3 },
    ]);
    expect(lines).toEqual(['COUNT  NAME', '    1  bob', '   22  a-longer-na…', '    3  eve']);
  });

  it('keeps a row on one line whatever its text holds', () => {
    const lines: string[] = [];
    new TableWriter<Row>([{ head: 'TEXT', cell: (r) => r.name }], (line) => lines.push(line)).write(
      [{ name: 'two\nlines\tand a tab', count: 0 }],
    );
    expect(lines).toEqual(['TEXT', 'two lines and a tab']);
  });
});

describe('pointInTime', () => {
  const at = pointInTime(() => Date.parse('2026-12-02T06:00:00.000Z'));

  it('takes a while ago in minutes, hours or days', () => {
    expect(at('30m')).toBe('2026-12-02T05:30:00.000Z');
    expect(at('6h')).toBe('2026-12-02T00:00:00.000Z');
    expect(at('2d')).toBe('2026-11-30T06:00:00.000Z');
  });

  it('passes ISO 8601 with an offset as it is', () => {
    expect(at('2026-12-01T08:00:00Z')).toBe('2026-12-01T08:00:00Z');
    expect(at('2026-12-01T08:00:00.250+01:00')).toBe('2026-12-01T08:00:00.250+01:00');
  });

  it('refuses a time without offset, a date alone and words', () => {
    for (const value of [
      '2026-12-01T08:00:00',
      '2026-12-01',
      'yesterday',
      '6 h',
      '2026-13-45T08:00:00Z',
    ])
      expect(() => at(value)).toThrow(InvalidArgumentError);
  });
});

describe('usage errors', () => {
  const run = (args: string[]) =>
    buildProgram({
      env: { SMSGW_URL: 'http://127.0.0.1:9', SMSGW_ADMIN_TOKEN: 'not-used' },
      print: () => undefined,
      printError: () => undefined,
    }).parseAsync(['node', 'smsgw', ...args]);

  it.each([
    [['messages', 'search', '--since', 'yesterday'], /--since/],
    [['messages', 'search', '--until', '2026-12-01'], /--until/],
    [['messages', 'search', '--to', '44x'], /--to/],
    [['messages', 'search', '--state', 'delivered,lost'], /--state/],
    [['messages', 'search', '--entry', 'fax'], /--entry/],
    [['messages', 'search', '--batch', 'b-1'], /--batch/],
    [['messages', 'search', '--limit', '0'], /--limit/],
    [['messages', 'search', '--limit', '501'], /--limit/],
    [['messages', 'show', 'not-a-message-id'], /id/],
    [['batches', 'list', '--state', 'paused'], /--state/],
    [['accounts', 'list', '--search', ''], /--search/],
  ])('%j is refused naming the option, before any request', async (args, named) => {
    const refused = await run(args).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(CommanderError);
    expect((refused as CommanderError).code).toBe('commander.invalidArgument');
    expect((refused as CommanderError).message).toMatch(named);
  });

  it('an account asking with --account is refused before any request', async () => {
    const refused = await run([
      'messages',
      'search',
      '--account',
      'bob',
      '-u',
      'alice',
      '-p',
      'alice-password',
    ]).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(InvalidArgumentError);
    expect((refused as Error).message).toMatch(/--account is for the admin token/);
  });
});
