import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@smsgw/kit';
import { SmppConnector, SmppSimulator, parseSmscUrl, type InboundPdu } from '../src';
import { simulatorControl } from '../src/simulator-control';

/** The simulator's control endpoint delivers a handset's reply over the real SMPP session. */
let sim: SmppSimulator;
let http: Server;
let base: string;
let port: number;

beforeEach(async () => {
  sim = new SmppSimulator({ deliveryReceipts: false });
  port = (await sim.start()).port;
  http = createServer(simulatorControl(sim));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

afterEach(async () => {
  http.close();
  await sim.stop();
});

const originate = (body: unknown) =>
  fetch(`${base}/originate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('POST /originate', () => {
  it('delivers the message to the bound client and answers each part’s command_status', async () => {
    const received: InboundPdu[] = [];
    const connector = new SmppConnector(
      { ...parseSmscUrl(`smpp://sys:pw@127.0.0.1:${port}`), name: 'c' },
      createLogger('test', 'silent'),
    );
    connector.onInbound((pdu) => {
      received.push(pdu);
      return Promise.resolve();
    });
    await connector.start();
    try {
      const reply = await originate({
        from: '41790000001',
        to: '4000',
        text: 'two parts, please',
        partBytes: 9,
      });
      expect(reply.status).toBe(200);
      expect(await reply.json()).toEqual({ statuses: [0, 0] });
      expect(received.map((p) => [p.from, p.to, p.esmClass])).toEqual([
        ['41790000001', '4000', 0x40],
        ['41790000001', '4000', 0x40],
      ]);
    } finally {
      await connector.stop();
    }
  });

  it('refuses bad input with a 400 and a request with no client bound with a 409', async () => {
    for (const bad of [
      '{',
      { from: '1' },
      { from: '1', to: '2', text: 'a', hex: '00' },
      { from: '1', to: '2', text: 'a', times: 9 },
    ])
      expect((await originate(bad)).status).toBe(400);
    expect((await originate({ from: '1', to: '2', text: 'nobody bound' })).status).toBe(409);
  });
});
