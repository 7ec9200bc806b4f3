/**
 * The admin API and CLI for connectors and MT routes, in embedded mode on a real Postgres: every
 * operation, every refusal with a 4xx naming the problem, admin only, a connector's password in no
 * answer, and the status dispatchers report summed per connector.
 */
import { PgDb } from '@smsgw/kit';
import { createTestDatabase } from '@smsgw/kit/testing';
import { reportConnectorStatus, type ConnectorStatusReport } from '@smsgw/store';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request, type Reply } from '../support/http';
import { runSmsgw } from '../support/cli';

/** Every password a connector URL of this suite carries: none may come back. */
const SECRETS = ['Op-a-Secret-41x', 'Op-a-Second-77q', 'Http-Secret-52z', 'Query-Secret-90k'];
/** Nothing listens there: the dispatcher's own report of such a connector is never bound. */
const NOWHERE = '127.0.0.1:1';

let database: { url: string; drop(): Promise<void> };
let db: PgDb;
let gw: RunningGateway;
/** Each answer and CLI output of the suite, checked for secrets at the end. */
const seen: string[] = [];

const adminCall = async (method: string, path: string, json?: unknown): Promise<Reply> => {
  const reply = await request(gw.base, method, `/admin/v1${path}`, {
    auth: `Bearer ${ADMIN_TOKEN}`,
    ...(json !== undefined && { json }),
  });
  seen.push(reply.text);
  return reply;
};
const cli = async (args: string[]): Promise<string> => {
  const out = await runSmsgw(gw.base, args);
  seen.push(out);
  return out;
};
const names = async (kind: 'connectors' | 'routes'): Promise<string[]> =>
  ((await adminCall('GET', `/${kind}`)).body.data as { name: string }[]).map((c) => c.name);

beforeAll(async () => {
  database = await createTestDatabase();
  gw = await startEmbedded({ DATABASE_URL: database.url, CONNECTOR_ALLOWED_HOSTS: '127.0.0.1' });
  db = new PgDb({ connectionString: database.url, max: 2 });
  expect(
    (
      await adminCall('POST', '/accounts', {
        username: 'alice',
        password: 'alice-password',
        balance: '10',
      })
    ).status,
  ).toBe(201);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await db?.close();
  await database?.drop();
});

