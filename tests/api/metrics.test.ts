/**
 * docs/metrics.md against what a running gateway serves: embedded mode (offline, no servers), with
 * traffic that makes every documented series appear, then one scrape of /metrics. The table is
 * parsed here, so the documentation and the exports cannot drift apart.
 */
import { QUEUES, DEFAULT_CONNECTOR, connectorQueue } from '@smsgw/contracts';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { openEsme, type Esme } from '../smpp-server/support/esme-client';
import { basic, request } from '../support/http';
import {
  documentedMetrics,
  parseExposition,
  seriesNames,
  type Sample,
  type Scrape,
} from '../support/metrics-doc';
import { CallbackReceiver } from '../support/receiver';

const documented = documentedMetrics();
const erin = basic('erin', 'erin-password');

let sim: SmppSimulator;
let receiver: CallbackReceiver;
let gw: RunningGateway | undefined;
let scrape: Scrape;
let esme: Esme | undefined;

async function scrapeNow(base: string): Promise<Scrape> {
  const reply = await request(base, 'GET', '/metrics');
  expect(reply.status).toBe(200);
  return parseExposition(reply.text);
}

const total = (s: Scrape, name: string, match: Record<string, string> = {}) =>
  s.samples
    .filter((x) => x.name === name && Object.entries(match).every(([k, v]) => x.labels[k] === v))
    .reduce((sum, x) => sum + x.value, 0);

/** Waits until the running gateway's metric reaches at least `min`; says what it saw if it does not. */
async function metricReaches(
  base: string,
  name: string,
  match: Record<string, string>,
  min = 1,
  timeoutMs = 15_000,
): Promise<void> {
  let seen: Sample[] = [];
  await waitFor(
    async () => {
      const now = await scrapeNow(base);
      seen = now.samples.filter((x) => x.name === name);
      return total(now, name, match) >= min ? true : undefined;
    },
    timeoutMs,
    'the metric',
    100,
  ).catch((err: Error) => {
    throw new Error(
      `${name}${JSON.stringify(match)} did not reach ${min}: ${err.message}; saw ${JSON.stringify(seen)}`,
    );
  });
}

