/**
 * Two-way messaging end to end in embedded mode, over a real SMPP session: inbound messages the
 * simulator originates reach the right account by MO route (webhook in JSON or Jasmin's form, or
 * the inbox), STOP and START change the account's opt-out list, and sends and batches honour it.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { adminCaller, basic, request } from '../support/http';
import { CallbackReceiver } from '../support/receiver';
import { runSmsgw } from '../support/cli';
import { metricValue } from '../support/scrape';

let sim: SmppSimulator;
let gw: RunningGateway;
let hooks: CallbackReceiver;
const alice = basic('alice', 'alice-password');
const bob = basic('bob', 'bob-password');
const admin = `Bearer ${ADMIN_TOKEN}`;
const UPSTREAM_SECRET = 'upstream-secret-0123456789-0123456789';

const adminCall = adminCaller(() => gw.base, admin);

async function balance(auth: string): Promise<string> {
  return (await request(gw.base, 'GET', '/secure/balance', { auth })).body.data.balance as string;
}

/**
 * Sends to `number` from alice until the gateway refuses it as opted out: the gateway remembers for
 * a moment that an account has no list, so a list just made takes effect within that moment. The
 * sends it takes before then are sent and charged like any other.
 */
async function refusedAsOptedOut(number: string): Promise<void> {
  await waitFor(
    async () => {
      const sent = await request(gw.base, 'POST', '/secure/send', {
        auth: alice,
        json: { to: number, content: 'are you there' },
      });
      return sent.status === 403 && sent.body.detail.code === 'RECIPIENT_OPTED_OUT'
        ? true
        : undefined;
    },
    15_000,
    `${number} refused as opted out`,
    300,
  );
}

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  const { port } = await sim.start();
  hooks = new CallbackReceiver();
  await hooks.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    CALLBACK_RETRY_BASE_MS: '100',
    CONNECTOR_ALLOWED_HOSTS: '127.0.0.1',
    INBOUND_PART_TIMEOUT_MS: '1500',
  });
  for (const name of ['alice', 'bob'])
    expect(
      (
        await adminCall('POST', '/accounts', {
          username: name,
          password: `${name}-password`,
          balance: '100.000000',
        })
      ).status,
    ).toBe(201);
  // Replies to 4000 go to alice's webhook (JSON); keyword JOIN to 4000 to bob's Jasmin receiver;
  // anything to 4100 into bob's inbox.
  expect(
    (
      await adminCall('PUT', '/mo-routes/join', {
        position: 1,
        to: '4000',
        exact: true,
        keyword: 'join',
        account: 'bob',
        webhook_url: `${hooks.base}/jasmin`,
        webhook_format: 'jasmin',
      })
    ).status,
  ).toBe(200);
  await adminCall('PUT', '/mo-routes/alice', {
    position: 2,
    to: '4000',
    exact: true,
    account: 'alice',
    webhook_url: `${hooks.base}/alice`,
  });
  await adminCall('PUT', '/mo-routes/bob-inbox', { position: 3, to: '41', account: 'bob' });
  // An HTTP upstream is a connector of its own, with the secret it authenticates with; its
  // messages reach only the routes that name it.
  expect(
    (
      await adminCall('POST', '/connectors', {
        name: 'upstream',
        url: `http://u:p@${new URL(hooks.base).host}`,
      })
    ).status,
  ).toBe(201);
  expect(
    (await adminCall('PUT', '/connectors/upstream/inbound-secret', { secret: UPSTREAM_SECRET }))
      .status,
  ).toBe(200);
  await adminCall('PUT', '/mo-routes/alice-upstream', {
    position: 4,
    to: '4000',
    exact: true,
    connector: 'upstream',
    account: 'alice',
    webhook_url: `${hooks.base}/alice`,
  });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  await hooks?.stop();
});