describe('connectors', () => {
  it('are created, listed, shown, updated, stopped, started and deleted', async () => {
    const created = await adminCall('POST', '/connectors', {
      name: 'op-a',
      url: `smpp://opa:${SECRETS[0]}@${NOWHERE}?window=5&throughput=20`,
      binds: 2,
      bind: 'transmitter_receiver',
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      name: 'op-a',
      url: `smpp://opa:***@${NOWHERE}?window=5&throughput=20`,
      binds: 2,
      bind: 'transmitter_receiver',
      desiredState: 'started',
      routes: [],
      state: 'down',
      sessions: 0,
    });
    const upstream = await adminCall('POST', '/connectors', {
      name: 'upstream',
      url: `https://gw:${SECRETS[2]}@${NOWHERE}/sms?window=3`,
    });
    expect(upstream.status).toBe(201);
    expect(upstream.body.data).toMatchObject({
      url: `https://gw:***@${NOWHERE}/sms?window=3`,
      binds: 1,
      bind: 'transceiver',
    });
    // The CA file is read where dispatchers run, not by the admin API.
    const tls = await adminCall('POST', '/connectors', {
      name: 'op-tls',
      url: `smpps://t:${SECRETS[3]}@${NOWHERE}?tls_ca=ca.pem&tls_servername=smsc.example`,
    });
    expect(tls.status).toBe(201);
    expect(tls.body.data.url).toBe(
      `smpps://t:***@${NOWHERE}?tls_ca=ca.pem&tls_servername=smsc.example`,
    );

    expect(await names('connectors')).toEqual(['default', 'op-a', 'op-tls', 'upstream']);
    const shown = await adminCall('GET', '/connectors/op-a');
    expect(shown.body.data).toEqual(created.body.data);

    const updated = await adminCall('PATCH', '/connectors/op-a', {
      url: `smpp://opa:${SECRETS[1]}@${NOWHERE}`,
      binds: 3,
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      url: `smpp://opa:***@${NOWHERE}`,
      binds: 3,
      bind: 'transmitter_receiver',
    });
    // The password is stored sealed, out of the URL (docs/security.md § Connectors).
    const { rows } = await db.query<{ url: string; password_sealed: string }>(
      `SELECT url, password_sealed FROM connectors WHERE name = 'op-a'`,
    );
    expect(rows[0].url).toBe(`smpp://opa@${NOWHERE}`);
    expect(rows[0].password_sealed).toMatch(/^v2:/);
    expect(rows[0].password_sealed).not.toContain(SECRETS[1]);

    const stopped = await adminCall('POST', '/connectors/op-a/stop');
    expect(stopped.body.data).toMatchObject({ desiredState: 'stopped', state: 'stopped' });
    const started = await adminCall('POST', '/connectors/op-a/start');
    expect(started.body.data).toMatchObject({ desiredState: 'started', state: 'down' });

    for (const name of ['upstream', 'op-tls'])
      expect((await adminCall('DELETE', `/connectors/${name}`)).body).toEqual({
        data: { name, deleted: true },
      });
    expect((await adminCall('GET', '/connectors/upstream')).status).toBe(404);
    expect(await names('connectors')).toEqual(['default', 'op-a']);
  });

  it('refuses bad input with a 4xx naming the problem, changing nothing', async () => {
    const bad: [string, string, unknown, number, RegExp][] = [
      ['POST', '/connectors', { name: 'a.b', url: 'smpp://x@h' }, 400, /^name: /],
      ['POST', '/connectors', { name: '', url: 'smpp://x@h' }, 400, /^name: /],
      ['POST', '/connectors', { name: 'x', url: 'ftp://h' }, 400, /^url: expected an smpp/],
      ['POST', '/connectors', { name: 'x', url: 'smpp://' }, 400, /^url: /],
      ['POST', '/connectors', { name: 'x', url: 'http://[nope' }, 400, /^url: not a URL/],
      [
        'POST',
        '/connectors',
        { name: 'x', url: `smpp://u:${SECRETS[0]}@h?windw=3` },
        400,
        /^url: unknown parameter windw$/,
      ],
      [
        'POST',
        '/connectors',
        { name: 'x', url: `https://u:${SECRETS[2]}@h?password=${SECRETS[3]}` },
        400,
        /^url: unknown parameter password$/,
      ],
      ['POST', '/connectors', { name: 'x', url: 'smpp://u@h?window=0' }, 400, /^url: window/],
      ['POST', '/connectors', { name: 'x', url: 'smpp://u@h?tls_insecure=true' }, 400, /smpps/],
      ['POST', '/connectors', { name: 'x', url: 'smpp://u@h?tls_ca=/ca.pem' }, 400, /smpps/],
      ['POST', '/connectors', { name: 'x', url: 'smpps://u@h?tls_ca=' }, 400, /tls_ca is empty/],
      ['POST', '/connectors', { name: 'x', url: 'smpp://u@h', binds: 0 }, 400, /^binds: /],
      ['POST', '/connectors', { name: 'x', url: 'smpp://u@h', bind: 'receiver' }, 400, /^bind: /],
      ['POST', '/connectors', { name: 'x', url: 'smpp://u@h', colour: 1 }, 400, /colour/],
      [
        'POST',
        '/connectors',
        { name: 'op-a', url: `smpp://u:${SECRETS[0]}@h` },
        409,
        /op-a exists/,
      ],
      ['PATCH', '/connectors/op-a', { name: 'renamed' }, 400, /name/],
      ['PATCH', '/connectors/op-a', { url: 'smpp://u@h?windw=1' }, 400, /unknown parameter/],
      ['PATCH', '/connectors/op-a', { binds: 65 }, 400, /^binds: /],
      ['PATCH', '/connectors/nope', { binds: 2 }, 404, /No connector nope/],
      ['GET', '/connectors/nope', undefined, 404, /No connector nope/],
      ['GET', '/connectors/a.b', undefined, 400, /name/],
      ['POST', '/connectors/nope/stop', undefined, 404, /No connector nope/],
      ['POST', '/connectors/nope/start', undefined, 404, /No connector nope/],
      ['DELETE', '/connectors/nope', undefined, 404, /No connector nope/],
      [
        'PUT',
        '/routes/r',
        { position: 1, kind: 'static', connectors: [{ connector: 'nope' }] },
        400,
        /^connectors: no connector nope$/,
      ],
      [
        'PUT',
        '/routes/r',
        {
          position: 1,
          kind: 'static',
          connectors: [{ connector: 'op-a' }, { connector: 'default' }],
        },
        400,
        /one connector/,
      ],
      [
        'PUT',
        '/routes/r',
        {
          position: 1,
          kind: 'weighted',
          connectors: [{ connector: 'op-a', weight: 1 }, { connector: 'default' }],
        },
        400,
        /each connector a weight/,
      ],
      [
        'PUT',
        '/routes/r',
        { position: 1, kind: 'failover', connectors: [{ connector: 'op-a', weight: 2 }] },
        400,
        /only a weighted route/,
      ],
      [
        'PUT',
        '/routes/r',
        {
          position: 1,
          kind: 'failover',
          connectors: [{ connector: 'op-a' }, { connector: 'op-a' }],
        },
        400,
        /twice/,
      ],
      ['PUT', '/routes/r', { position: 1, kind: 'static', connectors: [] }, 400, /connectors/],
      [
        'PUT',
        '/routes/r',
        { position: 0, kind: 'static', connectors: [{ connector: 'op-a' }] },
        400,
        /^position: /,
      ],
      [
        'PUT',
        '/routes/r',
        { position: 1, kind: 'random', connectors: [{ connector: 'op-a' }] },
        400,
        /^kind: /,
      ],
      [
        'PUT',
        '/routes/r',
        {
          position: 1,
          kind: 'static',
          connectors: [{ connector: 'op-a' }],
          filters: { window: { time_zone: 'Mars/Olympus' } },
        },
        400,
        /IANA time zone/,
      ],
      [
        'PUT',
        '/routes/r',
        {
          position: 1,
          kind: 'static',
          connectors: [{ connector: 'op-a' }],
          filters: { window: { from: '25:00' } },
        },
        400,
        /HH:MM/,
      ],
      [
        'PUT',
        '/routes/r',
        {
          position: 1,
          kind: 'static',
          connectors: [{ connector: 'op-a' }],
          filters: { pattern: '(' },
        },
        400,
        /regular expression/,
      ],
      [
        'PUT',
        '/routes/r',
        {
          position: 1,
          kind: 'static',
          connectors: [{ connector: 'op-a' }],
          filters: { prefixes: ['44a'] },
        },
        400,
        /digits/,
      ],
      [
        'PUT',
        '/routes/r',
        { position: 1, kind: 'static', connectors: [{ connector: 'op-a' }], price: '-1' },
        400,
        /^price: /,
      ],
      [
        'PUT',
        '/routes/r',
        {
          position: 1,
          kind: 'static',
          connectors: [{ connector: 'op-a' }],
          reroute_on: ['INVALID'],
        },
        400,
        /SMPP status name/,
      ],
      ['GET', '/routes/nope', undefined, 404, /No route nope/],
      ['DELETE', '/routes/nope', undefined, 404, /No route nope/],
    ];
    for (const [method, path, body, status, message] of bad) {
      const answer = await adminCall(method, path, body);
      expect({ method, path, body, status: answer.status }).toEqual({ method, path, body, status });
      expect({ body, message: answer.body.detail.message as string }).toEqual({
        body,
        message: expect.stringMatching(message),
      });
    }
    expect(await names('connectors')).toEqual(['default', 'op-a']);
    expect(await names('routes')).toEqual([]);
    expect((await adminCall('GET', '/connectors/op-a')).body.data).toMatchObject({
      url: `smpp://opa:***@${NOWHERE}`,
      binds: 3,
    });
  });

  it('are the admin’s only', async () => {
    const alice = basic('alice', 'alice-password');
    const attempts: [string, string, string | undefined][] = [
      ['GET', '/admin/v1/connectors', undefined],
      ['GET', '/admin/v1/connectors', alice],
      ['GET', '/admin/v1/connectors/op-a', 'Bearer not-the-admin-token-0123456789'],
      ['POST', '/admin/v1/connectors', alice],
      ['PATCH', '/admin/v1/connectors/op-a', alice],
      ['DELETE', '/admin/v1/connectors/op-a', alice],
      ['POST', '/admin/v1/connectors/op-a/stop', alice],
      ['GET', '/admin/v1/routes', alice],
      ['PUT', '/admin/v1/routes/r', alice],
      ['DELETE', '/admin/v1/routes/r', undefined],
    ];
    for (const [method, path, auth] of attempts) {
      const answer = await request(gw.base, method, path, {
        ...(auth && { auth }),
        ...(method !== 'GET' && { json: { name: 'sneaky', url: 'smpp://u@h', position: 1 } }),
      });
      seen.push(answer.text);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 401 });
    }
    expect(await names('connectors')).toEqual(['default', 'op-a']);
    expect((await adminCall('GET', '/connectors/op-a')).body.data.desiredState).toBe('started');
  });
});

