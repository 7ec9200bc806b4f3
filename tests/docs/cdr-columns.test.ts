import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CDR_COLUMNS } from '@smsgw/contracts';

/** The rows of the first table under a heading of docs/operators.md whose header starts with `first`. */
function table(section: string, first: string): string[][] {
  const text = readFileSync(join(__dirname, '..', '..', 'docs', 'operators.md'), 'utf8');
  const start = text.indexOf(`\n## ${section}\n`);
  expect(start).toBeGreaterThan(0);
  const body = text
    .slice(start + 1)
    .split(/\n## /)[0]
    .slice(section.length + 3);
  const lines = body.split('\n');
  const header = lines.findIndex((l) => l.startsWith(`| ${first} `));
  expect(header).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

it("docs/operators.md § CDRs lists the export's columns, in order, as contracts has them", () => {
  expect(table('CDRs', 'column')).toEqual(
    CDR_COLUMNS.map((c) => [`\`${c.name}\``, c.meaning, c.format]),
  );
});
