import { FINAL_STATES } from '@smsgw/contracts';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { adminCaller, basic, request, type Reply } from '../support/http';

/**
 * The statistics, black-box against embedded mode with the rollup every second: messages sent
 * through the gateway to the simulator and ended there, then counted by the rollup and compared
 * with each message's own status and with the accounts' balances.
 */

let sim: SmppSimulator;
let simPort: number;
let gw: RunningGateway;
const admin = `Bearer ${ADMIN_TOKEN}`;
const call = adminCaller(() => gw.base, admin);
const USERS = ['erin', 'frank'] as const;
type User = (typeof USERS)[number];
const START_BALANCE = '100';
const auth = (user: User) => basic(user, `${user}-password`);
/** Each sent message's id, by account. */
const sent: Record<User, string[]> = { erin: [], frank: [] };

interface Status {
  state: string;
  segments: number;
  cost: string;
  charged: boolean;
  to: string;
}

async function send(user: User, to: string, content: string): Promise<void> {
  const reply = await request(gw.base, 'POST', '/secure/send', {
    auth: auth(user),
    json: { to, content },
  });
  expect(reply.status).toBe(200);
  sent[user].push(/[0-9a-f-]{36}/.exec(String(reply.body.data))![0]);
}

async function status(user: User, id: string): Promise<Status> {
  const reply = await request(gw.base, 'GET', `/secure/messages/${id}`, { auth: auth(user) });
  expect(reply.status).toBe(200);
  return reply.body.data as Status;
}

async function finalStatus(user: User, id: string): Promise<Status> {
  return waitFor(async () => {
    const s = await status(user, id);
    return (FINAL_STATES as string[]).includes(s.state) ? s : undefined;
  });
}

const micros = (decimal: string): bigint => {
  const negative = decimal.startsWith('-');
  const [whole, fraction = ''] = decimal.replace('-', '').split('.');
  const n = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
  return negative ? -n : n;
};

/** What the statistics of one account must say, from its messages' own statuses. */
function expected(statuses: Status[]) {
  const byState: Record<
    string,
    { messages: number; parts: number; charged: bigint; refunded: bigint }
  > = {};
  for (const s of statuses) {
    const row = (byState[s.state] ??= { messages: 0, parts: 0, charged: 0n, refunded: 0n });
    row.messages++;
    row.parts += s.segments;
    row.charged += micros(s.cost);
    if (!s.charged) row.refunded += micros(s.cost);
  }
  return byState;
}

/** Rows summed by state, money in micros, for comparison with `expected`. */
function byState(
  rows: { state: string; messages: number; parts: number; charged: string; refunded: string }[],
) {
  const out: ReturnType<typeof expected> = {};
  for (const r of rows) {
    const row = (out[r.state] ??= { messages: 0, parts: 0, charged: 0n, refunded: 0n });
    row.messages += r.messages;
    row.parts += r.parts;
    row.charged += micros(r.charged);
    row.refunded += micros(r.refunded);
  }
  return out;
}

const statuses: Record<User, Status[]> = { erin: [], frank: [] };

beforeAll(async () => {
  sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    receiptStat: (to) => (to.startsWith('4478') ? 'UNDELIV' : undefined),
    rejectDestinations: /^33/,
  });
  const { port } = await sim.start();
  simPort = port;
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    STATS_ROLLUP_SECONDS: '1',
    STATS_LAG_SECONDS: '2',
  });
  for (const username of USERS) {
    const created = await call('POST', '/accounts', {
      username,
      password: `${username}-password`,
      balance: START_BALANCE,
      rate: '0.25',
    });
    expect(created.status).toBe(201);
  }
  await send('erin', '41790000001', 'hello');
  await send('erin', '41790000002', 'x'.repeat(200));
  await send('erin', '447800000003', 'lost');
  await send('erin', '33600000004', 'refused');
  await send('frank', '8613800000005', 'hi');
  await send('frank', '4915100000006', 'hallo');
  for (const user of USERS)
    for (const id of sent[user]) statuses[user].push(await finalStatus(user, id));
}, 120_000);
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

