/**
 * Routing a large batch gives the event loop back between slices: while every recipient of a
 * batch is tried against time-window routes, another account's balance request is answered
 * promptly. In embedded mode every service shares the gateway's event loop, so a routing loop
 * that held it would stall SMPP sessions and every other customer with it.
 */
import { waitFor } from '@smsgw/kit/testing';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
const RECIPIENTS = 40_000;
/** Routes whose window never matches during the test: each recipient is tried against them all. */
const WINDOW_ROUTES = 20;
let gw: RunningGateway;

async function account(username: string): Promise<string> {
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    ...admin,
    json: { username, password: 'batch-routing-pw', balance: '100000000', rate: '1' },
  });
  expect(created.status).toBe(201);
  return basic(username, 'batch-routing-pw');
}

/** HH:MM in UTC, `hours` from now. */
function utcClock(hours: number, minutes = 0): string {
  const at = new Date(Date.now() + (hours * 60 + minutes) * 60_000);
  return `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
}

/** The batch's answer may take longer than the helper's timeout: routing shares the loop. */
async function postBatch(auth: string, body: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gw.base}/secure/sendbatch`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(90_000),
  });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  gw = await startEmbedded({});
  for (let i = 1; i <= WINDOW_ROUTES; i++) {
    const put = await request(gw.base, 'PUT', `/admin/v1/routes/night-${i}`, {
      ...admin,
      json: {
        position: i,
        kind: 'static',
        connectors: [{ connector: 'default' }],
        filters: { window: { from: utcClock(12), to: utcClock(12, 1), time_zone: 'UTC' } },
        price: '0.5',
      },
    });
    expect(put.status).toBe(200);
  }
  const rest = await request(gw.base, 'PUT', '/admin/v1/routes/swiss', {
    ...admin,
    json: {
      position: 100,
      kind: 'static',
      connectors: [{ connector: 'default' }],
      filters: { prefixes: ['41'] },
      price: '0.07',
    },
  });
  expect(rest.status).toBe(200);
}, 120_000);
afterAll(() => gw?.stop());

describe('batch routing', () => {
  it("answers another account's balance promptly while a large batch is routed", async () => {
    const bulk = await account('bulk-router');
    const other = await account('balance-watcher');
    // The routes are read within seconds; the price says which route a message takes.
    await waitFor(
      async () => {
        const r = await request(gw.base, 'POST', '/secure/rate', {
          auth: bulk,
          json: { to: '41790000001', content: 'x' },
        });
        return r.body?.data?.rate === '0.07' ? true : undefined;
      },
      20_000,
      'the routes loaded',
    );
    expect((await request(gw.base, 'GET', '/secure/balance', { auth: other })).status).toBe(200);

    // Messages of 100 recipients, as a bulk sender writes them.
    const messages = Array.from({ length: RECIPIENTS / 100 }, (_, m) => ({
      to: Array.from({ length: 100 }, (_, i) => String(41_700_000_000 + m * 100 + i)),
      content: 'routed in slices',
    }));
    const body = JSON.stringify({
      messages,
      batch_config: { schedule_at: '86400s' },
    });

    const latencies: number[] = [];
    let posting = true;
    const watcher = (async () => {
      // Bounded in count and time: at most 5,000 requests or until the batch is answered.
      for (let i = 0; i < 5000 && posting; i++) {
        const started = performance.now();
        const reply = await request(gw.base, 'GET', '/secure/balance', { auth: other });
        latencies.push(performance.now() - started);
        expect(reply.status).toBe(200);
      }
    })();
    const accepted = await postBatch(bulk, body);
    posting = false;
    await watcher;

    expect(accepted.status).toBe(200);
    expect(accepted.body.data.messageCount).toBe(RECIPIENTS);
    const sorted = [...latencies].sort((a, b) => a - b);
    const p90 = sorted[Math.floor(sorted.length * 0.9)];
    const worst = sorted[sorted.length - 1];
    // For the record: how long the balance requests waited.
    console.log(
      `balance latency: ${latencies.length} requests, p90 ${p90.toFixed(0)} ms, worst ${worst.toFixed(0)} ms`,
    );
    // A routing loop that held the event loop would hold every request for its whole length: few
    // would be answered while the batch is routed, and those late. The 90th percentile, not the
    // worst: one pause of a busy machine (a collection, a starved process) is not the loop held.
    expect(latencies.length).toBeGreaterThanOrEqual(20);
    expect(p90).toBeLessThan(2000);

    const cancelled = await request(
      gw.base,
      'DELETE',
      `/secure/batches/${accepted.body.data.batchId}`,
      { auth: bulk },
    );
    expect(cancelled.status).toBe(200);
  }, 120_000);
});
