import { DEFAULT_CONNECTOR, QUEUES, connectorQueue } from '@smsgw/contracts';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { freshCluster, type Cluster } from '../support/distributed';
import { basic, request } from '../support/http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runNode, startService, type ServiceProcess } from '../support/processes';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789';
const JWT_SECRET = 'e2e-jwt-secret-0123456789-0123456789-0123456789';

describe('distributed mode: each service its own process', () => {
  let cluster: Cluster;
  let sim: SmppSimulator;
  const services: ServiceProcess[] = [];
  let auth: ServiceProcess;
  let gateway: ServiceProcess;

  beforeAll(async () => {
    cluster = await freshCluster();
    sim = new SmppSimulator({
      host: '127.0.0.1',
      port: 0,
      systemId: 'smsgw',
      password: 'secret',
      deliveryReceipts: true,
      receiptDelayMs: 20,
    });
    const { port: smppPort } = await sim.start();
    auth = await startService('auth', { ...cluster.env, ADMIN_TOKEN, JWT_SECRET });
    services.push(auth);
    gateway = await startService('api-gateway', { ...cluster.env, AUTH_URL: auth.url });
    services.push(gateway);
    services.push(
      await startService('dispatcher', {
        ...cluster.env,
        SMSC_URL: `smpp://smsgw:secret@127.0.0.1:${smppPort}?window=10`,
      }),
    );
    services.push(await startService('batch-scheduler', cluster.env));
    services.push(await startService('callback-notifier', cluster.env));
  }, 90_000);

  afterAll(async () => {
    const codes = await Promise.all(services.map((s) => s.stop()));
    await sim?.stop();
    await cluster?.drop();
    // Graceful shutdown on SIGTERM is part of the contract.
    expect(codes).toEqual(services.map(() => 0));
  }, 60_000);

  it('creates an account with the CLI, sends, the SMSC receives it, the balance shows the debit', async () => {
    const cli = await runNode(
      'apps/cli/dist/main.js',
      [
        'accounts',
        'create',
        'erin',
        '--password',
        'erin-password',
        '--balance',
        '5',
        '--rate',
        '0.25',
      ],
      {
        SMSGW_URL: gateway.url,
        SMSGW_ADMIN_URL: auth.url,
        SMSGW_ADMIN_TOKEN: ADMIN_TOKEN,
      },
    );
    expect(cli).toMatchObject({ code: 0 });
    expect(JSON.parse(cli.stdout)).toMatchObject({
      username: 'erin',
      balance: '5',
      sms_count: 'ND',
    });

    const erin = basic('erin', 'erin-password');
    const reply = await request(gateway.url, 'POST', '/secure/send', {
      auth: erin,
      json: { to: '41790000001', content: 'Hello' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatch(/^Success "[0-9a-f-]{36}$/);
    const id = reply.body.data.slice(9);

    await sim.waitFor(1, 15_000);
    expect(sim.messages()).toEqual([expect.objectContaining({ to: '41790000001', text: 'Hello' })]);
    expect((await request(gateway.url, 'GET', '/secure/balance', { auth: erin })).body).toEqual({
      data: { balance: '4.75', sms_count: 'ND' },
    });
    const delivered = await waitFor(async () => {
      const r = await request(gateway.url, 'GET', `/secure/messages/${id}`, { auth: erin });
      return r.body?.data?.state === 'delivered' ? r.body.data : undefined;
    }, 15_000);
    expect(delivered).toMatchObject({ segments: 1, cost: '0.25', attempts: 1 });

    const send = await runNode(
      'apps/cli/dist/main.js',
      [
        'send',
        '--to',
        '41790000002',
        '--content',
        'From the CLI',
        '-u',
        'erin',
        '-p',
        'erin-password',
      ],
      {
        SMSGW_URL: gateway.url,
      },
    );
    expect(send.stdout).toMatch(/^Success "[0-9a-f-]{36}\n$/);
    await sim.waitFor(2, 15_000);
    expect(sim.messages()[1]).toMatchObject({ to: '41790000002', text: 'From the CLI' });
  });

  it('exchanges an application secret for a token across services', async () => {
    const app = await request(auth.url, 'POST', '/admin/v1/accounts/erin/applications', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      json: {},
    });
    expect(app.status).toBe(201);
    const form = new FormData();
    form.append('client_id', app.body.client_id);
    form.append('client_secret', app.body.client_secret);
    const token = await request(auth.url, 'POST', '/auth/v1/login/application', { body: form });
    expect(token.status).toBe(200);
    const balance = await request(gateway.url, 'GET', '/secure/balance', {
      auth: `Bearer ${token.body.access_token}`,
    });
    expect(balance.status).toBe(200);
    const bad = await request(gateway.url, 'POST', '/secure/send', {
      auth: `Bearer ${token.body.access_token}`,
      json: { to: 'x', content: 'y' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatchObject({ code: 'INVALID_PARAMETER', field: 'to' });
  });

  it('every service exports the metrics docs/metrics.md lists for it, labelled with its name', async () => {
    const documented = [
      ...readFileSync(join(ROOT, 'docs', 'metrics.md'), 'utf8').matchAll(
        /^\| `(smsgw_[a-z_]+)` *\|/gm,
      ),
    ].map((m) => m[1]);
    const owners: Record<string, RegExp> = {
      auth: /^smsgw_http_/,
      'api-gateway': /^smsgw_(http_|messages_accepted)/,
      'batch-scheduler': /^smsgw_(http_|batch|queue_)/,
      'callback-notifier': /^smsgw_(http_|callback|queue_|inbound_routed)/,
      dispatcher:
        /^smsgw_(http_|messages_(submitted|failed|final|rerouted)|submit_|delivery_|smsc_|connector_|recovery_|throughput_|qos_|queue_|dispatch_|inbound_(received|messages|duplicates))/,
    };
    // Each consumer queue is reported by the service that consumes it, and only there.
    const queues: Record<string, string[]> = {
      auth: [],
      'api-gateway': [],
      'batch-scheduler': [QUEUES.schedulerBatches],
      'callback-notifier': [
        QUEUES.notifierDlr,
        QUEUES.notifierDlrGroup,
        QUEUES.notifierResults,
        QUEUES.notifierInbound,
      ],
      dispatcher: [
        connectorQueue(QUEUES.dispatcherSubmit, DEFAULT_CONNECTOR),
        connectorQueue(QUEUES.dispatcherSubmitGroup, DEFAULT_CONNECTOR),
      ],
    };
    const names = ['auth', 'api-gateway', 'dispatcher', 'batch-scheduler', 'callback-notifier'];
    for (const [index, service] of services.entries()) {
      const name = names[index];
      const text = (await request(service.url, 'GET', '/metrics')).text;
      const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
      const expected = documented.filter((metric) => owners[name].test(metric));
      expect({ name, missing: expected.filter((metric) => !exported.has(metric)) }).toEqual({
        name,
        missing: [],
      });
      expect(text).toMatch(new RegExp(`service="${name}"`));
      const reported = [...text.matchAll(/^smsgw_queue_depth\{[^}]*queue="([^"]+)"/gm)]
        .map((m) => m[1])
        .sort();
      expect({ name, reported }).toEqual({ name, reported: queues[name].slice().sort() });
    }
  });

  it('every service exposes health, readiness and metrics', async () => {
    for (const service of services) {
      expect((await request(service.url, 'GET', '/healthz')).status).toBe(200);
      expect((await request(service.url, 'GET', '/readyz')).body).toMatchObject({
        status: 'ready',
      });
      const metrics = await request(service.url, 'GET', '/metrics');
      expect(metrics.text).toMatch(/process_cpu_seconds_total/);
    }
    const dispatcherMetrics = (await request(services[2].url, 'GET', '/metrics')).text;
    expect(dispatcherMetrics).toMatch(
      /smsgw_messages_submitted_total\{[^}]*connector="default"[^}]*\} [1-9]/,
    );
    expect(dispatcherMetrics).toMatch(/smsgw_smsc_session_up\{[^}]*\} 1/);
    expect(dispatcherMetrics).toMatch(
      /smsgw_messages_final_total\{[^}]*state="delivered"[^}]*\} [1-9]/,
    );
  });
});
