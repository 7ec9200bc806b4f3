/**
 * docs/architecture.md promises that no service imports another: apps sit above services, services
 * above packages. A service that needs another's code is a sign the code belongs in a package.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function manifestOf(dir: string): Manifest {
  return JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as Manifest;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(join(root, path)).isDirectory()) return sourcesUnder(path);
    return entry.endsWith('.ts') ? [path] : [];
  });
}

/** The workspace packages under `parent` (services, packages): the directories with a package.json. */
function workspacesUnder(parent: string): string[] {
  return readdirSync(join(root, parent))
    .map((entry) => `${parent}/${entry}`)
    .filter((dir) => statSync(join(root, dir, 'package.json'), { throwIfNoEntry: false }));
}

const serviceDirs = workspacesUnder('services');
const serviceNames = new Set(serviceDirs.map((dir) => manifestOf(dir).name));

/** Every `@smsgw/<name>` a source file imports, exports from or requires. */
function workspaceImportsOf(text: string): string[] {
  const named = text.matchAll(/(?:from|import|require\()\s*\(?\s*'(@smsgw\/[\w-]+)(?:\/[^']*)?'/g);
  return [...named].map((match) => match[1]);
}

describe('no service imports another', () => {
  it('finds the services and their names', () => {
    expect(serviceNames).toEqual(
      new Set([
        '@smsgw/api-gateway',
        '@smsgw/auth',
        '@smsgw/batch-scheduler',
        '@smsgw/callback-notifier',
        '@smsgw/dispatcher',
        '@smsgw/smpp-server',
      ]),
    );
  });

  it("no service's package.json lists another service", () => {
    const offending: string[] = [];
    for (const dir of serviceDirs) {
      const manifest = manifestOf(dir);
      const listed = {
        ...manifest.dependencies,
        ...manifest.devDependencies,
        ...manifest.peerDependencies,
      };
      for (const name of Object.keys(listed))
        if (serviceNames.has(name) && name !== manifest.name)
          offending.push(`${dir}/package.json: ${name}`);
    }
    expect(offending).toEqual([]);
  });

  it("no service's source imports another service", () => {
    const offending: string[] = [];
    let files = 0;
    for (const dir of serviceDirs) {
      const own = manifestOf(dir).name;
      for (const file of sourcesUnder(`${dir}/src`)) {
        files += 1;
        for (const name of workspaceImportsOf(readFileSync(join(root, file), 'utf8')))
          if (serviceNames.has(name) && name !== own) offending.push(`${file}: ${name}`);
      }
    }
    expect(files).toBeGreaterThan(100);
    expect(offending).toEqual([]);
  });

  it('no package imports a service', () => {
    const offending: string[] = [];
    for (const dir of workspacesUnder('packages')) {
      const listed = Object.keys(manifestOf(dir).dependencies ?? {});
      offending.push(...listed.filter((name) => serviceNames.has(name)).map((n) => `${dir}: ${n}`));
      for (const file of sourcesUnder(`${dir}/src`))
        for (const name of workspaceImportsOf(readFileSync(join(root, file), 'utf8')))
          if (serviceNames.has(name)) offending.push(`${file}: ${name}`);
    }
    expect(offending).toEqual([]);
  });

  it('recognises the import forms it looks for', () => {
    expect(
      workspaceImportsOf(
        [
          "import { createSendAcceptance } from '@smsgw/api-gateway';",
          "export { x } from '@smsgw/auth';",
          "import type {\n  A,\n} from '@smsgw/dispatcher';",
          "const m = await import('@smsgw/smpp-server');",
          "import '@smsgw/callback-notifier';",
          "import { waitFor } from '@smsgw/kit/testing';",
        ].join('\n'),
      ),
    ).toEqual([
      '@smsgw/api-gateway',
      '@smsgw/auth',
      '@smsgw/dispatcher',
      '@smsgw/smpp-server',
      '@smsgw/callback-notifier',
      '@smsgw/kit',
    ]);
  });
});
