/**
 * Secrets published with the source, and what a default install exposes. Every service is started
 * as a process, as a deployment runs it: with a secret anyone can read in this repository it must
 * refuse to start and say why, unless SMSGW_INSECURE_DEV_SECRETS=1 says this is a development
 * install, and then it warns. The deployment files are read as an operator's tools would.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { startEmbedded } from '../support/embedded';
import { request } from '../support/http';
import { ROOT, runNode, startService, type ServiceProcess } from '../support/processes';

type Secret = 'ADMIN_TOKEN' | 'JWT_SECRET' | 'INTERNAL_TOKEN' | 'CONNECTOR_SECRET_KEY';
const SECRETS: Secret[] = ['ADMIN_TOKEN', 'JWT_SECRET', 'INTERNAL_TOKEN', 'CONNECTOR_SECRET_KEY'];

/** Which process reads which secret: auth all four, the gateway the internal token, embedded two. */
const READERS: Record<Secret, string[]> = {
  ADMIN_TOKEN: ['auth', 'standalone'],
  JWT_SECRET: ['auth', 'standalone'],
  INTERNAL_TOKEN: ['auth', 'api-gateway'],
  CONNECTOR_SECRET_KEY: ['auth'],
};

/** Values earlier releases shipped in docker-compose.yml and k8s/overlays/dev. */
const SHIPPED_BEFORE: [Secret, string][] = [
  ['ADMIN_TOKEN', 'change-me-admin-token'],
  ['JWT_SECRET', 'change-me-jwt-secret-at-least-32-characters'],
  ['ADMIN_TOKEN', 'dev-admin-token-change-me'],
  ['JWT_SECRET', 'dev-jwt-secret-at-least-32-characters-long'],
];

function filesUnder(dir: string, ending: RegExp): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return filesUnder(path, ending);
    return ending.test(entry) ? [path] : [];
  });
}

/**
 * Every literal value the repository gives a secret: in compose and the k8s manifests
 * (`ADMIN_TOKEN: value`) and in the docs' examples (`ADMIN_TOKEN=value`, `SMSGW_ADMIN_TOKEN=…`).
 */
function publishedSecrets(): [Secret, string][] {
  const files = [
    join(ROOT, 'docker-compose.yml'),
    join(ROOT, 'README.md'),
    ...filesUnder(join(ROOT, 'docs'), /\.md$/),
    ...filesUnder(join(ROOT, 'k8s'), /\.ya?ml$/),
  ];
  const found = new Map<string, [Secret, string]>();
  const pattern =
    /\b(?:SMSGW_)?(ADMIN_TOKEN|JWT_SECRET|INTERNAL_TOKEN|CONNECTOR_SECRET_KEY)\s*[=:]\s*['"]?([^\s'"`$&|,)]{16,})/g;
  for (const file of files) {
    for (const [, name, value] of readFileSync(file, 'utf8').matchAll(pattern)) {
      // Names of the variables themselves (`key: ADMIN_TOKEN`, anchors) are not values.
      if (/^(\*|&)|^(ADMIN_TOKEN|JWT_SECRET|INTERNAL_TOKEN|CONNECTOR_SECRET_KEY)$/.test(value))
        continue;
      found.set(`${name}=${value}`, [name as Secret, value]);
    }
  }
  for (const [name, value] of SHIPPED_BEFORE) found.set(`${name}=${value}`, [name, value]);
  return [...found.values()];
}

/** Secrets the policy accepts, so that each case fails for the one value under test. */
const strong = (): Record<Secret, string> => ({
  ADMIN_TOKEN: randomBytes(24).toString('hex'),
  JWT_SECRET: randomBytes(32).toString('hex'),
  INTERNAL_TOKEN: randomBytes(24).toString('hex'),
  CONNECTOR_SECRET_KEY: randomBytes(32).toString('hex'),
});

const dataDirs: string[] = [];
const running: ServiceProcess[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'smsgw-secrets-'));
  dataDirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** The environment of one process: no database or broker URL, so it needs nothing but itself. */