describe('MT routes', () => {
  it('are put, listed by position, shown with their price as a decimal, and deleted', async () => {
    const weighted = await adminCall('PUT', '/routes/split', {
      position: 20,
      kind: 'weighted',
      connectors: [
        { connector: 'op-a', weight: 3 },
        { connector: 'default', weight: 1 },
      ],
      filters: {
        prefixes: ['+4479', '4478'],
        accounts: ['alice'],
        window: { days: ['mon', 'fri'], from: '08:00', to: '18:30', time_zone: 'Europe/Paris' },
      },
      reroute_on: ['ESME_RINVDSTADR'],
      price: 0.05,
    });
    expect(weighted.status).toBe(200);
    expect(weighted.body.data).toEqual({
      name: 'split',
      position: 20,
      kind: 'weighted',
      connectors: [
        { connector: 'op-a', weight: 3 },
        { connector: 'default', weight: 1 },
      ],
      filters: {
        prefixes: ['4479', '4478'],
        accounts: ['alice'],
        window: { days: ['mon', 'fri'], from: '08:00', to: '18:30', time_zone: 'Europe/Paris' },
      },
      reroute_on: ['ESME_RINVDSTADR'],
      price: '0.050000',
    });
    await adminCall('PUT', '/routes/fallback', {
      position: 10,
      kind: 'static',
      connectors: [{ connector: 'default' }],
    });
    expect(await names('routes')).toEqual(['fallback', 'split']);
    expect((await adminCall('GET', '/routes/split')).body.data).toEqual(weighted.body.data);
    expect((await adminCall('GET', '/routes/fallback')).body.data).toMatchObject({
      filters: {},
      reroute_on: [],
      price: null,
    });

    // Another route's position is taken; its own is not, and a route may move.
    const taken = await adminCall('PUT', '/routes/other', {
      position: 20,
      kind: 'static',
      connectors: [{ connector: 'op-a' }],
    });
    expect(taken.status).toBe(409);
    expect(taken.body.detail.message).toBe('Another route has position 20');
    const moved = await adminCall('PUT', '/routes/fallback', {
      position: 30,
      kind: 'failover',
      connectors: [{ connector: 'op-a' }, { connector: 'default' }],
      price: '0.1',
    });
    expect(moved.body.data).toMatchObject({ position: 30, price: '0.100000' });
    expect(await names('routes')).toEqual(['split', 'fallback']);

    // A connector in use shows its routes and is not deleted.
    expect((await adminCall('GET', '/connectors/op-a')).body.data.routes).toEqual([
      'split',
      'fallback',
    ]);
    const inUse = await adminCall('DELETE', '/connectors/op-a');
    expect(inUse.status).toBe(409);
    expect(inUse.body.detail.message).toBe('Routes use connector op-a: split, fallback');

    for (const name of ['split', 'fallback'])
      expect((await adminCall('DELETE', `/routes/${name}`)).body).toEqual({
        data: { name, deleted: true },
      });
    expect(await names('routes')).toEqual([]);
    expect((await adminCall('GET', '/connectors/op-a')).body.data.routes).toEqual([]);
  });
});

