import { createLogger } from '@smsgw/kit';
import { waitFor } from '@smsgw/kit/testing';
import { SmppPairConnector, SmppSimulator, parseSmscUrl, type DeliveryReceipt } from '@smsgw/smsc';

const logger = createLogger('pair-test', 'silent');
let sim: SmppSimulator;
let pair: SmppPairConnector;

beforeAll(async () => {
  sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    receiptDelayMs: 10,
  });
  const { port } = await sim.start();
  pair = new SmppPairConnector(
    { ...parseSmscUrl(`smpp://gw:pw@127.0.0.1:${port}`), name: 'pair' },
    logger,
  );
});

afterAll(async () => {
  await pair.stop();
  await sim.stop();
});

describe('a connector bound as transmitter plus receiver', () => {
  it('binds two sessions, submits over the transmitter and hears receipts over the receiver', async () => {
    const receipts: DeliveryReceipt[] = [];
    pair.onReceipt((r) => void receipts.push(r));
    await pair.start();
    expect(sim.binds.map((b) => b.command).sort()).toEqual(['bind_receiver', 'bind_transmitter']);
    expect(sim.boundCount).toBe(2);
    expect(pair.sessions()).toBe(2);
    const { smscIds } = await pair.submit({
      to: '41790000001',
      from: 'PAIR',
      dataCoding: 0,
      parts: [Buffer.from('two binds')],
      registeredDelivery: true,
    });
    await waitFor(() => (receipts.length > 0 ? true : undefined), 10_000, 'receipt');
    expect(receipts.map((r) => r.smscId)).toEqual(smscIds);
    expect(sim.receipts.map((r) => r.onSubmittingSession)).toEqual([false]);
  });
});