/** The admin statistics once the rollup has counted every message sent in its final state. */
async function settledStats(query: string): Promise<Reply> {
  return waitFor(async () => {
    const reply = await call('GET', `/stats?${query}`);
    expect(reply.status).toBe(200);
    const rows = reply.body.data.rows as { state: string; messages: number }[];
    const ended = rows
      .filter((r) => (FINAL_STATES as string[]).includes(r.state))
      .reduce((n, r) => n + r.messages, 0);
    return ended === sent.erin.length + sent.frank.length ? reply : undefined;
  });
}

describe('statistics', () => {
  it('count each account by final state, parts, charged and refunded exactly as its messages say', async () => {
    const reply = await settledStats('group=account');
    const rows = reply.body.data.rows as {
      account: string;
      state: string;
      messages: number;
      parts: number;
      charged: string;
      refunded: string;
    }[];
    for (const user of USERS) {
      const own = rows.filter((r) => r.account === user);
      expect(byState(own)).toEqual(expected(statuses[user]));
      // What was charged and not refunded is what the balance lost.
      const account = await call('GET', `/accounts/${user}`);
      const spent = own.reduce((n, r) => n + micros(r.charged) - micros(r.refunded), 0n);
      expect(spent).toBe(micros(START_BALANCE) - micros(account.body.balance as string));
    }
    expect(new Set(statuses.erin.map((s) => s.state))).toEqual(
      new Set(['delivered', 'undelivered', 'failed']),
    );
    const totals = reply.body.data.totals as { messages: number; parts: number };
    expect(totals.messages).toBe(6);
    expect(totals.parts).toBe(7);
    expect(reply.body.data.asOf).not.toBeNull();
    expect(reply.body.data.group).toBe('account');
  });

  it('groups by country, connector and route, by hour and by day, and filters', async () => {
    await settledStats('');
    const sum = (rows: { messages: number }[]) => rows.reduce((n, r) => n + r.messages, 0);
    const countries = (await call('GET', '/stats?group=country')).body.data.rows as {
      country: string;
      messages: number;
    }[];
    const byCountry: Record<string, number> = {};
    for (const r of countries) byCountry[r.country] = (byCountry[r.country] ?? 0) + r.messages;
    expect(byCountry).toEqual({ '41': 2, '44': 1, '33': 1, '86': 1, '49': 1 });

    const connectors = (await call('GET', '/stats?group=connector')).body.data.rows as {
      connector: string | null;
      messages: number;
    }[];
    expect(connectors.map((r) => r.connector)).toContain('default');
    expect(sum(connectors)).toBe(6);
    const routes = (await call('GET', '/stats?group=route')).body.data.rows as {
      route: string | null;
      messages: number;
    }[];
    expect(sum(routes)).toBe(6);

    const hourly = (await call('GET', '/stats')).body.data;
    const daily = (await call('GET', '/stats?period=day')).body.data;
    expect(daily.period).toBe('day');
    for (const r of daily.rows as { period: string }[])
      expect(r.period).toMatch(/T00:00:00\.000Z$/);
    for (const r of hourly.rows as { period: string }[]) expect(r.period).toMatch(/:00:00\.000Z$/);
    expect(sum(daily.rows)).toBe(sum(hourly.rows));
    expect(daily.totals).toEqual(hourly.totals);

    const erin = (await call('GET', '/stats?account=erin&country=44')).body.data;
    expect(erin.rows).toEqual([
      expect.objectContaining({ state: 'undelivered', messages: 1, parts: 1, charged: '0.250000' }),
    ]);
    expect(sum((await call('GET', '/stats?connector=default')).body.data.rows)).toBe(
      sum(connectors.filter((r) => r.connector === 'default')),
    );
    expect(sum((await call('GET', '/stats?connector=other')).body.data.rows)).toBe(0);
  });

  it('shows a customer its own statistics only, without routes', async () => {
    await settledStats('');
    const own = await request(gw.base, 'GET', '/secure/stats?group=country', {
      auth: auth('frank'),
    });
    expect(own.status).toBe(200);
    expect(byState(own.body.data.rows)).toEqual(expected(statuses.frank));
    expect(own.body.data.totals.messages).toBe(2);
    for (const query of [
      'group=connector',
      'group=route',
      'connector=default',
      'route=ch',
      'group=account',
      'account=erin',
    ]) {
      const refused = await request(gw.base, 'GET', `/secure/stats?${query}`, {
        auth: auth('frank'),
      });
      expect(refused.status).toBe(400);
    }
    const anonymous = await request(gw.base, 'GET', '/secure/stats');
    expect(anonymous.status).toBe(401);
  });

  it('refuses a bad query with a clear 400, an unknown account with 404, and a token without messages:read', async () => {
    const refused = async (query: string, status: number, message: RegExp) => {
      const reply: Reply = await call('GET', `/stats${query}`);
      expect(reply.status).toBe(status);
      expect(reply.body.detail.message).toMatch(message);
    };
    const day = (n: number) => new Date(Date.UTC(2026, 0, 1 + n)).toISOString();
    await refused(
      `?since=${day(0)}&until=${day(32)}`,
      400,
      /^since: the range is at most 31 days \(SEARCH_MAX_DAYS\)/,
    );
    await refused(`?since=${day(2)}&until=${day(1)}`, 400, /^until: must be after since/);
    await refused(`?since=2026-01-01`, 400, /^since: expected an ISO 8601 time/);
    await refused('?period=week', 400, /^period: expected hour or day/);
    await refused(
      '?group=colour',
      400,
      /^group: expected account, customer_group, connector, route, country, state/,
    );
    await refused('?country=abc', 400, /^country: /);
    await refused('?colour=red', 400, /colour/);
    await refused('?account=nobody', 404, /No account nobody/);
    const customer = await request(
      gw.base,
      'GET',
      `/secure/stats?since=${day(0)}&until=${day(40)}`,
      {
        auth: auth('erin'),
      },
    );
    expect(customer.status).toBe(400);

    const made = await call('POST', '/tokens', { name: 'no-stats', scopes: ['accounts:read'] });
    expect(made.status).toBe(201);
    const denied = await request(gw.base, 'GET', '/admin/v1/stats', {
      auth: `Bearer ${made.body.data.token as string}`,
    });
    expect(denied.status).toBe(403);
    expect(denied.body.detail.message).toMatch(/messages:read/);
    const reader = await call('POST', '/tokens', {
      name: 'stats-reader',
      scopes: ['messages:read'],
    });
    const allowed = await request(gw.base, 'GET', '/admin/v1/stats', {
      auth: `Bearer ${reader.body.data.token as string}`,
    });
    expect(allowed.status).toBe(200);
  });
});

