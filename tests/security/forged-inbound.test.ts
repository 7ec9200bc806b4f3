/**
 * Forged inbound messages. An HTTP upstream may claim any sender and any number: its messages
 * reach only the MO routes of its own connector (unless a route says any connector), so it can
 * neither opt a number out of another account (a forged STOP that stops one-time passwords) nor
 * reach another account's webhook. Upstreams authenticate as their connector, by the secret stored
 * with it, before their body is read; a connector without a secret takes nothing. Opt-out words
 * are the account's own, and a transactional account's sends are not held to its list.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { adminCaller, basic, request } from '../support/http';
import { CallbackReceiver } from '../support/receiver';

const admin = `Bearer ${ADMIN_TOKEN}`;
const bank = basic('bank', 'bank-password');
const shop = basic('shop', 'shop-password');
const SHOP_SECRET = 'shop-upstream-secret-0123456789abcdef';

let sim: SmppSimulator;
let gw: RunningGateway;
let hooks: CallbackReceiver;
let upstreamMt: Server;

const adminCall = adminCaller(() => gw.base, admin);

const fromUpstream = (connector: string, json: unknown, secret = SHOP_SECRET) =>
  request(gw.base, 'POST', `/inbound/v1/http/${connector}`, { auth: `Bearer ${secret}`, json });

async function optedOut(auth: string): Promise<string[]> {
  const list = await request(gw.base, 'GET', '/secure/optouts', { auth });
  return (list.body.data.optouts as { number: string }[]).map((o) => o.number);
}

/** Waits until the notifier has given the message to a route (or to none). */
async function settled(id: string): Promise<string> {
  return waitFor(
    async () => {
      const unrouted = await adminCall('GET', '/inbound/unrouted?limit=500');
      if (unrouted.body.data.some((m: { id: string }) => m.id === id)) return 'unrouted';
      for (const auth of [bank, shop]) {
        const m = await request(gw.base, 'GET', `/secure/inbound/${id}`, { auth });
        if (m.status === 200 && m.body.data.state !== 'received')
          return auth === bank ? 'bank' : 'shop';
      }
      return undefined;
    },
    15_000,
    `message ${id} routed`,
  );
}

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  const { port } = await sim.start();
  hooks = new CallbackReceiver();
  await hooks.start();
  upstreamMt = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => upstreamMt.listen(0, '127.0.0.1', r));
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    CONNECTOR_ALLOWED_HOSTS: '127.0.0.1',
    CALLBACK_RETRY_BASE_MS: '100',
  });
  for (const name of ['bank', 'shop'])
    expect(
      (
        await adminCall('POST', '/accounts', {
          username: name,
          password: `${name}-password`,
          balance: '100',
        })
      ).status,
    ).toBe(201);
  const mtPort = (upstreamMt.address() as AddressInfo).port;
  expect(
    (
      await adminCall('POST', '/connectors', {
        name: 'shopup',
        url: `http://u:p@127.0.0.1:${mtPort}`,
      })
    ).status,
  ).toBe(201);
  expect(
    (await adminCall('PUT', '/connectors/shopup/inbound-secret', { secret: SHOP_SECRET })).status,
  ).toBe(200);
  // The bank's one-time-password replies come through the SMSC (the `default` connector: a route
  // that names none); the shop's through its own upstream.
  expect(
    (
      await adminCall('PUT', '/mo-routes/bank', {
        position: 1,
        to: '4000',
        exact: true,
        account: 'bank',
        webhook_url: `${hooks.base}/bank`,
      })
    ).body.data,
  ).toMatchObject({ connector: 'default', any_connector: false });
  expect(
    (
      await adminCall('PUT', '/mo-routes/shop', {
        position: 2,
        to: '5000',
        connector: 'shopup',
        account: 'shop',
        webhook_url: `${hooks.base}/shop`,
      })
    ).status,
  ).toBe(200);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  await hooks?.stop();
  upstreamMt?.closeAllConnections();
  await new Promise((r) => upstreamMt?.close(r));
});

