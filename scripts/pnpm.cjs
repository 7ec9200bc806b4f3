#!/usr/bin/env node
// Runs the pnpm version that package.json pins (packageManager), so a machine with only Node and
// npm can run `npm start` and `npm test`: a pnpm of that major on PATH is used as it is, otherwise
// npx fetches the pinned version into npm's cache once.
'use strict';
const { spawnSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager;
const match = /^pnpm@(\d+)\.\d+\.\d+$/.exec(pinned ?? '');
if (!match) {
  console.error(`package.json: packageManager must be pnpm@x.y.z, found ${String(pinned)}`);
  process.exit(1);
}
const version = pinned.slice('pnpm@'.length);
const args = process.argv.slice(2);
const shell = process.platform === 'win32';

function onPath() {
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8', shell });
  return probe.status === 0 && probe.stdout.trim().split('.')[0] === match[1];
}

const run = onPath()
  ? spawnSync('pnpm', args, { stdio: 'inherit', cwd: process.cwd(), shell })
  : spawnSync('npx', ['--yes', `pnpm@${version}`, ...args], {
      stdio: 'inherit',
      cwd: process.cwd(),
      shell,
    });
if (run.error) {
  console.error(run.error.message);
  process.exit(1);
}
process.exit(run.status ?? 1);
