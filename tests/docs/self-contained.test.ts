/**
 * A clone of the repository explains itself: no file points to a document the repository lacks,
 * and every path the architecture document names exists.
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
});
