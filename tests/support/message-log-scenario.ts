/**
 * The message log as a support desk uses it, run against embedded mode and against the services
 * as processes alike (tests/api/message-log.test.ts, tests/e2e/message-log.test.ts): a customer's
 * own search with every filter and its cursor, the operator's search across accounts with its
 * scopes, a failed-over message's story with its receipt and its delivery report, the lists of
 * accounts and batches, and every bad filter refused with a 400 that changes nothing.
 */
import { waitFor } from '@smsgw/kit/testing';
import type { SmppSimulator } from '@smsgw/smsc';
import type { CallbackReceiver } from './receiver';
import { basic, request, type Reply } from './http';
import { metricValue } from './scrape';

export interface MessageLogDeployment {
  /** Where /secure is served. */
  gateway: string;
  /** Where /admin/v1 is served. */
  admin: string;
  adminToken: string;
  /** The default connector's SMSC: delivers, and says UNDELIV for 4179000009x. */
  home: SmppSimulator;
  /** The port of connector op-b's SMSC, which refuses 44… with ESME_RINVDSTADR. */
  abroadPort: number;
  /** The customer's delivery-report receiver (on loopback, allowed by CALLBACK_ALLOWED_HOSTS). */
  receiver: CallbackReceiver;
  /** Where the dispatcher's /metrics is served (the gateway's, in embedded mode). */
  dispatcherMetrics: string;
}

const alice = basic('alice', 'alice-password');
const bob = basic('bob', 'bob-password');
const ID = /[0-9a-f]{8}-[0-9a-f-]{27}/;

interface Sent {
  id: string;
  to: string;
  auth: string;
}

