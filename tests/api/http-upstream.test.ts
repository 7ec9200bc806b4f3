import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, eventually, request } from '../support/http';

/** This gateway fronting another one: SMSC_URL with http:// selects the HttpConnector. */
describe('SMSC_URL=http://… forwards to an upstream gateway', () => {
  let upstream: Server;
  let gw: RunningGateway;
  const received: Record<string, string>[] = [];

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      received.push(Object.fromEntries(new URL(req.url ?? '/', 'http://u').searchParams));
      res.end('Success "7f3a"');
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = (upstream.address() as AddressInfo).port;
    gw = await startEmbedded({ SMSC_URL: `http://front:pw@127.0.0.1:${port}` });
    await request(gw.base, 'POST', '/admin/v1/accounts', { auth: `Bearer ${ADMIN_TOKEN}`, json: { username: 'ivy', password: 'ivy-password' } });
  });
  afterAll(async () => {
    await gw?.stop();
    upstream.closeAllConnections();
    await new Promise((r) => upstream.close(r));
  });

  it('sends through the upstream and records its id', async () => {
    const auth = basic('ivy', 'ivy-password');
    const reply = await request(gw.base, 'POST', '/secure/send', { auth, json: { to: '41790000501', content: 'Grüezi €', from: 'Acme' } });
    const id = reply.body.data.slice('Success "'.length);
    const message = await eventually(async () => {
      const m = (await request(gw.base, 'GET', `/secure/messages/${id}`, { auth })).body.data;
      return m.state === 'submitted' ? m : undefined;
    });
    expect(received).toEqual([{ username: 'front', password: 'pw', to: '41790000501', from: 'Acme', coding: '0', content: 'Grüezi €' }]);
    expect(message.smscId).toBe(String(0x7f3a));
  });
});
