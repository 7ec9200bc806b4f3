import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { buildProgram } from '@smsgw/cli';
import { CDR_COLUMNS, FINAL_STATES } from '@smsgw/contracts';
import { createTestDatabase, findTestDatabaseServer, waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { adminCaller, basic, request, type Reply } from '../support/http';

/**
 * The CDR export, black-box against embedded mode: messages sent through the gateway to the
 * simulator and ended there, exported as CSV and ndjson, per message and per part, checked
 * against the messages and against the accounts' balances; on PGlite, and on Postgres when a server
 * is there.
 */

const engines: [string, boolean][] = [['PGlite', false]];
if (findTestDatabaseServer() !== undefined) engines.push(['Postgres', true]);

const micros = (decimal: string): bigint => {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
};

const csvRows = (text: string): Record<string, string>[] =>
  parse<Record<string, string>>(text, { columns: true, skip_empty_lines: true });

const ndjsonRows = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe.each(engines)('CDR export on %s', (_engine, onPostgres) => {
  let sim: SmppSimulator;
  let gw: RunningGateway;
  let database: { url: string; drop(): Promise<void> } | undefined;
  const admin = `Bearer ${ADMIN_TOKEN}`;
  const call = adminCaller(() => gw.base, admin);
  const START_BALANCE = { carla: '100', dan: '50' } as const;
  const sent: Record<string, string> = {};
  let since: string;
  let until: string;

  async function send(user: keyof typeof START_BALANCE, body: Record<string, unknown>) {
    const reply = await request(gw.base, 'POST', '/secure/send', {
      auth: basic(user, `${user}-password`),
      json: body,
    });
    expect(reply.status).toBe(200);
    return (reply.body.data as string).slice('Success "'.length);
  }

  async function finalState(user: string, id: string): Promise<string> {
    return waitFor(async () => {
      const reply = await request(gw.base, 'GET', `/secure/messages/${id}`, {
        auth: basic(user, `${user}-password`),
      });
      const state = reply.body?.data?.state as string | undefined;
      return state !== undefined && (FINAL_STATES as string[]).includes(state) ? state : undefined;
    });
  }

  const exportPath = (query: Record<string, string>) =>
    `/cdrs?${new URLSearchParams({ since, until, ...query }).toString()}`;

  beforeAll(async () => {
    sim = new SmppSimulator({
      host: '127.0.0.1',
      port: 0,
      deliveryReceipts: true,
      receiptStat: (to) => (to.startsWith('4478') ? 'UNDELIV' : undefined),
      rejectDestinations: /^33/,
    });
    const { port } = await sim.start();
    database = onPostgres ? await createTestDatabase() : undefined;
    gw = await startEmbedded({
      SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
      ...(database && { DATABASE_URL: database.url }),
    });
    since = new Date(Date.now() - 60_000).toISOString();
    for (const [username, balance] of Object.entries(START_BALANCE)) {
      const created = await call('POST', '/accounts', {
        username,
        password: `${username}-password`,
        balance,
        rate: '0.25',
      });
      expect(created.status).toBe(201);
    }
    sent['quoted'] = await send('carla', { to: '41790000001', from: "a,b'c", content: 'hello' });
    sent['long'] = await send('carla', {
      to: '41790000002',
      from: 'Shop',
      content: 'x'.repeat(200),
    });
    sent['undelivered'] = await send('carla', { to: '447800000003', content: 'lost' });
    sent['rejected'] = await send('carla', { to: '33600000004', content: 'refused' });
    sent['dan'] = await send('dan', { to: '8613800000005', content: '你好' });
    for (const [key, id] of Object.entries(sent))
      await finalState(key === 'dan' ? 'dan' : 'carla', id);
    until = new Date(Date.now() + 60_000).toISOString();
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await sim?.stop();
    await database?.drop();
  });

  async function balance(username: string): Promise<string> {
    const reply = await call('GET', `/accounts/${username}`);
    expect(reply.status).toBe(200);
    return reply.body.balance as string;
  }

  describe('CDR export', () => {
    it("writes one CSV row per message, whose money adds up to each account's balance change", async () => {
      const reply = await call('GET', exportPath({}));
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(reply.headers.get('content-disposition')).toMatch(
        /^attachment; filename="cdrs-.*\.csv"$/,
      );
      expect(reply.text.split('\r\n')[0]).toBe(
        CDR_COLUMNS.map((c) => c.name)
          .filter((n) => n !== 'part')
          .join(','),
      );
      const rows = csvRows(reply.text);
      expect(rows.map((r) => r.id)).toEqual(Object.values(sent).sort());
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(byId.get(sent['quoted'])).toMatchObject({
        account: 'carla',
        entry: 'rest',
        sender: "a,b'c",
        destination: '41790000001',
        country_code: '41',
        parts: '1',
        encoding: 'GSM 03.38',
        charged: '0.250000',
        refunded: '0.000000',
        state: 'delivered',
        error: '',
        batch_id: '',
      });
      // RFC 4180: a field with a comma is quoted (services/auth/test/cdr-writer.test.ts: quotes).
      expect(reply.text).toContain(`,"a,b'c",41790000001,`);
      expect(byId.get(sent['long'])).toMatchObject({ parts: '2', charged: '0.500000' });
      expect(byId.get(sent['undelivered'])).toMatchObject({
        state: 'undelivered',
        country_code: '44',
      });
      expect(byId.get(sent['dan'])).toMatchObject({
        account: 'dan',
        encoding: 'UCS-2',
        country_code: '86',
      });
      // Refused by the SMSC: failed, and its cost given back.
      expect(byId.get(sent['rejected'])).toMatchObject({
        state: 'failed',
        charged: '0.250000',
        refunded: '0.250000',
      });
      for (const r of rows) {
        expect(r.accepted_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(Date.parse(r.done_at)).toBeGreaterThanOrEqual(Date.parse(r.accepted_at));
      }
      for (const [username, start] of Object.entries(START_BALANCE)) {
        const net = rows
          .filter((r) => r.account === username)
          .reduce((sum, r) => sum + micros(r.charged) - micros(r.refunded), 0n);
        expect(net).toBe(micros(start) - micros(await balance(username)));
      }
    });

    it('writes the same rows as ndjson, and one account alone', async () => {
      const csv = csvRows((await call('GET', exportPath({}))).text);
      const reply = await call('GET', exportPath({ format: 'ndjson' }));
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toBe('application/x-ndjson');
      const lines = ndjsonRows(reply.text);
      expect(lines.map((l) => Object.keys(l))).toEqual(lines.map(() => Object.keys(csv[0])));
      expect(
        lines.map((l) =>
          Object.fromEntries(
            Object.entries(l).map(([k, v]) => [k, v === null ? '' : String(v as string | number)]),
          ),
        ),
      ).toEqual(csv);
      expect(lines[0]?.parts).toEqual(expect.any(Number));

      const dan = ndjsonRows(
        (await call('GET', exportPath({ format: 'ndjson', account: 'dan' }))).text,
      );
      expect(dan.map((l) => l.id)).toEqual([sent['dan']]);
    });

    it('writes one row per part with per=part, the money on the first part only', async () => {
      const rows = csvRows((await call('GET', exportPath({ per: 'part' }))).text);
      const long = rows.filter((r) => r.id === sent['long']);
      expect(long.map((r) => [r.part, r.charged, r.refunded, r.state])).toEqual([
        ['1', '0.500000', '0.000000', 'delivered'],
        ['2', '0.000000', '0.000000', 'delivered'],
      ]);
      expect(new Set(long.map((r) => r.smsc_id)).size).toBe(2);
      const single = rows.filter((r) => r.id === sent['quoted']);
      expect(single.map((r) => r.part)).toEqual(['1']);
      expect(rows.length).toBe(Object.keys(sent).length + 1);
      const perMessage = csvRows((await call('GET', exportPath({}))).text);
      const total = (list: Record<string, string>[]) =>
        list.reduce((sum, r) => sum + micros(r.charged) - micros(r.refunded), 0n);
      expect(total(rows)).toBe(total(perMessage));
    });

    it('streams the export to stdout from `smsgw cdr export`, with a progress bar', async () => {
      const chunks: Buffer[] = [];
      const out = new Writable({
        write: (chunk: Buffer, _enc, done) => (chunks.push(chunk), done()),
      });
      let drawn = '';
      const progress = new Writable({
        write: (chunk: Buffer, _enc, done) => ((drawn += chunk.toString()), done()),
      });
      const program = buildProgram({
        env: { SMSGW_URL: gw.base, SMSGW_ADMIN_URL: gw.base, SMSGW_ADMIN_TOKEN: ADMIN_TOKEN },
        print: () => undefined,
        printError: () => undefined,
        out,
        progress,
      });
      await program.parseAsync([
        'node',
        'smsgw',
        'cdr',
        'export',
        '--since',
        since,
        '--until',
        until,
      ]);
      const exported = Buffer.concat(chunks).toString();
      expect(exported).toBe((await call('GET', exportPath({}))).text);
      expect(drawn).toMatch(new RegExp(`${Object.keys(sent).length} rows`));

      const failing = buildProgram({
        env: { SMSGW_URL: gw.base, SMSGW_ADMIN_URL: gw.base, SMSGW_ADMIN_TOKEN: ADMIN_TOKEN },
        print: () => undefined,
        printError: () => undefined,
        out,
      });
      await expect(
        failing.parseAsync(['node', 'smsgw', 'cdr', 'export', '--since', until, '--until', since]),
      ).rejects.toThrow(/until: must be after since/);
    });

    it('refuses a bad query with a clear 400 or 404 before it reads, and a token without messages:read', async () => {
      const audited = async () => {
        const trail = await call('GET', '/audit?limit=500');
        expect(trail.status).toBe(200);
        return (trail.body.data as { action: string }[]).filter((e) => e.action === 'GET /cdrs')
          .length;
      };
      const before = await audited();
      const refused = async (query: string, status: number, message: RegExp) => {
        const reply: Reply = await call('GET', `/cdrs${query}`);
        expect(reply.status).toBe(status);
        expect(reply.headers.get('content-disposition')).toBeNull();
        expect(reply.body.detail.message).toMatch(message);
      };
      const day = (n: number) => new Date(Date.UTC(2026, 0, 1 + n)).toISOString();
      await refused(`?until=${until}`, 400, /^since: /);
      await refused(`?since=${since}&until=2026-01-01`, 400, /^until: expected an ISO 8601 time/);
      await refused(`?since=${day(2)}&until=${day(1)}`, 400, /^until: must be after since/);
      await refused(
        `?since=${day(0)}&until=${day(32)}`,
        400,
        /at most 31 days \(SEARCH_MAX_DAYS\)/,
      );
      await refused(
        `?since=${day(0)}&until=${day(1)}&format=xml`,
        400,
        /^format: expected csv or ndjson/,
      );
      await refused(`?since=${day(0)}&until=${day(1)}&per=batch`, 400, /^per: /);
      await refused(`?since=${day(0)}&until=${day(1)}&account=nobody`, 404, /No account nobody/);
      await refused(`?since=${day(0)}&until=${day(1)}&colour=red`, 400, /colour/);
      expect(await audited()).toBe(before);

      await call('GET', exportPath({ account: 'dan' }));
      expect(await audited()).toBe(before + 1);

      const made = await call('POST', '/tokens', {
        name: 'no-messages',
        scopes: ['accounts:read'],
      });
      expect(made.status).toBe(201);
      const denied = await request(gw.base, 'GET', `/admin/v1${exportPath({})}`, {
        auth: `Bearer ${made.body.data.token as string}`,
      });
      expect(denied.status).toBe(403);
      expect(denied.body.detail.message).toMatch(/messages:read/);
      const reader = await call('POST', '/tokens', {
        name: 'cdr-reader',
        scopes: ['messages:read'],
      });
      const allowed = await request(
        gw.base,
        'GET',
        `/admin/v1${exportPath({ format: 'ndjson' })}`,
        {
          auth: `Bearer ${reader.body.data.token as string}`,
        },
      );
      expect(allowed.status).toBe(200);
      expect(ndjsonRows(allowed.text).length).toBe(Object.keys(sent).length);
    });
  });
});
