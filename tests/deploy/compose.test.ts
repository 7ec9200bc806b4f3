import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { compileProxyTrust, parseConfig } from '@smsgw/kit';
import { authConfigShape } from '@smsgw/auth';
import { gatewayConfigShape } from '@smsgw/api-gateway';
import { dispatcherConfigShape } from '@smsgw/dispatcher';
import { schedulerConfigShape } from '@smsgw/batch-scheduler';
import { notifierConfigShape } from '@smsgw/callback-notifier';
import { smppServerConfigShape } from '@smsgw/smpp-server';

const root = join(__dirname, '..', '..');
interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
  ports?: string[];
  volumes?: string[];
  restart?: string;
}
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
  networks?: { default?: { ipam?: { config?: { subnet?: string }[] } } };
};
const services = compose.services;

const ours = {
  auth: { pkg: '@smsgw/auth', dir: 'services/auth', shape: authConfigShape },
  'api-gateway': {
    pkg: '@smsgw/api-gateway',
    dir: 'services/api-gateway',
    shape: gatewayConfigShape,
  },
  dispatcher: {
    pkg: '@smsgw/dispatcher',
    dir: 'services/dispatcher',
    shape: dispatcherConfigShape,
  },
  'batch-scheduler': {
    pkg: '@smsgw/batch-scheduler',
    dir: 'services/batch-scheduler',
    shape: schedulerConfigShape,
  },
  'callback-notifier': {
    pkg: '@smsgw/callback-notifier',
    dir: 'services/callback-notifier',
    shape: notifierConfigShape,
  },
  'smpp-server': {
    pkg: '@smsgw/smpp-server',
    dir: 'services/smpp-server',
    shape: smppServerConfigShape,
  },
} as const;

