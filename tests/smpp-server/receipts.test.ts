/**
 * Receipts back over SMPP: a message submitted with registered_delivery gets its handset receipt
 * as a deliver_sm (esm_class 0x04, the receipt text of SMPP 3.4 Appendix B, receipted_message_id
 * and message_state TLVs) with the id given in submit_sm_resp, on a receiver session opened after
 * the message was sent; a receipt whose deliver_sm goes unanswered is sent again on another
 * session; a message sent without registered_delivery gets none; each part of a long message the
 * customer concatenated itself gets its own receipt.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { adminCaller, basic, request } from '../support/http';
import { openEsme, type Delivered, type Esme } from './support/esme-client';

let smsc: SmppSimulator;
let gw: RunningGateway;
const open: Esme[] = [];
const admin = `Bearer ${ADMIN_TOKEN}`;
const adminCall = adminCaller(() => gw.base, admin);
const stateOf = async (id: string): Promise<string> =>
  (
    await request(gw.base, 'GET', `/secure/messages/${id}`, {
      auth: basic('erin', 'erin-http-password'),
    })
  ).body.data.state as string;

async function esme(
  kind: 'bind_transmitter' | 'bind_receiver' | 'bind_transceiver',
  answerDeliver?: (d: Delivered) => number | undefined,
): Promise<Esme> {
  const client = await openEsme({
    port: gw.gateway.smppPort,
    ...(answerDeliver && { answerDeliver }),
  });
  open.push(client);
  expect((await client.bind(kind, 'erin', 'er1nsmpp')).status).toBe(0);
  return client;
}

beforeAll(async () => {
  smsc = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: true });
  const { port } = await smsc.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}` });
  expect(
    (
      await adminCall('POST', '/accounts', {
        username: 'erin',
        password: 'erin-http-password',
        balance: '100',
        rate: '0.1',
      })
    ).status,
  ).toBe(201);
  expect((await adminCall('PUT', '/accounts/erin/smpp', { password: 'er1nsmpp' })).status).toBe(
    200,
  );
}, 60_000);

afterEach(() => {
  for (const client of open.splice(0)) client.close();
});

afterAll(async () => {
  await gw?.stop();
  await smsc?.stop();
});

describe('receipts over SMPP', () => {
  it('delivers the receipt on a receiver session bound after the message was sent, and none for a message that asked for none', async () => {
    const tx = await esme('bind_transmitter');
    const wanted = await tx.submit({
      from: '4000',
      to: '41790000301',
      bytes: Buffer.from('Your code is 1234'),
      registeredDelivery: 1,
    });
    const unwanted = await tx.submit({ to: '41790000302', bytes: Buffer.from('no receipt') });
    expect([wanted.status, unwanted.status]).toEqual([0, 0]);
    await waitFor(
      async () => ((await stateOf(wanted.id)) === 'delivered' ? true : undefined),
      30_000,
    );
    await waitFor(
      async () => ((await stateOf(unwanted.id)) === 'delivered' ? true : undefined),
      30_000,
    );
    expect(tx.delivered).toEqual([]);
    // Until a receiver session binds, the receipt waits, and operators see it waiting.
    const waiting = await waitFor(async () => {
      const { body } = await adminCall('GET', '/smpp/waiting');
      return body.data.receipts >= 1 ? body.data : undefined;
    }, 30_000);
    expect(waiting.accounts).toEqual([
      expect.objectContaining({ account: 'erin', receipts: 1, inbound: 0, max_attempts: 0 }),
    ]);
    expect(waiting.receipts).toBe(1);

    const rx = await esme('bind_receiver');
    const [receipt] = await waitFor(
      () => (rx.delivered.length > 0 ? rx.delivered : undefined),
      30_000,
    );
    expect(receipt.esmClass).toBe(0x04);
    expect(receipt.from).toBe('41790000301');
    expect(receipt.to).toBe('4000');
    const text = receipt.bytes.toString('latin1');
    // SMPP 3.4 Appendix B: "id:IIIIIIIIII sub:SSS dlvrd:DDD submit date:YYMMDDhhmm done
    // date:YYMMDDhhmm stat:DDDDDDD err:E Text: . . . . . . . . ."
    expect(text).toMatch(
      new RegExp(
        `^id:${wanted.id} sub:001 dlvrd:001 submit date:\\d{10} done date:\\d{10} stat:DELIVRD err:\\d{3} text:Your code is 1234$`,
      ),
    );
    // receipted_message_id (0x001E, C-Octet String) and message_state (0x0427, 1 octet).
    expect(receipt.tlvs.get(0x001e)?.toString('latin1')).toBe(`${wanted.id}\u0000`);
    expect(receipt.tlvs.get(0x0427)).toEqual(Buffer.from([2]));
    // The other message's receipt, recorded before this session bound, is not among them.
    expect(rx.delivered.filter((d) => d.from === '41790000302')).toEqual([]);
    // Answered, it waits no more.
    await waitFor(async () => {
      const { body } = await adminCall('GET', '/smpp/waiting');
      return body.data.receipts === 0 ? true : undefined;
    }, 30_000);
  });

  it('gives each part of a long message the customer concatenated itself its own receipt, by the id of its submit_sm_resp', async () => {
    const trx = await esme('bind_transceiver');
    const parts = ['first part ', 'second part'].map((text, i) =>
      Buffer.concat([Buffer.from([0x05, 0x00, 0x03, 0x07, 2, i + 1]), Buffer.from(text)]),
    );
    const answers = await Promise.all(
      parts.map((bytes) =>
        trx.submit({ to: '41790000304', bytes, esmClass: 0x40, registeredDelivery: 1 }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([0, 0]);
    expect(answers[0].id).not.toBe(answers[1].id);
    const receipts = await waitFor(() => {
      const found = answers.map((a) =>
        trx.delivered.find((d) => d.tlvs.get(0x001e)?.toString('latin1') === `${a.id}\u0000`),
      );
      return found.every(Boolean) ? found : undefined;
    }, 30_000);
    for (const [i, receipt] of receipts.entries()) {
      expect(receipt!.esmClass).toBe(0x04);
      expect(receipt!.bytes.toString('latin1')).toMatch(new RegExp(`^id:${answers[i].id} `));
    }
  });

  it('sends a receipt again on another session when its deliver_sm goes unanswered', async () => {
    const tx = await esme('bind_transmitter');
    const { id } = await tx.submit({
      to: '41790000303',
      bytes: Buffer.from('again'),
      registeredDelivery: 1,
    });
    await waitFor(async () => ((await stateOf(id)) === 'delivered' ? true : undefined), 30_000);
    // This platform takes the deliver_sm and never answers it, then drops the connection.
    const mute = await esme('bind_transceiver', () => undefined);
    await waitFor(
      () => (mute.received.some((p) => p.commandId === 0x05) ? true : undefined),
      30_000,
    );
    mute.close();
    const rx = await esme('bind_transceiver');
    const receipt = await waitFor(
      () => rx.delivered.find((d) => d.bytes.toString('latin1').startsWith(`id:${id} `)),
      30_000,
    );
    expect(receipt.esmClass).toBe(0x04);
  });

  it('delivers an inbound reply to the account’s receiver session when its MO route says smpp', async () => {
    const route = await adminCall('PUT', '/mo-routes/erin-replies', {
      position: 1,
      to: '4000',
      exact: true,
      account: 'erin',
      smpp: true,
    });
    expect(route.status).toBe(200);
    expect(route.body.data).toMatchObject({ account: 'erin', smpp: true });
    const rx = await esme('bind_receiver');
    let tries = 0;
    // The notifier reloads its MO routes every few seconds: a reply that came before is kept
    // unrouted, so each try is a new reply.
    const reply = await waitFor(async () => {
      tries += 1;
      await smsc.originate({ from: '41790000009', to: '4000', text: `YES ${tries}` });
      return waitFor(
        () => rx.delivered.find((d) => d.esmClass === 0 && d.from === '41790000009'),
        3_000,
      ).catch(() => undefined);
    }, 30_000);
    expect(reply.to).toBe('4000');
    expect(reply.dataCoding).toBe(0);
    expect(reply.bytes.toString('latin1')).toMatch(/^YES \d+$/);
  });
});