beforeAll(async () => {
  // Throttling everything at first: the send is retried, and a restart finds it still queued
  // (what the recovery sweep re-publishes in embedded mode).
  sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    receiptDelayMs: 20,
    rejectDestinations: /^417999/,
    throttleRate: 1,
  });
  const { port } = await sim.start();
  receiver = new CallbackReceiver();
  await receiver.start();
  const env = {
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}?throughput=200`,
    HTTP_THROUGHPUT_PER_WORKER: '50',
    SMART_QOS: 'true',
    SHOW_ROUTES_TO_CUSTOMERS: 'true',
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    CALLBACK_RETRY_BASE_MS: '3600000',
  };

  const first = await startEmbedded(env);
  try {
    const created = await request(first.base, 'POST', '/admin/v1/accounts', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      json: { username: 'erin', password: 'erin-password', balance: null },
    });
    expect(created.status).toBe(201);
    expect(
      (
        await request(first.base, 'POST', '/secure/send', {
          auth: erin,
          json: { to: '41790000001', content: 'throttled, then restarted' },
        })
      ).status,
    ).toBe(200);
    await metricReaches(first.base, 'smsgw_submit_retries_total', { reason: 'ESME_RTHROTTLED' });
  } finally {
    await first.stop();
  }

  gw = await startEmbedded(env, first.dataDir);
  const base = gw.base;
  await metricReaches(base, 'smsgw_recovery_republished_total', { state: 'queued' });
  await metricReaches(base, 'smsgw_submit_retries_total', { reason: 'ESME_RTHROTTLED' });
  sim.setThrottleRate(0);

  const batch = await request(base, 'POST', '/secure/sendbatch', {
    auth: erin,
    json: {
      messages: [{ to: ['41790000002', '41799900001'], content: 'batch' }],
      batch_config: { callback_url: `${receiver.base}/ok`, errback_url: `${receiver.base}/errors` },
    },
  });
  expect(batch.status).toBe(200);
  // A private address CALLBACK_ALLOWED_HOSTS does not allow is refused at acceptance (a 400, not a
  // report given up later); the same message without it is sent.
  const refused = await request(base, 'POST', '/secure/send', {
    auth: erin,
    json: {
      to: '41790000003',
      content: 'report refused',
      dlr: 'yes',
      dlr_url: 'http://10.255.255.1/dlr',
      dlr_level: 2,
    },
  });
  expect(refused.status).toBe(400);
  const sent = await request(base, 'POST', '/secure/send', {
    auth: erin,
    json: { to: '41790000003', content: 'report refused' },
  });
  expect(sent.status).toBe(200);
  // A receiver that keeps failing: its callback waits an hour for the retry, so it stays pending.
  const pending = await request(base, 'POST', '/secure/sendbatch', {
    auth: erin,
    json: {
      messages: [{ to: '41790000004', content: 'pending' }],
      batch_config: { callback_url: `${receiver.base}/down` },
    },
  });
  expect(pending.status).toBe(200);

  await metricReaches(base, 'smsgw_messages_final_total', { state: 'delivered' }, 4);
  await metricReaches(base, 'smsgw_messages_failed_total', { reason: 'ESME_RINVDSTADR' });
  await metricReaches(base, 'smsgw_callback_attempts_count', { outcome: 'ok' });
  await metricReaches(base, 'smsgw_callback_requests_total', {
    kind: 'callback',
    outcome: 'retry',
  });
  await metricReaches(base, 'smsgw_batches_completed_total', {}, 2);
  // A stopped connector whose failover route passes its message on to the default connector
  // (which refuses the destination).
  const adminCall = (method: string, path: string, json?: unknown) =>
    request(base, method, `/admin/v1${path}`, {
      auth: `Bearer ${ADMIN_TOKEN}`,
      ...(json !== undefined && { json }),
    });
  expect(
    (
      await adminCall('POST', '/connectors', {
        name: 'spare',
        url: `smpp://gw:pw@127.0.0.1:${port}`,
      })
    ).status,
  ).toBe(201);
  await adminCall('POST', '/connectors/spare/stop');
  await adminCall('PUT', '/routes/spare-first', {
    position: 1,
    kind: 'failover',
    connectors: [{ connector: 'spare' }, { connector: 'default' }],
    filters: { prefixes: ['4179999'] },
  });
  await adminCall('PUT', '/routes/rest', {
    position: 2,
    kind: 'static',
    connectors: [{ connector: 'default' }],
  });
  await waitFor(
    async () => {
      const rate = await request(base, 'POST', '/secure/rate', {
        auth: erin,
        json: { to: '41799990001', content: 'x' },
      });
      return rate.body.data?.route === 'spare-first' ? true : undefined;
    },
    15_000,
    'routes loaded',
  );
  expect(
    (
      await request(base, 'POST', '/secure/send', {
        auth: erin,
        json: { to: '41799990001', content: 'failed over' },
      })
    ).status,
  ).toBe(200);
  // The dispatcher learns of the new connector and its stop on its next reads, later on a loaded machine.
  await metricReaches(base, 'smsgw_messages_rerouted_total', { reason: 'STOPPED' }, 1, 60_000);
  await metricReaches(base, 'smsgw_messages_failed_total', { reason: 'ESME_RINVDSTADR' }, 2);
  // An inbound message the SMSC delivers twice, which no MO route takes.
  await sim.originate({ from: '41790000009', to: '4000', text: 'inbound', times: 2 });
  await metricReaches(base, 'smsgw_inbound_routed_total', { outcome: 'unrouted' });
  // A webhook on a private address CALLBACK_ALLOWED_HOSTS does not allow (an operator's MO route,
  // which no customer request checks): the notifier refuses it when it calls, and gives it up.
  expect(
    (
      await adminCall('PUT', '/mo-routes/private-hook', {
        position: 1,
        to: '4001',
        exact: true,
        account: 'erin',
        // The simulator may hand the message to either connector's session.
        any_connector: true,
        webhook_url: 'http://10.255.255.1/mo',
      })
    ).status,
  ).toBe(200);
  let tries = 0;
  await waitFor(
    async () => {
      // A new text each time: one the routes were not loaded for yet is kept unrouted.
      tries += 1;
      await sim.originate({ from: '41790000010', to: '4001', text: `to a private hook ${tries}` });
      return (await scrapeNow(base)).samples.some(
        (x) => x.name === 'smsgw_callbacks_given_up_total' && x.labels['reason'] === 'refused',
      )
        ? true
        : undefined;
    },
    30_000,
    'the private webhook given up',
    2000,
  );
  // An SMPP customer (docs/smpp-server.md): a refused bind, then a submit with registered_delivery
  // whose receipt comes back on the same transceiver session, which stays bound.
  expect((await adminCall('PUT', '/accounts/erin/smpp', { password: 'er1nsmpp' })).status).toBe(
    200,
  );
  esme = await openEsme({ port: gw.gateway.smppPort });
  expect((await esme.bind('bind_transceiver', 'erin', 'wrong')).status).toBe(0x0e);
  expect((await esme.bind('bind_transceiver', 'erin', 'er1nsmpp')).status).toBe(0);
  const smppSubmit = { to: '41790000011', bytes: Buffer.from('smpp'), registeredDelivery: 1 };
  expect((await esme.submit(smppSubmit)).status).toBe(0);
  await metricReaches(base, 'smsgw_smpp_deliver_sm_total', { kind: 'receipt' });
  // The answered callback's row is closed just after its request is counted, and the dispatcher
  // takes up a connector added at run time (with its queues' gauges) at its next reload.
  const spareQueue = connectorQueue(QUEUES.dispatcherSubmit, 'spare');
  scrape = await waitFor(async () => {
    const now = await scrapeNow(base);
    const spareSeen = now.samples.some(
      (s) => s.name === 'smsgw_queue_depth' && s.labels['queue'] === spareQueue,
    );
    return spareSeen && total(now, 'smsgw_callbacks_pending', { kind: 'callback' }) === 1
      ? now
      : undefined;
  });
}, 180_000);