describe('connector status', () => {
  const report = (
    connector: string,
    over: Partial<ConnectorStatusReport> = {},
  ): ConnectorStatusReport => ({
    connector,
    bound: 0,
    window_in_use: 0,
    waiting: 0,
    rate: 0,
    last_error: null,
    last_error_at: null,
    up_since: null,
    down_since: null,
    ...over,
  });
  const mine = (h: { holder: string }) => h.holder.startsWith('test-');
  interface Holder {
    holder: string;
    bound: number;
    windowInUse: number;
    waiting: number;
    rate: number;
    lastError: string | null;
    lastErrorAt: string | null;
  }

  it('sums what each dispatcher reported within 10 s into one state', async () => {
    expect(
      (
        await adminCall('POST', '/connectors', {
          name: 'watched',
          url: `smpp://w:${SECRETS[0]}@${NOWHERE}`,
          binds: 4,
        })
      ).status,
    ).toBe(201);
    const t = (iso: string) => new Date(iso);
    await reportConnectorStatus(db, 'test-one', [
      report('watched', {
        bound: 2,
        window_in_use: 7,
        waiting: 3,
        rate: 12.5,
        last_error: 'ESME_RTHROTTLED',
        last_error_at: t('2026-01-01T10:00:00Z'),
        up_since: t('2026-01-01T09:00:00Z'),
      }),
    ]);
    await reportConnectorStatus(db, 'test-two', [
      report('watched', {
        bound: 1,
        window_in_use: 1,
        waiting: 2,
        rate: 4.25,
        up_since: t('2026-01-01T08:00:00Z'),
      }),
    ]);
    await reportConnectorStatus(db, 'test-gone', [report('watched', { bound: 5, rate: 99 })]);
    await db.query(
      `UPDATE connector_status SET reported_at = now() - interval '20 seconds' WHERE holder = 'test-gone'`,
    );

    const view = (await adminCall('GET', '/connectors/watched')).body.data;
    expect(view.holders.filter(mine)).toEqual([
      {
        connector: 'watched',
        holder: 'test-one',
        bound: 2,
        windowInUse: 7,
        waiting: 3,
        rate: 12.5,
        lastError: 'ESME_RTHROTTLED',
        lastErrorAt: '2026-01-01T10:00:00.000Z',
        upSince: '2026-01-01T09:00:00.000Z',
        downSince: null,
        reportedAt: expect.any(String),
      },
      expect.objectContaining({ holder: 'test-two', bound: 1 }),
    ]);
    // The gateway's own dispatcher may report the connector too, never bound (nothing listens).
    const others = (view.holders as Holder[]).filter((h) => !mine(h));
    for (const h of others) expect(h).toMatchObject({ bound: 0, windowInUse: 0, waiting: 0 });
    const latestError = [...(view.holders as Holder[])]
      .filter((h) => h.lastErrorAt !== null)
      .sort((a, b) => b.lastErrorAt!.localeCompare(a.lastErrorAt!))[0];
    expect(view).toMatchObject({
      state: 'up',
      sessions: 3,
      windowInUse: 8,
      waiting: 5,
      rate: 16.8,
      lastError: latestError.lastError,
      lastErrorAt: latestError.lastErrorAt,
      upSince: '2026-01-01T08:00:00.000Z',
      downSince: null,
    });
    const listed = (await adminCall('GET', '/connectors')).body.data.find(
      (c: { name: string }) => c.name === 'watched',
    );
    expect({ ...listed, holders: listed.holders.filter(mine) }).toEqual({
      ...view,
      holders: view.holders.filter(mine),
    });

    const table = await cli(['connectors', 'list']);
    expect(table.split('\n')[0]).toMatch(
      /^NAME\s+STATE\s+SESSIONS\s+WINDOW\s+WAITING\s+RATE\/S\s+LAST ERROR$/,
    );
    expect(table).toMatch(/\nwatched\s+up\s+3\/4\s+8\s+5\s+16\.8\s+\S/);
    expect(table).toMatch(/\nop-a\s+down\s+0\/3\s+0\s+0\s+0/);

    // Down since the last bound holder went down; stopped whatever is reported.
    await reportConnectorStatus(db, 'test-one', [
      report('watched', { down_since: t('2026-01-01T11:00:00Z') }),
    ]);
    await reportConnectorStatus(db, 'test-two', [
      report('watched', { down_since: t('2026-01-01T12:00:00Z') }),
    ]);
    const down = (await adminCall('GET', '/connectors/watched')).body.data;
    expect(down).toMatchObject({ state: 'down', sessions: 0, upSince: null });
    const downs = (down.holders as { downSince: string | null }[]).flatMap((h) =>
      h.downSince ? [h.downSince] : [],
    );
    expect(down.downSince).toBe(downs.sort().at(-1));
    await reportConnectorStatus(db, 'test-one', [report('watched', { bound: 1 })]);
    await adminCall('POST', '/connectors/watched/stop');
    expect((await adminCall('GET', '/connectors/watched')).body.data).toMatchObject({
      state: 'stopped',
      desiredState: 'stopped',
      sessions: 1,
    });
  });
});

