import { request as httpRequest } from 'node:http';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import {
  EDGE_GUARDS,
  ENTRY_POINTS,
  type EdgeGuard,
  type EntryPointName,
} from '../../services/api-gateway/src/edge/edge-guards';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

/**
 * One edge for every entry point: each way in to sending (edge-guards.ts ENTRY_POINTS) is driven
 * against each guard of EDGE_GUARDS it says it runs, with a request that guard must refuse, beside
 * one it must take. An entry point that lacks a guard takes the request the guard should have
 * refused, and fails here; one that exempts a guard says why, and may not exempt the guards no
 * sending may go without.
 */

const MAX_BODY_BYTES = 4096;
const PASSWORD = 'edge-password-01';
let sim: SmppSimulator;
let gw: RunningGateway;

interface Attempt {
  username?: string;
  password?: string;
  to?: string;
  from?: string;
  content?: string;
  headers?: Record<string, string>;
}

interface Outcome {
  status: number;
  text: string;
}

/** A JSON body sent chunked (no Content-Length), which the hot path leaves to express. */
function chunkedJson(
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Outcome> {
  const url = new URL(path, gw.base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error('timeout')));
    req.write(JSON.stringify(body));
    req.end();
  });
}

/** The same message through each entry point. */
async function via(entry: EntryPointName, a: Attempt): Promise<Outcome> {
  const username = a.username ?? 'edge';
  const password = a.password ?? PASSWORD;
  const to = a.to ?? '41790007001';
  const content = a.content ?? 'edge';
  const headers = a.headers ?? {};
  const message = { to, content, ...(a.from !== undefined && { from: a.from }) };
  const auth = basic(username, password);
  const big = content.length > MAX_BODY_BYTES;
  switch (entry) {
    case 'rest-send':
      return chunkedJson('/secure/send', message, { authorization: auth, ...headers });
    case 'hot-send': {
      const r = await request(gw.base, 'POST', '/secure/send', { auth, json: message, headers });
      return { status: r.status, text: r.text };
    }
    case 'rest-sendbatch': {
      const r = await request(gw.base, 'POST', '/secure/sendbatch', {
        auth,
        json: { messages: [{ ...message, to: [to] }] },
        headers,
      });
      return { status: r.status, text: r.text };
    }
    case 'jasmin-send':
    case 'kannel-sendsms': {
      const params =
        entry === 'jasmin-send'
          ? { username, password, to, content, ...(a.from !== undefined && { from: a.from }) }
          : {
              username,
              password,
              to,
              text: content,
              ...(a.from !== undefined && { from: a.from }),
            };
      const path = ENTRY_POINTS[entry].path;
      const form = new URLSearchParams(params).toString();
      // A body over the limit goes as a form (a URL that long is refused before any guard).
      const r = big
        ? await request(gw.base, 'POST', path, {
            body: form,
            headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          })
        : await request(gw.base, 'GET', `${path}?${form}`, { headers });
      return { status: r.status, text: r.text };
    }
  }
}

const accepted = (o: Outcome): boolean => o.status >= 200 && o.status < 300;

/** For each guard: an attempt it must refuse. */
const PROBES: Record<Exclude<EdgeGuard, 'idempotency'>, Attempt> = {
  credentials: { password: 'not-the-password' },
  account: { username: 'edge-off' },
  'cross-site': { headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' } },
  'body-limit': { content: 'x'.repeat(MAX_BODY_BYTES + 100) },
  sender: { from: 'NotListed' },
  'opt-out': { to: '41790007999' },
  routing: { to: '33600007001' },
  credit: { username: 'edge-poor' },
};

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0 });
  const { port } = await sim.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    MAX_BODY_BYTES: String(MAX_BODY_BYTES),
  });
  const admin = `Bearer ${ADMIN_TOKEN}`;
  for (const [username, balance] of [
    ['edge', null],
    ['edge-poor', '0'],
    ['edge-off', null],
  ] as const) {
    const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
      auth: admin,
      json: { username, password: PASSWORD, balance },
    });
    expect(created.status).toBe(201);
  }
  expect(
    (await request(gw.base, 'POST', '/admin/v1/accounts/edge-off/disable', { auth: admin })).status,
  ).toBe(200);
  expect(
    (
      await request(gw.base, 'PUT', '/admin/v1/accounts/edge/senders', {
        auth: admin,
        json: { senders: ['Acme'] },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await request(gw.base, 'POST', '/secure/optouts', {
        auth: basic('edge', PASSWORD),
        json: { number: '41790007999' },
      })
    ).status,
  ).toBeLessThan(300);
  expect(
    (
      await request(gw.base, 'PUT', '/admin/v1/routes/switzerland', {
        auth: admin,
        json: {
          position: 1,
          kind: 'static',
          connectors: [{ connector: 'default' }],
          filters: { prefixes: ['41'] },
        },
      })
    ).status,
  ).toBeLessThan(300);
  // The gateway reads routes within its refresh period.
  await waitFor(
    async () => ((await via('hot-send', PROBES.routing)).status === 400 ? true : undefined),
    15_000,
    'the route to be loaded',
  );
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

const entries = Object.keys(ENTRY_POINTS) as EntryPointName[];
const guards = Object.keys(EDGE_GUARDS) as EdgeGuard[];

it('no entry point exempts a guard that every message must pass, and each exemption says why', () => {
  const never: EdgeGuard[] = [
    'credentials',
    'account',
    'cross-site',
    'body-limit',
    'sender',
    'opt-out',
    'routing',
    'credit',
  ];
  for (const entry of entries) {
    for (const guard of guards) {
      const use = ENTRY_POINTS[entry].guards[guard];
      if (use === 'runs') continue;
      expect({ entry, guard, exemptable: !never.includes(guard) }).toEqual({
        entry,
        guard,
        exemptable: true,
      });
      expect(use.exempt.length).toBeGreaterThan(20);
    }
  }
});

describe.each(entries)('%s', (entry) => {
  it('takes a message every guard lets through', async () => {
    const before = sim.received.length;
    const outcome = await via(entry, {});
    expect({ entry, ...outcome, ok: accepted(outcome) }).toMatchObject({ entry, ok: true });
    await waitFor(() => sim.received.length > before, 15_000, 'the message at the SMSC');
  });

  const probed = guards.filter(
    (g): g is Exclude<EdgeGuard, 'idempotency'> =>
      g !== 'idempotency' && ENTRY_POINTS[entry].guards[g] === 'runs',
  );
  it.each(probed)('runs %s', async (guard) => {
    const outcome = await via(entry, PROBES[guard]);
    expect({ entry, guard, accepted: accepted(outcome) }).toEqual({
      entry,
      guard,
      accepted: false,
    });
  });

  if (ENTRY_POINTS[entry].guards.idempotency === 'runs') {
    it('runs idempotency', async () => {
      const key = `edge-${entry}`;
      const first = await via(entry, { to: '41790007100', headers: { 'idempotency-key': key } });
      const again = await via(entry, { to: '41790007100', headers: { 'idempotency-key': key } });
      expect(accepted(first)).toBe(true);
      expect(again).toEqual(first);
    });
  }
});
