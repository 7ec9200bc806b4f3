import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded } from '../support/embedded';
import { basic, request } from '../support/http';

describe('embedded mode keeps everything across a restart', () => {
  let sim: SmppSimulator;
  let smppPort: number;
  beforeAll(async () => {
    sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
    ({ port: smppPort } = await sim.start());
  });
  afterAll(() => sim.stop());

  it('accounts, applications, messages and balance survive; tokens stay valid', async () => {
    const env = { SMSC_URL: `smpp://gw:pw@127.0.0.1:${smppPort}` };
    const first = await startEmbedded(env);
    const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
    expect(
      (
        await request(first.base, 'POST', '/admin/v1/accounts', {
          ...admin,
          json: { username: 'frank', password: 'frank-password', balance: '3', sms_count: 10 },
        })
      ).status,
    ).toBe(201);
    const app = (
      await request(first.base, 'POST', '/admin/v1/accounts/frank/applications', {
        ...admin,
        json: {},
      })
    ).body;
    const token = (
      await request(first.base, 'POST', '/auth/v1/login/application', {
        body: new URLSearchParams({ client_id: app.client_id, client_secret: app.client_secret }),
      })
    ).body.access_token;
    const frank = basic('frank', 'frank-password');
    const sent = await request(first.base, 'POST', '/secure/send', {
      auth: frank,
      json: { to: '41790000009', content: 'before restart' },
    });
    expect(sent.status).toBe(200);
    const id = sent.body.data.slice(9);
    await waitFor(async () =>
      (await request(first.base, 'GET', `/secure/messages/${id}`, { auth: frank })).body.data
        .state === 'submitted'
        ? true
        : undefined,
    );
    await first.stop();

    const second = await startEmbedded(env, first.dataDir);
    try {
      expect((await request(second.base, 'GET', '/secure/balance', { auth: frank })).body).toEqual({
        data: { balance: '2', sms_count: '9' },
      });
      expect(
        (await request(second.base, 'GET', '/secure/balance', { auth: `Bearer ${token}` })).status,
      ).toBe(200);
      const status = await request(second.base, 'GET', `/secure/messages/${id}`, { auth: frank });
      expect(status.body.data).toMatchObject({ id, state: 'submitted', to: '41790000009' });
      expect(sim.messages().filter((m) => m.to === '41790000009')).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });

  it('a scheduled batch survives a restart and is delivered once, not before its time', async () => {
    const env = { SMSC_URL: `smpp://gw:pw@127.0.0.1:${smppPort}` };
    const first = await startEmbedded(env);
    const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
    await request(first.base, 'POST', '/admin/v1/accounts', {
      ...admin,
      json: { username: 'gus', password: 'gus-password', balance: null },
    });
    const gus = basic('gus', 'gus-password');
    const acceptedAt = Date.now();
    const batch = await request(first.base, 'POST', '/secure/sendbatch', {
      auth: gus,
      json: {
        messages: [{ to: ['41790000301', '41790000302'], content: 'after restart' }],
        batch_config: { schedule_at: '4s' },
      },
    });
    expect(batch.status).toBe(200);
    await first.stop();
    expect(sim.messages().filter((m) => m.text === 'after restart')).toEqual([]);

    const second = await startEmbedded(env, first.dataDir);
    try {
      await waitFor(
        () =>
          sim.messages().filter((m) => m.text === 'after restart').length === 2 ? true : undefined,
        15_000,
      );
      const arrivals = sim.received.filter((r) => r.to === '41790000301' || r.to === '41790000302');
      expect(arrivals).toHaveLength(2);
      for (const r of arrivals)
        expect(r.receivedAt.getTime() - acceptedAt).toBeGreaterThanOrEqual(4000);
      const status = await waitFor(async () => {
        const s = (
          await request(second.base, 'GET', `/secure/batches/${batch.body.data.batchId}`, {
            auth: gus,
          })
        ).body.data;
        return s.state === 'completed' ? s : undefined;
      });
      expect(status.counts).toMatchObject({ total: 2, sent: 2 });
    } finally {
      await second.stop();
    }
  });
});
