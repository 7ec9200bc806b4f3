/**
 * The operators' view from the CLI in distributed mode: the admin token's requests go to auth
 * (SMSGW_ADMIN_URL), an account's to the api-gateway (SMSGW_URL), each served by its own process
 * on real Postgres and RabbitMQ.
 */
import { waitFor, type ServiceProcess } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { runSmsgw } from '../support/cli';
import { E2E_ADMIN_TOKEN, useDistributedRun } from '../support/distributed';
import { request } from '../support/http';

const run = useDistributedRun();
let auth: ServiceProcess;
let gateway: ServiceProcess;
let dana = '';
let id = '';

const smsgw = (args: string[]) =>
  runSmsgw(gateway.url, args, { SMSGW_ADMIN_URL: auth.url, SMSGW_ADMIN_TOKEN: E2E_ADMIN_TOKEN });

beforeAll(async () => {
  const sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    receiptDelayMs: 20,
  });
  run.simulators.push(sim);
  const { port } = await sim.start();
  ({ auth, gateway, credentials: dana } = await run.gatewayWithAccount('opv-dana'));
  await run.start('dispatcher', { SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}?window=10` });
  const sent = await request(gateway.url, 'POST', '/secure/send', {
    auth: dana,
    json: { to: '41790000401', content: 'to be found', from: 'Acme' },
  });
  expect(sent.status).toBe(200);
  id = (sent.body.data as string).slice('Success "'.length);
  await waitFor(
    async () =>
      (await request(gateway.url, 'GET', `/secure/messages/${id}`, { auth: dana })).body?.data
        ?.state === 'delivered',
    20_000,
    `${id} delivered`,
  );
}, 120_000);

it("finds the message with the admin token through auth and with the account's password through the api-gateway", async () => {
  const admin = JSON.parse(await smsgw(['messages', 'search', '--account', 'opv-dana', '--json']));
  expect(admin.data.messages).toEqual([
    expect.objectContaining({ id, account: 'opv-dana', state: 'delivered', to: '41790000401' }),
  ]);
  const [header, row, ...more] = (
    await smsgw(['messages', 'search', '-u', 'opv-dana', '-p', 'opv-dana-password'])
  ).split('\n');
  expect(header).toMatch(/^CREATED \(UTC\)\s+ID\s+TO\s+FROM\s+STATE/);
  expect(row).toContain(id);
  expect(row).toMatch(/\sdelivered\s/);
  expect(more).toEqual([]);
});

it("shows the message's story, lists the account and its (no) batches", async () => {
  const story = (await smsgw(['messages', 'show', id])).split('\n');
  expect(story).toEqual(
    expect.arrayContaining([`message    ${id}`, 'account    opv-dana', 'state      delivered']),
  );
  expect(story.some((line) => /^\S+ \S+\s+receipt\s+/.test(line))).toBe(true);
  const accounts = (await smsgw(['accounts', 'list', '--search', 'opv-'])).split('\n');
  expect(accounts).toHaveLength(2);
  expect(accounts[1]).toMatch(/^opv-dana\s/);
  expect(await smsgw(['batches', 'list', '-u', 'opv-dana', '-p', 'opv-dana-password'])).toMatch(
    /\nno batches from \S+ to \S+$/,
  );
});
