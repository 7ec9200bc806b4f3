import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@smsgw/kit/testing';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';
import { CallbackReceiver } from '../support/receiver';

/** This gateway fronting another one: SMSC_URL with http:// selects the HttpConnector. */
describe('SMSC_URL=http://… forwards to an upstream gateway', () => {
  let upstream: Server;
  let gw: RunningGateway;
  const received: Record<string, string>[] = [];
  const receiver = new CallbackReceiver();
  const auth = basic('ivy', 'ivy-password');

  beforeAll(async () => {
    // The simpler interface as posted: a form body, the credentials in it (and in Basic).
    upstream = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push(Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString())));
        res.end('Success "7f3a"');
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = (upstream.address() as AddressInfo).port;
    await receiver.start();
    gw = await startEmbedded({
      SMSC_URL: `http://front:pw@127.0.0.1:${port}`,
      CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
      CALLBACK_RETRY_BASE_MS: '100',
    });
    await request(gw.base, 'POST', '/admin/v1/accounts', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      json: { username: 'ivy', password: 'ivy-password', balance: null },
    });
  });
  afterAll(async () => {
    await gw?.stop();
    upstream.closeAllConnections();
    await new Promise((r) => upstream.close(r));
    await receiver.stop();
  });

  it('sends through the upstream and records its id', async () => {
    const reply = await request(gw.base, 'POST', '/secure/send', {
      auth,
      json: { to: '41790000501', content: 'Grüezi €', from: 'Acme' },
    });
    const id = reply.body.data.slice('Success "'.length);
    const message = await waitFor(async () => {
      const m = (await request(gw.base, 'GET', `/secure/messages/${id}`, { auth })).body.data;
      return m.state === 'submitted' ? m : undefined;
    });
    expect(received.filter((r) => r.to === '41790000501')).toEqual([
      {
        username: 'front',
        password: 'pw',
        to: '41790000501',
        from: 'Acme',
        coding: '0',
        content: 'Grüezi €',
      },
    ]);
    expect(message.smscId).toBe(String(0x7f3a));
  });

  // docs/decisions.md: the simpler HTTP interface brings no handset receipts back, so level 2 never
  // comes; the request is accepted (the API cannot know which connector the dispatchers use).
  it('with dlr-level 3 sends the level 1 report only, and the message stays submitted', async () => {
    const send = async (to: string, level: number) => {
      const reply = await request(gw.base, 'POST', '/secure/send', {
        auth,
        json: {
          to,
          content: 'dlr',
          dlr: 'yes',
          'dlr-url': `${receiver.base}/dlr`,
          'dlr-level': level,
          // The report's parameters are read from its query.
          'dlr-method': 'GET',
        },
      });
      expect(reply.status).toBe(200);
      return reply.body.data.slice('Success "'.length) as string;
    };
    const reportsOf = (id: string) =>
      receiver.calls.filter((c) => c.query['id'] === id).map((c) => c.query);
    const id = await send('41790000502', 3);
    await waitFor(() => (reportsOf(id).length > 0 ? true : undefined));
    // A later message's report through the same notifier: anything more for the first one came by now.
    const later = await send('41790000503', 1);
    await waitFor(() => (reportsOf(later).length > 0 ? true : undefined));
    expect(reportsOf(id)).toEqual([
      { id, level: '1', message_status: 'ESME_ROK', connector: 'default' },
    ]);
    expect(
      (await request(gw.base, 'GET', `/secure/messages/${id}`, { auth })).body.data.state,
    ).toBe('submitted');
  });
});