function envFor(service: string, secrets: Record<string, string>): Record<string, string> {
  return {
    ...secrets,
    AUTH_URL: 'http://127.0.0.1:9',
    DATA_DIR: dataDir(),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...(service === 'standalone' ? {} : { SHUTDOWN_TIMEOUT_MS: '1000' }),
  };
}

const SCRIPTS: Record<string, string> = {
  auth: 'services/auth/dist/main.js',
  'api-gateway': 'services/api-gateway/dist/main.js',
  standalone: 'apps/standalone/dist/main.js',
};

describe('a secret published in the repository', () => {
  const published = publishedSecrets();

  it('is found in compose, the development overlay and the docs', () => {
    const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), {
      merge: true,
    }) as { services: Record<string, { environment?: Record<string, string> }> };
    for (const name of SECRETS) {
      const value = compose.services['auth']?.environment?.[name];
      expect({ name, value }).toEqual({ name, value: expect.any(String) });
      expect(published).toContainEqual([name, value]);
    }
  });

  const cases = published.flatMap(([name, value]) =>
    READERS[name].map((service) => [service, name, value] as const),
  );
  it.each(cases)(
    '%s refuses %s=%s at start, naming the variable and the reason',
    async (service, name, value) => {
      const result = await runNode(
        SCRIPTS[service],
        [],
        envFor(service, { ...strong(), [name]: value }),
        20_000,
      );
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code: 1,
        stderr: expect.stringContaining(`configuration error: ${name}: `),
      });
      expect(result.stderr).toMatch(/published|placeholder/);
      expect(result.stderr).toContain('SMSGW_INSECURE_DEV_SECRETS=1');
    },
  );
});

describe('a secret too short or too plain', () => {
  const cases: [string, Secret, string, RegExp][] = [
    ['auth', 'ADMIN_TOKEN', randomBytes(10).toString('hex'), /at least 24 characters/],
    ['auth', 'JWT_SECRET', randomBytes(31).toString('base64url').slice(0, 31), /at least 32/],
    ['api-gateway', 'INTERNAL_TOKEN', randomBytes(23).toString('base64url').slice(0, 23), /24/],
    ['standalone', 'ADMIN_TOKEN', 'a'.repeat(40), /distinct characters/],
  ];
  it.each(cases)('%s refuses %s=%s', async (service, name, value, reason) => {
    const result = await runNode(
      SCRIPTS[service],
      [],
      envFor(service, { ...strong(), [name]: value }),
      20_000,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`configuration error: ${name}: `);
    expect(result.stderr).toMatch(reason);
  });
});

describe('SMSGW_INSECURE_DEV_SECRETS=1 (what compose and the development overlay set)', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), {
    merge: true,
  }) as { services: Record<string, { environment: Record<string, string> }> };
  const composeAuth = compose.services['auth'].environment;

  it.each(['auth', 'standalone'])(
    '%s starts with the published values and warns loudly',
    async (service) => {
      const secrets = {
        ADMIN_TOKEN: composeAuth['ADMIN_TOKEN'],
        JWT_SECRET: composeAuth['JWT_SECRET'],
        INTERNAL_TOKEN: composeAuth['INTERNAL_TOKEN'],
        CONNECTOR_SECRET_KEY: composeAuth['CONNECTOR_SECRET_KEY'],
      };
      const proc = await startService(
        service,
        { ...envFor(service, secrets), SMSGW_INSECURE_DEV_SECRETS: '1', PORT: '' },
        60_000,
      );
      running.push(proc);
      expect(proc.output()).toMatch(/WARNING INSECURE: SMSGW_INSECURE_DEV_SECRETS=1 accepted/);
      expect(proc.output()).toContain('ADMIN_TOKEN');
    },
  );

  it('is set by docker-compose.yml for the services that hold secrets', () => {
    expect(composeAuth['SMSGW_INSECURE_DEV_SECRETS']).toBe('1');
    expect(compose.services['api-gateway'].environment['SMSGW_INSECURE_DEV_SECRETS']).toBe('1');
  });

  it('is not a switch that takes just any value', async () => {
    const result = await runNode(
      SCRIPTS['auth'],
      [],
      envFor('auth', { ...strong(), SMSGW_INSECURE_DEV_SECRETS: 'maybe' }),
      20_000,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('configuration error: SMSGW_INSECURE_DEV_SECRETS: ');
  });
});