describe('statistics where SHOW_ROUTES_TO_CUSTOMERS is on', () => {
  let shown: RunningGateway;
  beforeAll(async () => {
    shown = await startEmbedded({
      SMSC_URL: `smpp://gw:pw@127.0.0.1:${simPort}`,
      STATS_ROLLUP_SECONDS: '1',
      STATS_LAG_SECONDS: '2',
      SHOW_ROUTES_TO_CUSTOMERS: 'true',
    });
    const created = await request(shown.base, 'POST', '/admin/v1/accounts', {
      auth: admin,
      json: { username: 'gina', password: 'gina-password', balance: '10', rate: '1' },
    });
    expect(created.status).toBe(201);
    const reply = await request(shown.base, 'POST', '/secure/send', {
      auth: basic('gina', 'gina-password'),
      json: { to: '41790000009', content: 'hi' },
    });
    expect(reply.status).toBe(200);
  }, 60_000);
  afterAll(() => shown?.stop());

  it('lets a customer group and filter by connector', async () => {
    const rows = await waitFor(async () => {
      const reply = await request(
        shown.base,
        'GET',
        '/secure/stats?group=connector&connector=default',
        {
          auth: basic('gina', 'gina-password'),
        },
      );
      expect(reply.status).toBe(200);
      const found = reply.body.data.rows as { connector: string | null; messages: number }[];
      return found.length > 0 ? found : undefined;
    });
    expect(rows.every((r) => r.connector === 'default')).toBe(true);
    expect(rows.reduce((n, r) => n + r.messages, 0)).toBe(1);
  });
});
