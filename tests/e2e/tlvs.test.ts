/**
 * TLVs and flash in distributed mode: the dispatcher, a process of its own, reads a connector's
 * default TLVs from Postgres and adds them under a message's own custom_tlvs; a change made through
 * the admin API while it runs reaches the next submits within seconds, and a flash message keeps
 * its message class in data_coding (docs/routing.md § TLVs, docs/compatibility.md § TLVs and
 * flash; embedded mode's suite is tests/compat/tlvs-flash.test.ts).
 */
import { waitFor } from '@smsgw/kit/testing';
import type { ServiceProcess } from '@smsgw/kit/testing';
import { SmppSimulator, type ReceivedSubmit } from '@smsgw/smsc';
import { E2E_ADMIN_TOKEN, useDistributedRun } from '../support/distributed';
import { request } from '../support/http';

const run = useDistributedRun();
let auth: ServiceProcess;
let gateway: ServiceProcess;
let credentials: string;
let smsc: SmppSimulator;
const hex = (text: string) => Buffer.from(text).toString('hex');

const admin = (method: string, path: string, json?: unknown) =>
  request(auth.url, method, `/admin/v1${path}`, {
    auth: `Bearer ${E2E_ADMIN_TOKEN}`,
    ...(json !== undefined && { json }),
  });
let sent = 0;
async function send(extra: Record<string, unknown> = {}): Promise<ReceivedSubmit> {
  const to = `4179${String(++sent).padStart(7, '0')}`;
  const reply = await request(gateway.url, 'POST', '/secure/send', {
    auth: credentials,
    json: { to, content: 'hello', ...extra },
  });
  expect(reply.status).toBe(200);
  return waitFor(() => smsc.received.find((r) => r.to === to), 30_000, `submit_sm for ${to}`);
}
const tlvsOf = (submit: ReceivedSubmit) =>
  submit.tlvs.map((t) => ({ tag: t.tag, value: t.value.toString('hex') }));

beforeAll(async () => {
  smsc = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  run.simulators.push(smsc);
  const port = (await smsc.start()).port;
  const started = await run.gatewayWithAccount('tlv-client');
  auth = started.auth;
  gateway = started.gateway;
  credentials = started.credentials;
  expect((await admin('POST', '/accounts/tlv-client/credit', { amount: '100' })).status).toBe(200);
  await run.start('dispatcher', { SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}` });
  // The dispatcher writes the default connector's row at its start.
  await waitFor(
    async () => (await admin('GET', '/connectors/default')).status === 200,
    30_000,
    'default connector stored',
  );
  const put = await admin('PUT', '/connectors/default/tlvs', {
    tlvs: [['0x1400', null, 'OctetString', '1201159100000000001']],
  });
  expect(put.status).toBe(200);
}, 120_000);

describe('TLVs in distributed mode', () => {
  it("adds the connector's defaults under the message's own, and keeps the message class", async () => {
    const submit = await send({
      flash: true,
      custom_tlvs: [
        [0x1401, null, 'OctetString', 'template-7'],
        [0x1400, null, 'OctetString', 'message-entity'],
      ],
    });
    // The message's own 0x1400 replaces the connector's, in the connector's place.
    expect(tlvsOf(submit)).toEqual([
      { tag: 0x1400, value: hex('message-entity') },
      { tag: 0x1401, value: hex('template-7') },
    ]);
    expect(submit.dataCoding).toBe(0x10);
    expect(tlvsOf(await send())).toEqual([{ tag: 0x1400, value: hex('1201159100000000001') }]);
  });

  it('follows a change of the connector while the dispatcher runs', async () => {
    const changed = await admin('PUT', '/connectors/default/tlvs', {
      tlvs: [[0x1400, 'OctetString', '1201159100000000099']],
    });
    expect(changed.status).toBe(200);
    const wanted = [{ tag: 0x1400, value: hex('1201159100000000099') }];
    // One message at a time until one carries the new value (the dispatcher looks again within a
    // second); from then on every one does.
    await waitFor(
      async () => JSON.stringify(tlvsOf(await send())) === JSON.stringify(wanted),
      15_000,
      'the changed TLV reaches a submit_sm',
      100,
    );
    for (let i = 0; i < 3; i++) expect(tlvsOf(await send())).toEqual(wanted);
    // Removed: none.
    expect((await admin('PUT', '/connectors/default/tlvs', { tlvs: [] })).status).toBe(200);
    await waitFor(
      async () => tlvsOf(await send()).length === 0,
      15_000,
      'the removal reaches a submit_sm',
      100,
    );
  });
});
