/**
 * cancel_sm answered from the message's state. SMPP 3.4 4.9: "This command is issued by the ESME
 * to cancel one or more previously submitted short messages that are still pending delivery." A
 * message still waiting for the SMSC is cancelled and its cost given back, as the cancel of a batch
 * does for its waiting messages; one that has left is answered ESME_RCANCELFAIL; an unknown id or
 * another account's is ESME_RINVMSGID.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';
import { openEsme, type Esme } from './support/esme-client';

const ESME_RINVMSGID = 0x0c;
const ESME_RCANCELFAIL = 0x11;
const DELETED = 4;

let smsc: SmppSimulator;
let gw: RunningGateway;
let esme: Esme;
const admin = `Bearer ${ADMIN_TOKEN}`;

const balance = async (username: string): Promise<number> =>
  Number(
    (await request(gw.base, 'GET', `/admin/v1/accounts/${username}`, { auth: admin })).body.balance,
  );
const stateOf = async (id: string): Promise<string> =>
  (await request(gw.base, 'GET', `/secure/messages/${id}`, { auth: basic('cleo', 'cleo-http') }))
    .body.data.state as string;
const connector = async (action: 'stop' | 'start'): Promise<void> => {
  const reply = await request(gw.base, 'POST', `/admin/v1/connectors/default/${action}`, {
    auth: admin,
  });
  expect(reply.status).toBe(200);
  // The dispatcher closes a stopped connector's session once it has seen the stop, and binds
  // again when it starts.
  await waitFor(
    () =>
      (action === 'stop' ? smsc.sessionCount === 0 : smsc.sessionCount > 0) ? true : undefined,
    30_000,
    `connector default ${action}`,
  );
};

beforeAll(async () => {
  smsc = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: true });
  const { port } = await smsc.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}` });
  for (const username of ['cleo', 'otto']) {
    const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
      auth: admin,
      json: { username, password: `${username}-http`, balance: '10', rate: '0.5' },
    });
    expect(created.status).toBe(201);
    const access = await request(gw.base, 'PUT', `/admin/v1/accounts/${username}/smpp`, {
      auth: admin,
      json: { password: `${username}-spw` },
    });
    expect(access.status).toBe(200);
  }
  esme = await openEsme({ port: gw.gateway.smppPort });
  expect((await esme.bind('bind_transceiver', 'cleo', 'cleo-spw')).status).toBe(0);
}, 60_000);

afterAll(async () => {
  esme?.close();
  await gw?.stop();
  await smsc?.stop();
});

describe('cancel_sm', () => {
  it('cancels a message still waiting and refunds it; one that has left is ESME_RCANCELFAIL', async () => {
    // A stopped connector keeps its messages waiting in the database until it starts again.
    await connector('stop');
    const waiting = await esme.submit({ to: '41790000401', bytes: Buffer.from('cancel me') });
    expect(waiting.status).toBe(0);
    expect(await balance('cleo')).toBe(9.5);

    // Another account cannot cancel it, nor can anyone cancel an id that does not exist.
    const other = await openEsme({ port: gw.gateway.smppPort });
    try {
      expect((await other.bind('bind_transceiver', 'otto', 'otto-spw')).status).toBe(0);
      expect(await other.cancel(waiting.id, '41790000401')).toBe(ESME_RINVMSGID);
    } finally {
      other.close();
    }
    expect(await esme.cancel('00000000-0000-4000-8000-000000000000', '41790000401')).toBe(
      ESME_RINVMSGID,
    );
    expect(await esme.cancel('not-an-id', '41790000401')).toBe(ESME_RINVMSGID);
    expect(await stateOf(waiting.id)).toBe('queued');

    expect(await esme.cancel(waiting.id, '41790000401')).toBe(0);
    expect(await stateOf(waiting.id)).toBe('cancelled');
    expect(await balance('cleo')).toBe(10);
    expect((await esme.query(waiting.id)).state).toBe(DELETED);
    // Once cancelled, it is past cancelling, and refunded once only.
    expect(await esme.cancel(waiting.id, '41790000401')).toBe(ESME_RCANCELFAIL);
    expect(await balance('cleo')).toBe(10);

    // The connector starts again: a message sent now leaves, and its cancel comes too late.
    const sent = await esme.submit({ to: '41790000402', bytes: Buffer.from('keep me') });
    expect(sent.status).toBe(0);
    await connector('start');
    await waitFor(
      async () => ((await stateOf(sent.id)) === 'delivered' ? true : undefined),
      60_000,
      'the second message delivered',
    );
    expect(await esme.cancel(sent.id, '41790000402')).toBe(ESME_RCANCELFAIL);
    expect(await stateOf(sent.id)).toBe('delivered');
    expect(await balance('cleo')).toBe(9.5);
    // The cancelled message never reached the SMSC.
    expect(smsc.received.map((r) => r.to)).toEqual(['41790000402']);
  }, 120_000);
});