describe('inbound messages routed to applications', () => {
  it('delivers a reply to the route’s webhook once, in JSON, with the decoded text', async () => {
    await sim.originate({ from: '41790000001', to: '4000', text: 'Yes please, 5€ [ok]' });
    await waitFor(() => (hooks.on('/alice').length > 0 ? true : undefined), 15_000, 'webhook');
    const call = hooks.on('/alice')[0];
    expect(call.contentType).toMatch(/application\/json/);
    const body = JSON.parse(call.body) as Record<string, string>;
    expect(body).toMatchObject({
      from: '41790000001',
      to: '4000',
      text: 'Yes please, 5€ [ok]',
      keyword: 'YES',
      coding: '0',
    });
    expect(call.headers['x-smsgw-signature']).toMatch(/^t=\d+,v2=[0-9a-f]{64}$/);
    // Answered OK: delivered, and never sent again.
    await waitFor(
      async () => {
        const m = await request(gw.base, 'GET', `/secure/inbound/${body['id']}`, { auth: alice });
        return m.body.data?.state === 'delivered' ? true : undefined;
      },
      10_000,
      'the message delivered',
    );
    // Delivered is written once the webhook answered: its call is done and is never made again.
    expect(hooks.on('/alice')).toHaveLength(1);
  });

  it('uses Jasmin’s MO form fields for a Jasmin receiver, by keyword, with a UCS-2 three-part message out of order', async () => {
    const text = 'join 😀 the club, 你好 everyone';
    await sim.originate({
      from: '41790000002',
      to: '4000',
      text,
      dataCoding: 8,
      partBytes: 20,
      order: [3, 1, 2],
    });
    await waitFor(() => (hooks.on('/jasmin').length > 0 ? true : undefined), 15_000, 'webhook');
    const form = Object.fromEntries(new URLSearchParams(hooks.on('/jasmin')[0].body));
    expect(form).toMatchObject({
      from: '41790000002',
      to: '4000',
      'origin-connector': 'default',
      coding: '8',
      content: text,
    });
    expect(Buffer.from(form['binary'], 'hex').toString('utf8')).toBe(text);
  });

  it('delivers a message whose part never came as what arrived, marked incomplete, once', async () => {
    await sim.originate({
      from: '41790000007',
      to: '4000',
      text: 'aaaaa|LOST|bbbbb',
      partBytes: 6,
      withhold: [2],
    });
    await waitFor(
      () => (hooks.on('/alice').some((c) => c.body.includes('aaaaa|bbbb')) ? true : undefined),
      20_000,
      'the incomplete message at the webhook',
    );
    const calls = hooks.on('/alice').filter((c) => c.body.includes('aaaaa|bbbb'));
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0].body)).toMatchObject({ incomplete: 'true', parts: '2/3' });
  });

  it('keeps a message in the inbox, visible by pull to its account only, with paging and filters', async () => {
    for (const word of ['one', 'two', 'three'])
      await sim.originate({ from: '41790000003', to: '4100', text: word });
    await waitFor(
      async () => {
        const list = await request(gw.base, 'GET', '/secure/inbound?to=4100', { auth: bob });
        return list.body.data.messages.length === 3 ? true : undefined;
      },
      15_000,
      'three messages in the inbox',
    );
    const first = await request(gw.base, 'GET', '/secure/inbound?to=4100&limit=2', { auth: bob });
    expect(first.body.data.messages.map((m: { text: string }) => m.text)).toEqual(['three', 'two']);
    const second = await request(
      gw.base,
      'GET',
      `/secure/inbound?to=4100&limit=2&cursor=${first.body.data.next as string}`,
      { auth: bob },
    );
    expect(second.body.data).toMatchObject({ messages: [{ text: 'one' }], next: null });
    const id = second.body.data.messages[0].id as string;
    expect((await request(gw.base, 'GET', `/secure/inbound/${id}`, { auth: alice })).status).toBe(
      404,
    );
    expect(
      (await request(gw.base, 'GET', '/secure/inbound?to=4100', { auth: alice })).body.data
        .messages,
    ).toEqual([]);
    for (const bad of ['limit=0', 'cursor=%%', 'since=yesterday', 'to=abc', 'nope=1'])
      expect((await request(gw.base, 'GET', `/secure/inbound?${bad}`, { auth: bob })).status).toBe(
        400,
      );
  });

  it('keeps a message no route takes, for the admin to see', async () => {
    await sim.originate({ from: '41790000004', to: '9999', text: 'lost?' });
    await waitFor(
      async () => {
        const list = await adminCall('GET', '/inbound/unrouted');
        return list.body.data.some((m: { text: string }) => m.text === 'lost?') ? true : undefined;
      },
      15_000,
      'the unrouted message',
    );
  });

  it('delivers each message once to a webhook that was down and came back', async () => {
    hooks.down('/alice');
    await sim.originate({ from: '41790000005', to: '4000', text: 'first' });
    await sim.originate({ from: '41790000006', to: '4000', text: 'second' });
    await waitFor(
      () =>
        hooks.on('/alice').filter((c) => c.body.includes('first')).length >= 2 ? true : undefined,
      15_000,
      'retries while down',
    );
    hooks.up('/alice');
    await waitFor(
      async () => {
        const list = await request(gw.base, 'GET', '/secure/inbound?to=4000&limit=5', {
          auth: alice,
        });
        const states = list.body.data.messages
          .filter((m: { text: string }) => ['first', 'second'].includes(m.text))
          .map((m: { state: string }) => m.state);
        return states.length === 2 && states.every((s: string) => s === 'delivered')
          ? true
          : undefined;
      },
      20_000,
      'both delivered',
    );
    // Delivered: their calls are done, none is made again. Each was answered 200 exactly once, after at least one 503 while the webhook was down.
    const answered = (text: string, status: number) =>
      hooks.on('/alice').filter((c) => c.body.includes(`"${text}"`) && c.status === status).length;
    for (const text of ['first', 'second']) {
      expect(answered(text, 200)).toBe(1);
      expect(answered(text, 503)).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('opt-out', () => {
  it('STOP puts the number on the account’s list: a send to it is refused and not charged; START lifts it', async () => {
    await sim.originate({ from: '41790000010', to: '4000', text: 'STOP' });
    await waitFor(
      async () => {
        const list = await request(gw.base, 'GET', '/secure/optouts', { auth: alice });
        return list.body.data.optouts.some((o: { number: string }) => o.number === '41790000010')
          ? true
          : undefined;
      },
      15_000,
      'the opt-out',
    );
    await refusedAsOptedOut('41790000010');
    const before = await balance(alice);
    const refused = await request(gw.base, 'POST', '/secure/send', {
      auth: alice,
      json: { to: '+41790000010', content: 'offer' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail.code).toBe('RECIPIENT_OPTED_OUT');
    expect(await balance(alice)).toBe(before);
    // Another account's list is its own.
    expect(
      (
        await request(gw.base, 'POST', '/secure/send', {
          auth: bob,
          json: { to: '41790000010', content: 'hi' },
        })
      ).status,
    ).toBe(200);

    await sim.originate({ from: '41790000010', to: '4000', text: 'start' });
    await waitFor(
      async () => {
        const sent = await request(gw.base, 'POST', '/secure/send', {
          auth: alice,
          json: { to: '41790000010', content: 'welcome back' },
        });
        return sent.status === 200 ? true : undefined;
      },
      15_000,
      'the send accepted again',
      300,
    );
  });

  it('leaves opted-out recipients out of a batch: ten numbers, two opted out, eight sent and charged', async () => {
    for (const number of ['41790000021', '41790000022'])
      expect(
        (await request(gw.base, 'POST', '/secure/optouts', { auth: alice, json: { number } }))
          .status,
      ).toBe(201);
    await refusedAsOptedOut('41790000021');
    const before = Number(await balance(alice));
    const to = Array.from({ length: 10 }, (_, i) => `417900000${20 + i}`);
    const batch = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth: alice,
      json: { messages: [{ to, content: 'news' }] },
    });
    expect(batch.status).toBe(200);
    expect(batch.body.data.messageCount).toBe(8);
    expect(Number(await balance(alice))).toBeCloseTo(before - 8, 6);
    const id = batch.body.data.batchId as string;
    await waitFor(
      async () => {
        const status = await request(gw.base, 'GET', `/secure/batches/${id}`, { auth: alice });
        return status.body.data.state === 'completed' ? status.body.data : undefined;
      },
      20_000,
      'the batch completed',
    ).then((status) => expect(status.counts).toMatchObject({ total: 8, sent: 8, optedOut: 2 }));
    const received = sim.received.filter((r) => to.includes(r.to)).map((r) => r.to);
    expect(received.sort()).toEqual(to.filter((n) => !['41790000021', '41790000022'].includes(n)));
  });

  it('is managed by the account and the admin; bad input gets a 4xx and changes nothing', async () => {
    expect(
      (await request(gw.base, 'POST', '/secure/optouts', { auth: bob, json: { number: 'x' } }))
        .status,
    ).toBe(400);
    expect(
      (await request(gw.base, 'POST', '/secure/optouts', { auth: bob, json: { numbr: '41' } }))
        .status,
    ).toBe(400);
    expect(
      (await request(gw.base, 'DELETE', '/secure/optouts/41700000000', { auth: bob })).status,
    ).toBe(404);
    expect(
      (await adminCall('POST', '/accounts/bob/optouts', { number: '+41790000099' })).status,
    ).toBe(201);
    const list = await request(gw.base, 'GET', '/secure/optouts', { auth: bob });
    expect(list.body.data.optouts).toEqual([
      expect.objectContaining({ number: '41790000099', source: 'admin' }),
    ]);
    expect((await adminCall('DELETE', '/accounts/bob/optouts/41790000099')).status).toBe(200);
    expect((await adminCall('GET', '/accounts/nobody/optouts')).status).toBe(404);
    expect(
      (await adminCall('PUT', '/mo-routes/bad', { position: 9, account: 'nobody' })).status,
    ).toBe(400);
    expect((await adminCall('PUT', '/mo-routes/dup', { position: 1, account: 'bob' })).status).toBe(
      409,
    );
    expect(
      (
        await adminCall('PUT', '/mo-routes/x', {
          position: 9,
          account: 'bob',
          webhook_url: 'ftp://x',
        })
      ).status,
    ).toBe(400);
    expect(
      (await adminCall('GET', '/mo-routes')).body.data.map((r: { name: string }) => r.name),
    ).toEqual(['join', 'alice', 'bob-inbox', 'alice-upstream']);
  });
});

describe('the CLI', () => {
  it('manages MO routes and opt-out lists, lists inbound messages and follows new ones', async () => {
    const set = await runSmsgw(gw.base, [
      'mo-routes',
      'set',
      'cli-route',
      '--position',
      '50',
      '--account',
      'bob',
      '--to',
      '4200',
      '--keyword',
      'info',
    ]);
    expect(JSON.parse(set).data).toMatchObject({
      name: 'cli-route',
      to: '4200',
      keyword: 'INFO',
      account: 'bob',
    });
    const listed = JSON.parse(await runSmsgw(gw.base, ['mo-routes', 'list'])) as {
      data: { name: string }[];
    };
    expect(listed.data.map((r) => r.name)).toContain('cli-route');

    // The notifier reads MO routes again after a short while (one that came before takes no
    // route): a message routed to bob says the new route is in use.
    const inBobsInbox = async (text: string) =>
      (
        await request(gw.base, 'GET', '/secure/inbound?to=4200', { auth: bob })
      ).body.data.messages.some((m: { text: string }) => m.text === text) as boolean;
    let probes = 0;
    await waitFor(
      async () => {
        const text = `INFO first ${++probes}`;
        await sim.originate({ from: '41790000029', to: '4200', text });
        return (await waitFor(() => inBobsInbox(text), 3_000, text).catch(() => false))
          ? true
          : undefined;
      },
      20_000,
      'the new MO route in use',
    );
    const bobEnv = { SMSGW_USER: 'bob', SMSGW_PASSWORD: 'bob-password' };
    const inboxLooks = { method: 'GET', route: '/secure/inbound' };
    const looksBefore = await metricValue(gw.base, 'smsgw_http_requests_total', inboxLooks);
    const tail = runSmsgw(
      gw.base,
      ['inbound', 'tail', '--count', '2', '--interval', '100', '--for', '20'],
      bobEnv,
    );
    // The tail shows what arrives after its start: its first look at the inbox marks that.
    await waitFor(
      async () =>
        (await metricValue(gw.base, 'smsgw_http_requests_total', inboxLooks)) > looksBefore
          ? true
          : undefined,
      15_000,
      'the tail started',
      50,
    );
    await sim.originate({ from: '41790000030', to: '4200', text: 'info please' });
    await sim.originate({ from: '41790000031', to: '4200', text: 'INFO again' });
    const followed = (await tail).split('\n');
    expect(followed).toHaveLength(2);
    expect(followed[0]).toMatch(/41790000030 → 4200 \[default\] info please$/);
    expect(followed[1]).toMatch(/41790000031 → 4200 \[default\] INFO again$/);
    const list = JSON.parse(
      await runSmsgw(gw.base, ['inbound', 'list', '--to', '4200'], bobEnv),
    ) as {
      messages: { text: string }[];
    };
    expect(list.messages.map((m) => m.text)).toEqual([
      'INFO again',
      'info please',
      `INFO first ${probes}`,
    ]);

    await runSmsgw(gw.base, ['optouts', 'add', 'bob', '+41790000040']);
    const optouts = JSON.parse(await runSmsgw(gw.base, ['optouts', 'list', 'bob'])) as {
      data: { optouts: { number: string; source: string }[] };
    };
    expect(optouts.data.optouts).toEqual([
      expect.objectContaining({ number: '41790000040', source: 'admin' }),
    ]);
    await runSmsgw(gw.base, ['optouts', 'remove', 'bob', '41790000040']);
    expect(JSON.parse(await runSmsgw(gw.base, ['optouts', 'list', 'bob'])).data.optouts).toEqual(
      [],
    );
    await runSmsgw(gw.base, ['mo-routes', 'delete', 'cli-route']);
  });
});

describe('an HTTP upstream', () => {
  const post = (body: string, secret = UPSTREAM_SECRET) =>
    fetch(`${gw.base}/inbound/v1/http/upstream`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(secret !== '' && { authorization: `Bearer ${secret}` }),
      },
      body,
    });

  it('delivers inbound messages with its connector secret, routed by its connector’s routes; a repeat once', async () => {
    const form = `from=%2B41790000050&to=4000&text=${encodeURIComponent('Hallo 😀')}`;
    const first = await post(form);
    expect(first.status).toBe(200);
    const { data } = (await first.json()) as { data: { id: string; recorded: boolean } };
    expect(data.recorded).toBe(true);
    expect(((await (await post(form)).json()) as { data: unknown }).data).toEqual({
      recorded: false,
      repeat: true,
    });
    const json = await fetch(`${gw.base}/inbound/v1/http/upstream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${UPSTREAM_SECRET}` },
      body: JSON.stringify({ from: '41790000051', to: '4000', binary: '00ff', coding: 4 }),
    });
    expect(json.status).toBe(200);
    await waitFor(
      () =>
        hooks.on('/alice').some((c) => c.body.includes('Hallo 😀')) &&
        hooks.on('/alice').some((c) => c.body.includes('"binary":"00ff"'))
          ? true
          : undefined,
      15_000,
      'both at the webhook',
    );
    const call = hooks.on('/alice').find((c) => c.body.includes('Hallo'))!;
    expect(JSON.parse(call.body)).toMatchObject({
      id: data.id,
      from: '41790000050',
      connector: 'upstream',
    });
  });

  it('refuses a wrong secret or an unknown connector with a 401, and bad fields with a 400, recording nothing', async () => {
    const before = (
      await request(gw.base, 'GET', '/secure/inbound?to=4000&limit=500', { auth: alice })
    ).body.data.messages.length;
    expect((await post(`from=1&to=4000&text=x`, 'wrong-secret-0123456789')).status).toBe(401);
    expect((await post(`from=1&to=4000&text=x`, '')).status).toBe(401);
    expect(
      (
        await fetch(`${gw.base}/inbound/v1/http/other`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${UPSTREAM_SECRET}`,
            'content-type': 'application/json',
          },
          body: '{"from":"1","to":"4000","text":"x"}',
        })
      ).status,
    ).toBe(401);
    for (const bad of [
      'to=4000&text=x',
      'from=1&to=4000',
      'from=1&to=4000&text=x&binary=00',
      'from=1&to=4000&binary=zz',
      'from=1&to=4000&text=x&extra=1',
    ])
      expect((await post(bad)).status).toBe(400);
    const after = (
      await request(gw.base, 'GET', '/secure/inbound?to=4000&limit=500', { auth: alice })
    ).body.data.messages.length;
    expect(after).toBe(before);
  });
});

describe('embedded mode with its built-in simulator', () => {
  it('originates a reply through the simulator’s control endpoint, over the real SMPP session', async () => {
    const own = await startEmbedded({});
    try {
      const control = own.gateway.simulatorControlUrl;
      expect(control).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const call = (method: string, path: string, json: unknown) =>
        request(own.base, method, `/admin/v1${path}`, { auth: admin, json });
      expect(
        (await call('POST', '/accounts', { username: 'dana', password: 'dana-password' })).status,
      ).toBe(201);
      expect((await call('PUT', '/mo-routes/all', { position: 1, account: 'dana' })).status).toBe(
        200,
      );
      const reply = await fetch(`${control!}/originate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ from: '41790000060', to: '4000', text: 'Ja, gerne' }),
      });
      expect(await reply.json()).toEqual({ statuses: [0] });
      const dana = basic('dana', 'dana-password');
      await waitFor(
        async () => {
          const list = await request(own.base, 'GET', '/secure/inbound', { auth: dana });
          return list.body.data.messages[0]?.text === 'Ja, gerne' ? true : undefined;
        },
        15_000,
        'the reply in the inbox',
      );
    } finally {
      await own.stop();
    }
  });
});
