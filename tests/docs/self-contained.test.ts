/**
 * A clone of the repository explains itself: no file points to a document the repository lacks,
 * every path the architecture document names exists, and every `docs/x.md § Heading` names a
 * heading the document has.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file !== '' && existsSync(join(root, file)));
const textFiles = tracked.filter((file) =>
  /\.(ts|js|cjs|mjs|md|ya?ml|json|sql|sh)$|^\.ci\//.test(file),
);

/** Names of documents that lived beside the repository, never in it. */
const OUTSIDE = [
  /\bDESIGN\.md\b/,
  /\bTRAPS\.md\b/,
  /\.\.\/shared\b/,
  /\bmessaging-rest-service\.md\b/,
  /\bspec \d+(\.\d+)?\b/i,
  /\bissue: /i,
];

/** A file's text as one line of prose: comment leaders dropped, so a reference may wrap. */
function prose(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/^\s*(\/\/+|\*|\/\*\*?|--|#(?!#))\s?/, ''))
    .join(' ')
    .replace(/`/g, '')
    .replace(/\s+/g, ' ');
}

/** The headings of a Markdown file, without their `#` and backticks (fenced code left out). */
function headings(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return [...text.matchAll(/^#{1,6} (.+)$/gm)].map(([, h]) => h.replace(/`/g, '').trim());
}

/**
 * Whether the text after `§` names the heading: it starts with the whole heading, or is the start
 * of one up to where the reference ends (`§ Promise 2)` names "Promise 2: once at the SMSC").
 */
function names(reference: string, heading: string): boolean {
  if (reference.startsWith(heading) && !/^\w/.test(reference.slice(heading.length))) return true;
  const cut = reference.split(/[),;.:"]|, | — | \(/)[0].trim();
  return cut.length > 0 && heading.startsWith(cut) && !/^\w/.test(heading.slice(cut.length));
}

describe('the repository is self-contained', () => {
  it('no file refers to a document outside the repository', () => {
    const offending: string[] = [];
    for (const file of textFiles) {
      if (file === 'tests/docs/self-contained.test.ts') continue;
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (OUTSIDE.some((pattern) => pattern.test(line)))
            offending.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offending).toEqual([]);
  });

  it('every relative link in the docs and README resolves', () => {
    const broken: string[] = [];
    for (const file of textFiles.filter((f) => f.endsWith('.md'))) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        if (/^[a-z]+:/i.test(target)) continue;
        if (!existsSync(resolve(root, dirname(file), target))) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every path docs/architecture.md names exists', () => {
    const text = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
    const named = new Set<string>();
    for (const [, span] of text.matchAll(/`([^`\s]+)`/g)) {
      const path = span.replace(/[:#].*$/, '').replace(/\(\)$/, '');
      if (/^(packages|services|apps|bench|tests|docs|k8s|deploy)\/[\w./-]+$/.test(path))
        named.add(path);
    }
    expect(named.size).toBeGreaterThan(20);
    expect([...named].filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });

  it('every `§` names a heading of the document it points to', () => {
    const wrong: string[] = [];
    for (const file of textFiles) {
      if (file === 'tests/docs/self-contained.test.ts') continue;
      const text = prose(readFileSync(join(root, file), 'utf8'));
      for (const [, doc, reference] of text.matchAll(/([\w./-]*\.md)"? ?§ ?(.{0,80})/g)) {
        const target = [doc, join(dirname(file), doc), join('docs', doc)].find((f) =>
          existsSync(join(root, f)),
        );
        if (!target) {
          wrong.push(`${file}: ${doc} § ${reference} (no such document)`);
          continue;
        }
        if (!headings(target).some((h) => names(reference, h)))
          wrong.push(`${file}: ${doc} § ${reference}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