describe('a forged inbound message', () => {
  it('from another connector cannot opt a number out of another account nor reach its webhook', async () => {
    const forged = await fromUpstream('shopup', {
      from: '41790002001',
      to: '4000',
      text: 'STOP',
    });
    expect(forged.status).toBe(200);
    expect(await settled(forged.body.data.id as string)).toBe('unrouted');
    expect(await optedOut(bank)).not.toContain('41790002001');
    expect(hooks.on('/bank')).toEqual([]);

    // The same words through the bank's own connector do reach it.
    await sim.originate({ from: '41790002002', to: '4000', text: 'STOP' });
    await waitFor(
      async () => ((await optedOut(bank)).includes('41790002002') ? true : undefined),
      15_000,
      'the genuine STOP',
    );
    expect(await optedOut(bank)).not.toContain('41790002001');
    // And the upstream reaches its own account.
    const own = await fromUpstream('shopup', { from: '41790002003', to: '5000', text: 'hello' });
    expect(await settled(own.body.data.id as string)).toBe('shop');
  });

  it('reaches a route of any connector only when the route says so', async () => {
    expect(
      (
        await adminCall('PUT', '/mo-routes/both', {
          position: 3,
          connector: 'shopup',
          any_connector: true,
          account: 'shop',
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await adminCall('PUT', '/mo-routes/anywhere', {
          position: 3,
          to: '6000',
          any_connector: true,
          account: 'shop',
        })
      ).body.data,
    ).toMatchObject({ connector: null, any_connector: true });
    // The notifier reads the route table again within 2 s: until then a message stays unrouted.
    let n = 0;
    await waitFor(
      async () => {
        const from = `4179000210${n++}`;
        const m = await fromUpstream('shopup', { from, to: '6000', text: 'hi' });
        return (await settled(m.body.data.id as string)) === 'shop' ? true : undefined;
      },
      15_000,
      'a message of any connector routed to the shop',
      300,
    );
    await adminCall('DELETE', '/mo-routes/anywhere');
  });
});

describe('an HTTP upstream', () => {
  it('authenticates as its own connector only; a connector without a secret takes nothing', async () => {
    const msg = { from: '41790002010', to: '4000', text: 'STOP' };
    // The shop's secret does not make it the `default` connector, which has no secret at all.
    expect((await fromUpstream('default', msg)).status).toBe(401);
    expect((await fromUpstream('default', msg, '')).status).toBe(401);
    expect((await fromUpstream('nosuch', msg)).status).toBe(401);
    expect((await fromUpstream('shopup', msg, `${SHOP_SECRET}x`)).status).toBe(401);
    // A secret in the body is not a credential.
    expect(
      (
        await request(gw.base, 'POST', '/inbound/v1/http/shopup', {
          json: { ...msg, secret: SHOP_SECRET },
        })
      ).status,
    ).toBe(401);
    // Basic, with the connector's name as user name.
    const viaBasic = await request(gw.base, 'POST', '/inbound/v1/http/shopup', {
      auth: basic('shopup', SHOP_SECRET),
      json: { from: '41790002011', to: '5000', text: 'basic' },
    });
    expect(viaBasic.status).toBe(200);
    expect(
      (
        await request(gw.base, 'POST', '/inbound/v1/http/shopup', {
          auth: basic('default', SHOP_SECRET),
          json: msg,
        })
      ).status,
    ).toBe(401);
    // A secret cleared takes effect within the cache's lifetime.
    expect(
      (await adminCall('PUT', '/connectors/nosuch/inbound-secret', { secret: 'x'.repeat(40) }))
        .status,
    ).toBe(404);
    expect(
      (await adminCall('PUT', '/connectors/shopup/inbound-secret', { secret: 'short' })).status,
    ).toBe(400);
    expect((await adminCall('GET', '/connectors/shopup/inbound-secret')).body.data).toEqual({
      connector: 'shopup',
      inboundSecret: true,
    });
  });

  it('is refused before its body is read: a malformed body is a 401, a huge one is not waited for', async () => {
    const malformed = await request(gw.base, 'POST', '/inbound/v1/http/shopup', {
      body: '{"from": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(401);
    // Announces nearly the body limit, sends a little of it and never the rest: the answer must
    // come from the headers alone.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${gw.base}/inbound/v1/http/shopup`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': String(1_000_000),
        },
      });
      req.on('response', (res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
        req.destroy();
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.write(`from=41790002012&to=5000&text=${'A'.repeat(60_000)}`);
      setTimeout(
        () => reject(new Error('no answer while the body was incomplete')),
        10_000,
      ).unref();
    });
    expect(status).toBe(401);
    const inbox = await request(gw.base, 'GET', '/secure/inbound?from=41790002012', { auth: shop });
    expect(inbox.body.data.messages).toEqual([]);
  });
});

describe('opt-out words', () => {
  it('are the account’s own: its words opt out, the defaults it replaced do not', async () => {
    expect(
      (
        await adminCall('PUT', '/accounts/shop/optout-words', {
          optout: ['arret', 'halt'],
          optin: [],
        })
      ).body.data,
    ).toEqual({ optout: ['ARRET', 'HALT'], optin: [], transactional: false });
    for (const [from, text] of [
      ['41790002020', 'STOP'],
      ['41790002021', 'Arret merci'],
    ]) {
      const m = await fromUpstream('shopup', { from, to: '5000', text });
      expect(await settled(m.body.data.id as string)).toBe('shop');
    }
    const list = await optedOut(shop);
    expect(list).toContain('41790002021');
    expect(list).not.toContain('41790002020');
    expect(
      (await adminCall('PUT', '/accounts/shop/optout-words', { optout: ['STOP'], optin: ['stop'] }))
        .status,
    ).toBe(400);
    expect((await adminCall('PUT', '/accounts/shop/optout-words', { optout: 'STOP' })).status).toBe(
      400,
    );
    expect((await adminCall('GET', '/accounts/nobody/optout-words')).status).toBe(404);
  });

  it('do not hold a transactional account’s sends (one-time passwords) to its opt-out list', async () => {
    expect(
      (
        await request(gw.base, 'POST', '/secure/optouts', {
          auth: bank,
          json: { number: '41790002030' },
        })
      ).status,
    ).toBe(201);
    await waitFor(
      async () => {
        const r = await request(gw.base, 'POST', '/secure/send', {
          auth: bank,
          json: { to: '41790002030', content: 'offer' },
        });
        return r.status === 403 ? true : undefined;
      },
      10_000,
      'the opt-out applied',
      300,
    );
    expect(
      (await adminCall('PUT', '/accounts/bank/optout-words', { transactional: true })).body.data,
    ).toEqual({ optout: null, optin: null, transactional: true });
    await waitFor(
      async () => {
        const r = await request(gw.base, 'POST', '/secure/send', {
          auth: bank,
          json: { to: '41790002030', content: 'Your code is 123456' },
        });
        return r.status === 200 ? true : undefined;
      },
      10_000,
      'the one-time password sent',
      300,
    );
    // The number stays on the list: the account still sees who asked to stop.
    expect(await optedOut(bank)).toContain('41790002030');
  });
});