afterAll(async () => {
  await gw?.stop();
  esme?.close();
  await receiver?.stop();
  await sim?.stop();
});

describe('GET /metrics in embedded mode', () => {
  it('reads the documented table', () => {
    expect(documented.length).toBeGreaterThanOrEqual(20);
    expect(documented.find((m) => m.name === 'smsgw_queue_depth')).toEqual({
      name: 'smsgw_queue_depth',
      type: 'gauge',
      labels: ['queue'],
    });
  });

  it.each(documented.map((m) => [m.name, m] as const))(
    '%s: documented type, and series with exactly the documented labels',
    (_name, metric) => {
      expect(scrape.types.get(metric.name)).toBe(metric.type);
      for (const series of seriesNames(metric)) {
        const samples = scrape.samples.filter((s) => s.name === series);
        expect({ series, present: samples.length > 0 }).toEqual({ series, present: true });
        const expected = [
          ...metric.labels,
          'service',
          ...(series.endsWith('_bucket') ? ['le'] : []),
        ].sort();
        for (const sample of samples)
          expect({ series, labels: Object.keys(sample.labels).sort() }).toEqual({
            series,
            labels: expected,
          });
        for (const sample of samples) expect(sample.labels['service']).toBe('standalone');
      }
    },
  );

  it('serves no smsgw_ metric that docs/metrics.md does not list', () => {
    const names = new Set(documented.map((m) => m.name));
    expect(
      [...scrape.types.keys()].filter((name) => name.startsWith('smsgw_') && !names.has(name)),
    ).toEqual([]);
  });

  it('reports depth and lag of every consumer queue, and the process metrics', () => {
    const queues = (name: string) =>
      scrape.samples
        .filter((s) => s.name === name)
        .map((s: Sample) => s.labels['queue'])
        .sort();
    // The dispatcher's submit queues are one pair per connector: the default one's and spare's.
    const consumed = Object.values(QUEUES)
      .flatMap((q) =>
        q === QUEUES.dispatcherSubmit || q === QUEUES.dispatcherSubmitGroup
          ? [connectorQueue(q, DEFAULT_CONNECTOR), connectorQueue(q, 'spare')]
          : [q],
      )
      .sort();
    expect(queues('smsgw_queue_depth')).toEqual(consumed);
    expect(queues('smsgw_queue_lag_seconds')).toEqual(consumed);
    expect(scrape.types.get('process_cpu_seconds_total')).toBe('counter');
  });

  it('counts what the traffic did, with the configured caps', () => {
    // The first run's send counted in the first run's registry; this one re-published it.
    expect(total(scrape, 'smsgw_messages_accepted_total', { kind: 'single' })).toBe(2);
    expect(total(scrape, 'smsgw_messages_accepted_total', { kind: 'batch' })).toBe(3);
    // Four sent over HTTP, one over SMPP: accepted as kind smpp, and among the smpp-server's submits.
    expect(total(scrape, 'smsgw_messages_accepted_total', { kind: 'smpp' })).toBe(1);
    expect(total(scrape, 'smsgw_smpp_submits_total', { account: 'erin', status: 'ESME_ROK' })).toBe(
      1,
    );
    expect(total(scrape, 'smsgw_smpp_binds_total', { outcome: 'ESME_RINVPASWD' })).toBe(1);
    expect(total(scrape, 'smsgw_smpp_sessions', { bind_type: 'transceiver' })).toBe(1);
    expect(total(scrape, 'smsgw_messages_submitted_total', { connector: 'default' })).toBe(5);
    expect(total(scrape, 'smsgw_pdus_submitted_total', { connector: 'default' })).toBe(5);
    expect(
      total(scrape, 'smsgw_messages_final_total', { connector: 'default', state: 'delivered' }),
    ).toBe(5);
    expect(
      total(scrape, 'smsgw_messages_failed_total', {
        connector: 'default',
        reason: 'ESME_RINVDSTADR',
      }),
    ).toBe(2);
    expect(
      total(scrape, 'smsgw_messages_rerouted_total', {
        connector: 'spare',
        to: 'default',
        reason: 'STOPPED',
      }),
    ).toBe(1);
    expect(
      total(scrape, 'smsgw_throughput_cap', { connector: 'default', scope: 'connector' }),
    ).toBe(200);
    expect(total(scrape, 'smsgw_throughput_cap', { connector: 'default', scope: 'worker' })).toBe(
      50,
    );
    expect(total(scrape, 'smsgw_callbacks_pending', { kind: 'callback' })).toBe(1);
    expect(
      total(scrape, 'smsgw_callback_attempts_count', { kind: 'callback', outcome: 'ok' }),
    ).toBe(1);
    expect(total(scrape, 'smsgw_callback_attempts_sum', { kind: 'callback', outcome: 'ok' })).toBe(
      1,
    );
    expect(
      scrape.samples
        .filter((x) => x.name === 'smsgw_batches')
        .map((x) => [x.labels['state'], x.value]),
    ).toEqual([
      ['scheduled', 0],
      ['running', 0],
    ]);
    expect(total(scrape, 'smsgw_batches_completed_total')).toBe(2);
    expect(
      total(scrape, 'smsgw_callbacks_given_up_total', { kind: 'mo', reason: 'refused' }),
    ).toBeGreaterThanOrEqual(1);
    expect(total(scrape, 'smsgw_smsc_session_up', { connector: 'default' })).toBe(1);
  });
});
