import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, eventually, request } from '../support/http';
import { CallbackReceiver } from '../support/receiver';

let sim: SmppSimulator;
let gw: RunningGateway;
let receiver: CallbackReceiver;
const auth = basic('dora', 'dora-password');

async function send(body: Record<string, unknown>): Promise<string> {
  const reply = await request(gw.base, 'POST', '/secure/send', { auth, json: body });
  expect(reply.status).toBe(200);
  return reply.body.data.slice('Success "'.length);
}
const reportsFor = (id: string) => receiver.calls.filter((c) => (c.query['id'] ?? new URLSearchParams(c.body).get('id')) === id);
const settle = () => new Promise((r) => setTimeout(r, 400));

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: true, receiptDelayMs: 30, receiptStat: (to) => (to.endsWith('9') ? 'UNDELIV' : 'DELIVRD') });
  const { port } = await sim.start();
  receiver = new CallbackReceiver();
  await receiver.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`, CALLBACK_ALLOWED_HOSTS: '127.0.0.1', CALLBACK_RETRY_BASE_MS: '100' });
  await request(gw.base, 'POST', '/admin/v1/accounts', { auth: `Bearer ${ADMIN_TOKEN}`, json: { username: 'dora', password: 'dora-password' } });
});
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  await receiver?.stop();
});

describe('delivery reports', () => {
  it('level 1 reports the SMSC answer once', async () => {
    const id = await send({ to: '41790000401', content: 'l1', dlr: 'yes', 'dlr-url': `${receiver.base}/dlr?tag=a`, 'dlr-level': 1 });
    const [report] = await eventually(async () => (reportsFor(id).length ? reportsFor(id) : undefined));
    await settle();
    expect(reportsFor(id)).toHaveLength(1);
    expect(report!.method).toBe('GET');
    expect(report!.query).toEqual({ tag: 'a', id, level: '1', message_status: 'ESME_ROK', connector: 'smsc' });
  });

  it('level 2 reports the handset receipt with the reference parameters', async () => {
    const id = await send({ to: '41790000402', content: 'level two', dlr: 'yes', dlr_url: `${receiver.base}/dlr`, dlr_level: 2 });
    const [report] = await eventually(async () => (reportsFor(id).length ? reportsFor(id) : undefined));
    await settle();
    expect(reportsFor(id)).toHaveLength(1);
    const status = (await request(gw.base, 'GET', `/secure/messages/${id}`, { auth })).body.data;
    expect(report!.query).toEqual({
      id,
      id_smsc: status.smscId,
      message_status: 'DELIVRD',
      level: '2',
      connector: 'smsc',
      sub: '001',
      dlvrd: '001',
      subdate: expect.stringMatching(/^\d{10}$/),
      donedate: expect.stringMatching(/^\d{10}$/),
      err: '000',
      text: 'level two',
    });
    expect(status.state).toBe('delivered');
  });

  it('level 3 sends both, and POST sends them as forms', async () => {
    const id = await send({ to: '41790000403', content: 'l3', dlr: 'yes', 'dlr-url': `${receiver.base}/dlr`, 'dlr-level': 3, 'dlr-method': 'POST' });
    await eventually(async () => (reportsFor(id).length === 2 ? true : undefined));
    await settle();
    const reports = reportsFor(id).map((c) => Object.fromEntries(new URLSearchParams(c.body)));
    expect(reportsFor(id).map((c) => c.method)).toEqual(['POST', 'POST']);
    expect(reports.map((r) => r['level']).sort()).toEqual(['1', '2']);
  });

  it('a long message reports DELIVRD once, after every part was delivered', async () => {
    const id = await send({ to: '41790000404', content: 'x'.repeat(400), dlr: 'yes', 'dlr-url': `${receiver.base}/dlr`, 'dlr-level': 2 });
    await eventually(async () => (reportsFor(id).length ? true : undefined));
    await settle();
    expect(sim.received.filter((r) => r.to === '41790000404')).toHaveLength(3);
    expect(reportsFor(id)).toHaveLength(1);
    expect(reportsFor(id)[0]!.query['message_status']).toBe('DELIVRD');
    expect((await request(gw.base, 'GET', `/secure/messages/${id}`, { auth })).body.data).toMatchObject({ state: 'delivered', segments: 3 });
  });

  it('an undelivered message reports UNDELIV and ends undelivered', async () => {
    const id = await send({ to: '41790000409', content: 'nope', dlr: 'yes', 'dlr-url': `${receiver.base}/dlr`, 'dlr-level': 2 });
    const [report] = await eventually(async () => (reportsFor(id).length ? reportsFor(id) : undefined));
    expect(report!.query['message_status']).toBe('UNDELIV');
    expect((await request(gw.base, 'GET', `/secure/messages/${id}`, { auth })).body.data.state).toBe('undelivered');
  });

  it('a receipt that comes before the submit response is held and matched', async () => {
    const early = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: true, receiptBeforeResponse: true, latencyMs: 50 });
    const { port } = await early.start();
    const other = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`, CALLBACK_ALLOWED_HOSTS: '127.0.0.1', CALLBACK_RETRY_BASE_MS: '100' });
    try {
      await request(other.base, 'POST', '/admin/v1/accounts', { auth: `Bearer ${ADMIN_TOKEN}`, json: { username: 'dora', password: 'dora-password' } });
      const reply = await request(other.base, 'POST', '/secure/send', {
        auth,
        json: { to: '41790000406', content: 'x'.repeat(200), dlr: 'yes', 'dlr-url': `${receiver.base}/dlr`, 'dlr-level': 2 },
      });
      const id = reply.body.data.slice('Success "'.length);
      const [report] = await eventually(async () => (reportsFor(id).length ? reportsFor(id) : undefined));
      expect(report!.query['message_status']).toBe('DELIVRD');
      expect((await request(other.base, 'GET', `/secure/messages/${id}`, { auth })).body.data).toMatchObject({ state: 'delivered', segments: 2 });
    } finally {
      await other.stop();
      await early.stop();
    }
  });

  it('no report without dlr yes', async () => {
    const id = await send({ to: '41790000405', content: 'quiet' });
    await eventually(async () => ((await request(gw.base, 'GET', `/secure/messages/${id}`, { auth })).body.data.state === 'delivered' ? true : undefined));
    await settle();
    expect(reportsFor(id)).toEqual([]);
  });
});