export function describeMessageLog(deployment: () => MessageLogDeployment): void {
  const d = () => deployment();
  const adminCall = (path: string, token = d().adminToken, method = 'GET', json?: unknown) =>
    request(d().admin, method, `/admin/v1${path}`, {
      auth: `Bearer ${token}`,
      ...(json !== undefined && { json }),
    });
  const mine = (path: string, auth = alice) => request(d().gateway, 'GET', path, { auth });
  const send = async (auth: string, json: Record<string, unknown>): Promise<Sent> => {
    const reply = await request(d().gateway, 'POST', '/secure/send', { auth, json });
    expect(reply.status).toBe(200);
    return { id: ID.exec(reply.body.data as string)![0], to: String(json['to']), auth };
  };
  const ended = (messages: readonly Sent[]) =>
    waitFor(
      async () => {
        for (const { id, auth } of messages) {
          const s = await mine(`/secure/messages/${id}`, auth);
          if (s.body?.data?.outcome !== 'known') return undefined;
        }
        return true;
      },
      60_000,
      'every message ended',
      100,
    );
  const ids = (r: Reply): string[] => (r.body.data.messages as { id: string }[]).map((m) => m.id);

  const sent: Record<string, Sent> = {};
  let batchId = '';
  let readOnly = '';
  let reader = '';
  const started = new Date().toISOString();

  beforeAll(async () => {
    for (const [username, balance] of [
      ['alice', '100'],
      ['bob', '50'],
    ] as const) {
      const created = await adminCall('/accounts', d().adminToken, 'POST', {
        username,
        password: `${username}-password`,
        balance,
        rate: '0.1',
      });
      expect(created.status).toBe(201);
    }
    await adminCall('/connectors', d().adminToken, 'POST', {
      name: 'op-b',
      url: `smpp://opb:secret-b@127.0.0.1:${d().abroadPort}`,
    });
    const route = await adminCall('/routes/uk', d().adminToken, 'PUT', {
      position: 10,
      kind: 'failover',
      connectors: [{ connector: 'op-b' }, { connector: 'default' }],
      filters: { prefixes: ['44'] },
      reroute_on: ['ESME_RINVDSTADR'],
      price: '0.3',
    });
    expect(route.status).toBe(200);
    const rest = await adminCall('/routes/rest', d().adminToken, 'PUT', {
      position: 100,
      kind: 'static',
      connectors: [{ connector: 'default' }],
    });
    expect(rest.status).toBe(200);
    // The dispatcher names `default` in both routes (uk and rest) once it loaded them.
    await waitFor(
      async () =>
        (await metricValue(d().dispatcherMetrics, 'smsgw_connector_routes', {
          connector: 'default',
        })) === 2
          ? true
          : undefined,
      20_000,
      'the dispatcher loaded routes uk and rest',
      100,
    );
    // The gateway prices 44… by uk once it reloaded its routes (its refresh period).
    await waitFor(
      async () => {
        const r = await request(d().gateway, 'POST', '/secure/rate', {
          auth: alice,
          json: { to: '447900000001', content: 'x' },
        });
        return r.body?.data?.rate === '0.3' ? true : undefined;
      },
      15_000,
      'the gateway routes 44 by uk',
      100,
    );

    sent['d1'] = await send(alice, { to: '41790000001', content: 'hello one', from: 'Shop' });
    sent['d2'] = await send(alice, { to: '41790000002', content: 'hello two', from: 'Shop' });
    sent['d3'] = await send(alice, { to: '41780000003', content: 'hello, "three"' });
    sent['u1'] = await send(alice, { to: '41790000091', content: 'never arrives' });
    sent['uk'] = await send(alice, {
      to: '447900000001',
      content: 'over the channel',
      dlr: 'yes',
      'dlr-url': `${d().receiver.base}/ok?for=uk`,
      'dlr-level': 2,
    });
    sent['bob'] = await send(bob, { to: '41790000001', content: 'bob writes' });
    const jasmin = await request(
      d().gateway,
      'GET',
      `/send?username=alice&password=alice-password&to=41790000005&content=by+jasmin`,
    );
    expect(jasmin.status).toBe(200);
    sent['jasmin'] = { id: ID.exec(jasmin.text)![0], to: '41790000005', auth: alice };
    const batch = await request(d().gateway, 'POST', '/secure/sendbatch', {
      auth: alice,
      json: { messages: [{ to: ['41770000001', '41770000002'], content: 'to many' }] },
    });
    expect(batch.status).toBe(200);
    batchId = batch.body.data.batchId as string;
    await waitFor(
      async () => {
        const s = await mine(`/secure/batches/${batchId}`);
        return s.body?.data?.state === 'completed' ? true : undefined;
      },
      60_000,
      'the batch completed',
      100,
    );
    await ended(Object.values(sent));
    // The uk message's delivery report reaches the receiver and is recorded as answered.
    await waitFor(
      async () => {
        const story = await adminCall(`/messages/${sent['uk'].id}`);
        const events = (story.body?.data?.events ?? []) as { event: string; detail: any }[];
        return events.some((e) => e.event === 'callback' && e.detail.state === 'done')
          ? true
          : undefined;
      },
      30_000,
      'the delivery report of the uk message answered',
      100,
    );
    expect(d().receiver.calls.filter((c) => c.query['for'] === 'uk')).toHaveLength(1);
    for (const [name, scopes] of [
      ['desk', ['messages:read', 'accounts:read', 'batches:read']],
      ['desk-content', ['messages:read', 'messages:content']],
    ] as const) {
      const token = await adminCall('/tokens', d().adminToken, 'POST', { name, scopes });
      expect(token.status).toBe(201);
      if (name === 'desk') readOnly = token.body.data.token as string;
      else reader = token.body.data.token as string;
    }
  }, 180_000);

  describe("a customer's own messages", () => {
    it('lists only its own, newest first, with their text and without route or connector', async () => {
      const all = await mine(`/secure/messages?since=${started}`);
      expect(all.status).toBe(200);
      const found = ids(all);
      const own = ['d1', 'd2', 'd3', 'u1', 'uk', 'jasmin'].map((k) => sent[k].id);
      expect(found).toEqual(expect.arrayContaining(own));
      expect(found).not.toContain(sent['bob'].id);
      expect(found).toHaveLength(own.length + 2);
      expect([...found].sort().reverse()).toEqual(found);
      const d1 = (all.body.data.messages as Record<string, unknown>[]).find(
        (m) => m['id'] === sent['d1'].id,
      );
      expect(d1).toMatchObject({
        state: 'delivered',
        outcome: 'known',
        to: '41790000001',
        from: 'Shop',
        content: 'hello one',
        entry: 'rest',
        cost: '0.1',
      });
      expect(d1).not.toHaveProperty('route');
      expect(d1).not.toHaveProperty('connector');
      expect(d1).not.toHaveProperty('account');
    });

    it('filters by destination, prefix, sender, state, batch and entry point', async () => {
      const q = async (query: string) => {
        const r = await mine(`/secure/messages?since=${started}&${query}`);
        expect({ query, status: r.status }).toEqual({ query, status: 200 });
        return ids(r).sort();
      };
      expect(await q('to=41790000001')).toEqual([sent['d1'].id]);
      expect(await q('to=%2B41790000001')).toEqual([sent['d1'].id]);
      expect(await q('to=4179*')).toEqual(
        [sent['d1'].id, sent['d2'].id, sent['u1'].id, sent['jasmin'].id].sort(),
      );
      expect(await q('from=Shop')).toEqual([sent['d1'].id, sent['d2'].id].sort());
      expect(await q('state=undelivered')).toEqual([sent['u1'].id]);
      expect(await q('state=undelivered,failed,unknown')).toEqual([sent['u1'].id]);
      expect(await q('state=queued')).toEqual([]);
      expect(await q(`batch=${batchId}`)).toHaveLength(2);
      expect(await q('entry=jasmin-http')).toEqual([sent['jasmin'].id]);
      expect(await q('entry=batch')).toEqual(await q(`batch=${batchId}`));
      expect(await q(`id=${sent['d3'].id}`)).toEqual([sent['d3'].id]);
      expect(await q(`id=${sent['bob'].id}`)).toEqual([]);
    });

    it('pages with next, each message once, a message sent meanwhile on no later page', async () => {
      const seen: string[] = [];
      let next: string | null = null;
      let pages = 0;
      do {
        const r: Reply = await mine(
          `/secure/messages?since=${started}&limit=3${next === null ? '' : `&next=${next}`}`,
        );
        expect(r.status).toBe(200);
        seen.push(...ids(r));
        next = r.body.data.next as string | null;
        if (pages === 0) sent['late'] = await send(alice, { to: '41760000001', content: 'late' });
        pages += 1;
      } while (next !== null && pages < 10);
      expect(pages).toBe(3);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).not.toContain(sent['late'].id);
      expect(seen).toHaveLength(8);
      // A new search finds it, first.
      expect(ids(await mine(`/secure/messages?since=${started}&limit=1`))).toEqual([
        sent['late'].id,
      ]);
    });

    it('refuses route and connector filters where customers are not shown them', async () => {
      for (const query of ['connector=op-b', 'route=uk']) {
        const r = await mine(`/secure/messages?${query}`);
        expect({ query, status: r.status }).toEqual({ query, status: 400 });
      }
    });

    it('lists its own batches', async () => {
      const r = await mine(`/secure/batches?since=${started}`);
      expect(r.status).toBe(200);
      expect(r.body.data.batches).toEqual([
        expect.objectContaining({ batchId, state: 'completed', total: 2, cost: '0.2' }),
      ]);
      expect((await mine(`/secure/batches?since=${started}`, bob)).body.data.batches).toEqual([]);
    });
  });

  describe("the operator's search", () => {
    it('searches across accounts, or one account, by connector and route, with names shown', async () => {
      const all = await adminCall(`/messages?since=${started}&to=41790000001`, readOnly);
      expect(all.status).toBe(200);
      expect(ids(all).sort()).toEqual([sent['d1'].id, sent['bob'].id].sort());
      const byBob = await adminCall(`/messages?since=${started}&account=bob`, readOnly);
      expect(ids(byBob)).toEqual([sent['bob'].id]);
      expect(byBob.body.data.messages[0]).toMatchObject({
        account: 'bob',
        route: 'rest',
        connector: 'default',
      });
      const viaB = await adminCall(`/messages?since=${started}&connector=op-b`, readOnly);
      expect(ids(viaB)).toEqual([sent['uk'].id]);
      expect(
        ids(await adminCall(`/messages?since=${started}&route=uk&connector=default`, readOnly)),
      ).toEqual([sent['uk'].id]);
    });

    it('masks the text without messages:content, shows it with it, and audits that read', async () => {
      const masked = await adminCall(`/messages?since=${started}&account=bob`, readOnly);
      expect(masked.body.data.messages[0]).toMatchObject({ content: null, contentMasked: true });
      const shown = await adminCall(`/messages?since=${started}&account=bob`, reader);
      expect(shown.body.data.messages[0]).toMatchObject({ content: 'bob writes' });
      expect(shown.body.data.messages[0]).not.toHaveProperty('contentMasked');
      const trail = await adminCall('/audit?actor=desk-content');
      expect(trail.status).toBe(200);
      expect(trail.body.data).toEqual(
        expect.arrayContaining([expect.objectContaining({ target: '/messages', result: 'ok' })]),
      );
      expect(
        (await adminCall('/audit?actor=desk')).body.data.filter(
          (e: { target: string }) => e.target === '/messages',
        ),
      ).toEqual([]);
    });

    it('needs messages:read, and batches:read and accounts:read for their lists', async () => {
      const made = await adminCall('/tokens', d().adminToken, 'POST', {
        name: 'routes-only',
        scopes: ['routes'],
      });
      const token = made.body.data.token as string;
      for (const path of ['/messages', `/messages/${sent['d1'].id}`, '/batches', '/accounts']) {
        const r = await adminCall(path, token);
        expect({ path, status: r.status }).toEqual({ path, status: 403 });
      }
      expect((await adminCall('/messages', reader)).status).toBe(200);
      expect((await adminCall('/batches', reader)).status).toBe(403);
    });

    it('lists accounts by name, searched and paged', async () => {
      const first = await adminCall('/accounts?limit=1', readOnly);
      expect(first.status).toBe(200);
      expect(first.body.data.accounts.map((a: { username: string }) => a.username)).toEqual([
        'alice',
      ]);
      const second = await adminCall(`/accounts?limit=1&next=${first.body.data.next}`, readOnly);
      expect(second.body.data.accounts[0]).toMatchObject({ username: 'bob', balance: '49.9' });
      expect(
        (await adminCall('/accounts?q=LIC', readOnly)).body.data.accounts.map(
          (a: { username: string }) => a.username,
        ),
      ).toEqual(['alice']);
    });

    it("lists every account's batches, or one account's", async () => {
      const all = await adminCall(`/batches?since=${started}`, readOnly);
      expect(all.body.data.batches).toEqual([
        expect.objectContaining({ batchId, account: 'alice' }),
      ]);
      expect((await adminCall(`/batches?account=bob`, readOnly)).body.data.batches).toEqual([]);
    });
  });

  describe("a message's story", () => {
    it('tells a failed-over message from acceptance to its delivery report, in order', async () => {
      const r = await adminCall(`/messages/${sent['uk'].id}`, reader);
      expect(r.status).toBe(200);
      expect(r.body.data.message).toMatchObject({
        id: sent['uk'].id,
        account: 'alice',
        state: 'delivered',
        route: 'uk',
        connector: 'default',
        content: 'over the channel',
        cost: '0.3',
        attempts: 2,
      });
      const events = r.body.data.events as { event: string; at: string | null; detail: any }[];
      expect(events.map((e) => e.event)).toEqual([
        'accepted',
        'charged',
        'routed',
        'offered',
        'failover',
        'submitted',
        'receipt',
        'callback',
      ]);
      expect(events[0].detail).toMatchObject({ entry: 'rest' });
      expect(events[1].detail).toMatchObject({ amount: '0.3' });
      expect(events[2].detail).toMatchObject({ route: 'uk', connectors: ['op-b', 'default'] });
      expect(events[4].detail).toEqual({ from: 'op-b', to: 'default' });
      const smscId = d().home.received.find((s) => s.to === '447900000001')!.smscId;
      expect(events[5].detail).toMatchObject({ connector: 'default', smscId });
      expect(events[6].detail).toMatchObject({ state: 'delivered' });
      expect(events[7].detail).toMatchObject({ kind: 'dlr2', state: 'done', attempts: 1 });
      const times = events.map((e) => e.at).filter((t): t is string => t !== null);
      expect([...times].sort()).toEqual(times);
    });

    it('tells an undelivered message and a batch message, charged with their batch', async () => {
      const u = await adminCall(`/messages/${sent['u1'].id}`, readOnly);
      expect(u.body.data.message).toMatchObject({ content: null, contentMasked: true });
      const last = u.body.data.events.at(-1);
      expect(last).toMatchObject({ event: 'receipt', detail: { state: 'undelivered' } });
      expect(last.detail.stat).toBe('UNDELIV');
      const inBatch = (await mine(`/secure/messages?batch=${batchId}&since=${started}`)).body.data
        .messages[0].id as string;
      const b = await adminCall(`/messages/${inBatch}`, readOnly);
      // The batch is debited whole when it is accepted, before its messages are made.
      expect(b.body.data.events.slice(0, 2)).toEqual([
        expect.objectContaining({
          event: 'charged',
          detail: expect.objectContaining({ batchWide: true, amount: '0.2' }),
        }),
        expect.objectContaining({
          event: 'accepted',
          detail: expect.objectContaining({ entry: 'batch' }),
        }),
      ]);
    });

    it('answers 404 for an unknown or malformed id', async () => {
      for (const id of ['01890000-0000-7000-8000-000000000000', 'not-an-id']) {
        expect((await adminCall(`/messages/${id}`, readOnly)).status).toBe(404);
      }
    });
  });

  describe('CDRs and statistics', () => {
    it('agree with each other, with the messages, and with the balances, to the message', async () => {
      const hour = new Date(Math.floor(Date.parse(started) / 3_600_000) * 3_600_000).toISOString();
      const until = new Date(Date.now() + 3_600_000).toISOString();
      // Every message of the suite has ended (the paging test sends one more).
      await waitFor(
        async () => {
          const r = await adminCall(
            `/messages?since=${hour}&state=accepted,queued,submitting,submitted`,
            readOnly,
          );
          return r.body.data.messages.length === 0 ? true : undefined;
        },
        60_000,
        'no message still on its way',
        100,
      );
      const exported = await adminCall(
        `/cdrs?since=${hour}&until=${until}&format=ndjson`,
        readOnly,
      );
      expect(exported.status).toBe(200);
      const cdrs = exported.text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, string | number | null>);
      const searched = await adminCall(`/messages?since=${hour}&limit=500`, readOnly);
      expect(cdrs.map((c) => c['id']).sort()).toEqual(ids(searched).sort());
      expect(cdrs.some((c) => 'content' in c || 'text' in c)).toBe(false);

      type Sum = { messages: number; parts: number; charged: number; refunded: number };
      const add = (into: Map<string, Sum>, key: string, row: Sum) => {
        const sum = into.get(key) ?? { messages: 0, parts: 0, charged: 0, refunded: 0 };
        sum.messages += row.messages;
        sum.parts += row.parts;
        sum.charged += row.charged;
        sum.refunded += row.refunded;
        into.set(key, sum);
      };
      const fromCdrs = new Map<string, Sum>();
      for (const c of cdrs)
        add(fromCdrs, `${c['account']}/${c['state']}`, {
          messages: 1,
          parts: Number(c['parts']),
          charged: Number(c['charged']),
          refunded: Number(c['refunded']),
        });
      // The rollup counts every STATS_ROLLUP_SECONDS: it agrees once it counted the last end.
      const fromStats = await waitFor(
        async () => {
          const r = await adminCall(
            `/stats?since=${hour}&until=${until}&period=day&group=account`,
            readOnly,
          );
          expect(r.status).toBe(200);
          if (r.body.data.totals.messages !== cdrs.length) return undefined;
          const sums = new Map<string, Sum>();
          for (const row of r.body.data.rows as Record<string, string | number>[])
            add(sums, `${row['account']}/${row['state']}`, {
              messages: Number(row['messages']),
              parts: Number(row['parts']),
              charged: Number(row['charged']),
              refunded: Number(row['refunded']),
            });
          return sums;
        },
        60_000,
        'the statistics counted every message',
        200,
      );
      const rounded = (m: Map<string, Sum>) =>
        Object.fromEntries(
          [...m.entries()]
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, v]) => [
              k,
              { ...v, charged: v.charged.toFixed(6), refunded: v.refunded.toFixed(6) },
            ]),
        );
      expect(rounded(fromStats)).toEqual(rounded(fromCdrs));
      for (const [username, opening] of [
        ['alice', 100],
        ['bob', 50],
      ] as const) {
        const account = await adminCall(`/accounts?q=${username}`, readOnly);
        const balance = Number(account.body.data.accounts[0].balance);
        const spent = cdrs
          .filter((c) => c['account'] === username)
          .reduce((sum, c) => sum + Number(c['charged']) - Number(c['refunded']), 0);
        expect({ username, spent: spent.toFixed(6) }).toEqual({
          username,
          spent: (opening - balance).toFixed(6),
        });
      }
    });
  });

  describe('bad filters', () => {
    const bad: [string, RegExp][] = [
      ['since=yesterday', /since/],
      ['until=2026-13-01T00:00:00Z', /until/],
      [`since=2020-01-01T00:00:00Z&until=2020-03-01T00:00:00Z`, /at most 31 days/],
      [`since=2030-01-02T00:00:00Z&until=2030-01-01T00:00:00Z`, /later than since/],
      ['to=41-79', /to/],
      ['to=4179**', /to/],
      ['from=' + 'x'.repeat(20), /from/],
      ['state=lost', /state/],
      ['state=', /state/],
      ['batch=12', /batch/],
      ['connector=a%20b', /connector/],
      ['entry=fax', /entry/],
      ['limit=0', /limit/],
      ['limit=501', /limit/],
      ['next=page-2', /next/],
      ['colour=red', /colour/i],
      ['to=1&to=2', /to/],
    ];
    it.each(bad)('refuses %s with a 400 naming the problem', async (query, problem) => {
      const r = await adminCall(`/messages?${query}`, readOnly);
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).toMatch(problem);
      const own = await mine(`/secure/messages?${query}`);
      expect(own.status).toBe(400);
    });

    it('answers 404 for an unknown account, and refuses bad batch and account filters', async () => {
      expect((await adminCall('/messages?account=nobody', readOnly)).status).toBe(404);
      expect((await adminCall('/messages?account=a%20b', readOnly)).status).toBe(400);
      expect((await adminCall('/batches?state=lost', readOnly)).status).toBe(400);
      expect((await adminCall('/accounts?limit=1000', readOnly)).status).toBe(400);
      expect((await mine('/secure/batches?next=xyz')).status).toBe(400);
    });
  });
}