describe('docker-compose.yml', () => {
  it('runs the infrastructure, a migration one-shot, the simulator and every service', () => {
    expect(Object.keys(services).sort()).toEqual(
      [
        'postgres',
        'rabbitmq',
        'redis',
        'migrate',
        'simulator',
        'console-edge',
        ...Object.keys(ours),
      ].sort(),
    );
    for (const infra of ['postgres', 'rabbitmq', 'redis'])
      expect(services[infra].healthcheck).toBeDefined();
  });

  it.each(Object.entries(ours))('%s: builds its own package and runs its main', (name, spec) => {
    const service = services[name];
    expect(service.image).toBe(`sms-gateway/${name}:latest`);
    expect(service.build).toMatchObject({
      context: '.',
      dockerfile: 'Dockerfile',
      args: { PACKAGE: spec.pkg },
    });
    expect(service.command).toEqual(['node', 'dist/main.js']);
    const pkg = JSON.parse(readFileSync(join(root, spec.dir, 'package.json'), 'utf8')) as {
      name: string;
      main: string;
    };
    expect(pkg.name).toBe(spec.pkg);
  });

  it.each(Object.entries(ours))(
    '%s: its environment is a valid configuration in distributed mode',
    (name, spec) => {
      const env = services[name].environment ?? {};
      const config = parseConfig(spec.shape, env) as Record<string, unknown>;
      // Distributed mode: every URL the service reads points at a real server, never an embedded one.
      for (const key of [
        'DATABASE_URL',
        'AMQP_URL',
        'REDIS_URL',
        'SMSC_URL',
        'AUTH_URL',
      ] as const) {
        if (key in spec.shape)
          expect({ key, value: config[key] }).toEqual({ key, value: expect.any(String) });
      }
      expect(env['DATABASE_URL']).toMatch(/@postgres:5432\//);
      expect(env['AMQP_URL']).toMatch(/@rabbitmq:5672/);
    },
  );

  it.each(Object.entries(ours))(
    '%s: starts after Postgres and RabbitMQ are healthy and migrations ran',
    (name) => {
      const deps = services[name].depends_on ?? {};
      expect(deps['postgres']).toEqual({ condition: 'service_healthy' });
      expect(deps['rabbitmq']).toEqual({ condition: 'service_healthy' });
      expect(deps['migrate']).toEqual({ condition: 'service_completed_successfully' });
    },
  );

  it('restarts every long-running container that exits, and runs the migration once', () => {
    // The services wait for a dependency that is down rather than exit (serviceMain); the policy
    // is for a crash, and for the infrastructure itself. `docker compose stop` still stops them.
    const longRunning = Object.keys(services).filter((name) => name !== 'migrate');
    expect(longRunning).toEqual(expect.arrayContaining(Object.keys(ours)));
    for (const name of longRunning)
      expect({ name, restart: services[name].restart }).toEqual({
        name,
        restart: 'unless-stopped',
      });
    expect(services['migrate'].restart).toBe('no');
  });

  it("serves the web console from one origin: console-edge's nginx routes as the Ingress does", () => {
    const edge = services['console-edge'];
    expect(edge.ports).toEqual(['127.0.0.1:8088:8088']);
    expect(edge.volumes).toEqual(['./deploy/console-edge/nginx.conf:/etc/nginx/nginx.conf:ro']);
    const conf = readFileSync(join(root, 'deploy', 'console-edge', 'nginx.conf'), 'utf8');
    const routes = Object.fromEntries(
      [...conf.matchAll(/location (\S+) \{\s*proxy_pass http:\/\/([\w-]+):(\d+);/g)].map((m) => [
        m[1],
        `${m[2]}:${m[3]}`,
      ]),
    );
    const auth = `auth:${services['auth'].environment!['PORT']}`;
    const gateway = `api-gateway:${services['api-gateway'].environment!['PORT']}`;
    expect(routes).toEqual({
      '/console/v1/': auth,
      '/auth/': auth,
      '/admin/v1/': auth,
      '/console/': gateway,
      '/secure/': gateway,
    });
    expect(services['api-gateway'].environment!['CONSOLE_DIR']).toBe('/app/console');
  });

  it('wires the services to each other: gateway → auth, dispatcher → simulator and Redis', () => {
    expect(services['api-gateway'].environment!['AUTH_URL']).toBe(
      `http://auth:${services['auth'].environment!['PORT']}`,
    );
    expect(services['api-gateway'].depends_on!['auth']).toBeDefined();
    expect(services['api-gateway'].environment!['INTERNAL_TOKEN']).toBe(
      services['auth'].environment!['INTERNAL_TOKEN'],
    );
    const smsc = new URL(services['dispatcher'].environment!['SMSC_URL']);
    const sim = services['simulator'].environment!;
    expect([smsc.protocol, smsc.hostname, smsc.port]).toEqual([
      'smpp:',
      'simulator',
      sim['SIM_PORT'],
    ]);
    expect([smsc.username, smsc.password]).toEqual([sim['SIM_SYSTEM_ID'], sim['SIM_PASSWORD']]);
    expect(services['dispatcher'].environment!['REDIS_URL']).toBe('redis://redis:6379');
    expect(services['dispatcher'].depends_on!['simulator']).toBeDefined();
  });

  it.each(['auth', 'api-gateway'] as const)(
    '%s: believes X-Forwarded-For from the compose network, where published ports arrive from',
    (name) => {
      const subnet = compose.networks?.default?.ipam?.config?.[0]?.subnet;
      expect(subnet).toMatch(/^\d+\.\d+\.\d+\.0\/24$/);
      const config = parseConfig(ours[name].shape, services[name].environment ?? {}) as {
        TRUSTED_PROXIES: string[];
      };
      expect(config.TRUSTED_PROXIES).toEqual([subnet]);
      const trust = compileProxyTrust(config.TRUSTED_PROXIES);
      // The network's gateway, where Docker's published ports (and a proxy on the host) connect from.
      const gateway = subnet!.replace(/0\/24$/, '1');
      expect(trust(gateway, 0)).toBe(true);
      for (const client of ['203.0.113.7', '127.0.0.1', '10.1.2.3'])
        expect({ client, trusted: trust(client, 0) }).toEqual({ client, trusted: false });
    },
  );

  it('publishes ports on this machine only (127.0.0.1)', () => {
    const published = Object.values(services).flatMap((service) => service.ports ?? []);
    expect(published.length).toBeGreaterThan(0);
    for (const port of published) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });

  it('runs migrations and the simulator from packages that build those entry points', () => {
    expect(services['migrate'].build!.args).toEqual({
      PACKAGE: '@smsgw/kit',
      ENTRY: 'dist/migrate-main.js',
    });
    expect(services['simulator'].build!.args).toEqual({
      PACKAGE: '@smsgw/smsc',
      ENTRY: 'dist/simulator-main.js',
    });
    const sources = (dir: string, file: string) =>
      readFileSync(join(root, dir, 'src', file), 'utf8');
    expect(sources('packages/kit', 'migrate-main.ts')).toMatch(/migrate\(/);
    expect(sources('packages/smsc', 'simulator-main.ts')).toMatch(/SmppSimulator/);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  it('is multi-stage and runs as a non-root user', () => {
    const stages = dockerfile.match(/^FROM .+$/gm) ?? [];
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/COPY --from=build/);
    expect(runtime).not.toMatch(/pnpm install/);
    expect(runtime).toMatch(/^HEALTHCHECK .*\n?.*\/healthz/m);
  });
  it('installs from the lockfile and builds before deploying one package', () => {
    expect(dockerfile).toMatch(/pnpm install --frozen-lockfile/);
    expect(dockerfile).toMatch(/pnpm run build/);
    expect(dockerfile).toMatch(/ARG PACKAGE/);
    expect(dockerfile).toMatch(/deploy .*--prod/);
  });
});