describe('the CLI', () => {
  it('manages connectors and routes', async () => {
    const added = JSON.parse(
      await cli([
        'connectors',
        'add',
        'cli-op',
        `smpp://c:${SECRETS[0]}@${NOWHERE}?window=2`,
        '--binds',
        '2',
        '--bind',
        'transmitter_receiver',
      ]),
    );
    expect(added.data).toMatchObject({
      name: 'cli-op',
      url: `smpp://c:***@${NOWHERE}?window=2`,
      binds: 2,
      bind: 'transmitter_receiver',
    });
    const updated = JSON.parse(
      await cli(['connectors', 'update', 'cli-op', '--binds', '3', '--bind', 'transceiver']),
    );
    expect(updated.data).toMatchObject({ binds: 3, bind: 'transceiver' });
    expect(JSON.parse(await cli(['connectors', 'stop', 'cli-op'])).data.state).toBe('stopped');
    expect(JSON.parse(await cli(['connectors', 'start', 'cli-op'])).data.desiredState).toBe(
      'started',
    );
    expect(JSON.parse(await cli(['connectors', 'show', 'cli-op'])).data.name).toBe('cli-op');
    const listed = JSON.parse(await cli(['connectors', 'list', '--json'])) as {
      data: { name: string }[];
    };
    expect(listed.data.map((c) => c.name)).toContain('cli-op');

    const put = JSON.parse(
      await cli([
        'routes',
        'put',
        'cli-route',
        '--position',
        '5',
        '--kind',
        'weighted',
        '--connector',
        'cli-op:2',
        '--connector',
        'default:1',
        '--prefix',
        '33',
        '--prefix',
        '+32',
        '--pattern',
        '^3[23]\\d+$',
        '--account',
        'alice',
        '--sender',
        'ACME',
        '--tag',
        'otp',
        '--days',
        'mon,tue',
        '--from',
        '08:00',
        '--to',
        '20:00',
        '--tz',
        'Europe/Paris',
        '--reroute-on',
        'ESME_RINVDSTADR',
        '--reroute-on',
        'ESME_RTHROTTLED',
        '--price',
        '0.05',
      ]),
    );
    expect(put.data).toEqual({
      name: 'cli-route',
      position: 5,
      kind: 'weighted',
      connectors: [
        { connector: 'cli-op', weight: 2 },
        { connector: 'default', weight: 1 },
      ],
      filters: {
        prefixes: ['33', '32'],
        pattern: '^3[23]\\d+$',
        accounts: ['alice'],
        senders: ['ACME'],
        tags: ['otp'],
        window: { days: ['mon', 'tue'], from: '08:00', to: '20:00', time_zone: 'Europe/Paris' },
      },
      reroute_on: ['ESME_RINVDSTADR', 'ESME_RTHROTTLED'],
      price: '0.050000',
    });
    expect(JSON.parse(await cli(['routes', 'show', 'cli-route'])).data).toEqual(put.data);
    expect(
      (JSON.parse(await cli(['routes', 'list'])).data as { name: string }[]).map((r) => r.name),
    ).toEqual(['cli-route']);
    await expect(cli(['connectors', 'remove', 'cli-op'])).rejects.toMatchObject({
      status: 409,
      message: 'Routes use connector cli-op: cli-route',
    });
    await expect(
      cli(['routes', 'put', 'bad', '--position', '6', '--kind', 'static', '--connector', 'nope']),
    ).rejects.toMatchObject({ status: 400, message: 'connectors: no connector nope' });
    await expect(
      cli(['connectors', 'add', 'bad', `smpp://c:${SECRETS[0]}@h?windw=1`]),
    ).rejects.toMatchObject({ status: 400, message: 'url: unknown parameter windw' });

    // Refused before any call: a bind mode, a kind or a weight that cannot be.
    await expect(cli(['connectors', 'update', 'cli-op', '--bind', 'receiver'])).rejects.toThrow(
      /expected transceiver, transmitter_receiver/,
    );
    for (const [option, value] of [
      ['--kind', 'random'],
      ['--connector', 'cli-op:x'],
    ])
      await expect(
        cli(['routes', 'put', 'bad', '--position', '6', '--kind', 'weighted', option, value]),
      ).rejects.toThrow(/expected/);

    expect(JSON.parse(await cli(['routes', 'remove', 'cli-route'])).data.deleted).toBe(true);
    expect(JSON.parse(await cli(['connectors', 'remove', 'cli-op'])).data.deleted).toBe(true);
    expect(await names('connectors')).not.toContain('cli-op');
  });
});

describe('secrets', () => {
  it('no answer of the suite carried a connector password', () => {
    expect(seen.length).toBeGreaterThan(60);
    for (const text of seen) for (const secret of SECRETS) expect(text).not.toContain(secret);
  });
});