describe('exposure of a default install', () => {
  it('docker-compose.yml publishes every port on 127.0.0.1 only', () => {
    const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), {
      merge: true,
    }) as { services: Record<string, { ports?: (string | { host_ip?: string })[] }> };
    const ports = Object.entries(compose.services).flatMap(([name, s]) =>
      (s.ports ?? []).map((port) => [name, port] as const),
    );
    expect(ports.map(([name]) => name)).toEqual(expect.arrayContaining(['auth', 'api-gateway']));
    for (const [name, port] of ports) {
      const hostIp =
        typeof port === 'string' ? port.split(':').slice(0, -2).join(':') : port.host_ip;
      expect({ name, hostIp }).toEqual({ name, hostIp: '127.0.0.1' });
    }
  });

  const manifests = filesUnder(join(ROOT, 'k8s'), /\.ya?ml$/).flatMap((file) =>
    parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => ({
      file,
      object: doc.toJS() as {
        kind?: string;
        metadata?: { name?: string };
        spec?: Record<string, unknown>;
        patches?: { patch?: string }[];
      } | null,
    })),
  );

  it('no Ingress in k8s/ routes the admin API or the internal endpoints', () => {
    const ingresses = manifests.filter((m) => m.object?.kind === 'Ingress');
    expect(ingresses.length).toBeGreaterThan(0);
    for (const { file, object } of ingresses) {
      const rules = (object!.spec!['rules'] ?? []) as { http?: { paths: { path: string }[] } }[];
      const paths = rules.flatMap((r) => r.http?.paths.map((p) => p.path) ?? []);
      expect(paths.length).toBeGreaterThan(0);
      // A catch-all path would route the admin API as well.
      for (const path of paths)
        expect({ file, path, routesAdmin: /^\/((admin|internal)(\/|$)|$)/.test(path) }).toEqual({
          file,
          path,
          routesAdmin: false,
        });
    }
    // Nor does an overlay add such a path with a patch.
    for (const { file, object } of manifests.filter((m) => m.object?.patches)) {
      for (const { patch } of object!.patches!)
        expect({ file, routesAdmin: /\/(admin|internal)\//.test(patch ?? '') }).toEqual({
          file,
          routesAdmin: false,
        });
    }
  });

  it('has the ClusterIP Service auth-admin for the admin API, in the base kustomization', () => {
    const admin = manifests.find(
      (m) => m.object?.kind === 'Service' && m.object.metadata?.name === 'auth-admin',
    );
    expect(admin).toBeDefined();
    const spec = admin!.object!.spec as { type?: string; selector: Record<string, string> };
    expect(spec.type ?? 'ClusterIP').toBe('ClusterIP');
    expect(spec.selector['app.kubernetes.io/name']).toBe('auth');
    const base = parse(readFileSync(join(ROOT, 'k8s', 'base', 'kustomization.yaml'), 'utf8')) as {
      resources: string[];
    };
    expect(base.resources.map((r) => join(ROOT, 'k8s', 'base', r))).toContain(admin!.file);
    expect(readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8')).toContain('auth-admin');
  });

  it('the Docker image is built on Node.js 22 or later', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const version = /^ARG NODE_VERSION=(\d+)/m.exec(dockerfile)?.[1];
    const froms = dockerfile.match(/^FROM \S+/gm) ?? [];
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) {
      const tag = /^FROM node:([^\s-]+)/.exec(from)?.[1];
      expect(tag).toBeDefined();
      const major = Number(tag === '${NODE_VERSION}' ? version : tag?.split('.')[0]);
      expect({ from, major: major >= 22 }).toEqual({ from, major: true });
    }
  });

  it('embedded mode has no internal credential endpoint on its public port', async () => {
    const gw = await startEmbedded({});
    try {
      const reply = await request(gw.base, 'POST', '/internal/v1/verify', {
        auth: `Basic ${Buffer.from('alice:s3cret').toString('base64')}`,
      });
      expect(reply.status).toBe(404);
    } finally {
      await gw.stop();
    }
  });
});
