import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SmppSimulator } from '@smsgw/smsc';
import { runSmsgw } from '../support/cli';
import { startEmbedded, type RunningGateway } from '../support/embedded';

let sim: SmppSimulator;
let gw: RunningGateway;

/** Runs one smsgw command in-process against the embedded gateway; returns what it printed. */
const smsgw = (
  args: string[],
  env: Record<string, string> = {},
  progress?: NodeJS.WritableStream,
) => runSmsgw(gw.base, args, env, progress);

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  const { port } = await sim.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}` });
});
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

describe('smsgw', () => {
  it('accounts create, get and credit', async () => {
    const created = JSON.parse(
      await smsgw([
        'accounts',
        'create',
        'gina',
        '--password',
        'gina-password',
        '--balance',
        '2',
        '--sms-count',
        '5',
        '--rate',
        '0.5',
      ]),
    );
    expect(created).toMatchObject({ username: 'gina', balance: '2', sms_count: '5', rate: '0.5' });
    const credited = JSON.parse(
      await smsgw(['accounts', 'credit', 'gina', '--amount', '1.25', '--sms-count', '3']),
    );
    expect(credited).toMatchObject({ balance: '3.25', sms_count: '8' });
    expect(JSON.parse(await smsgw(['accounts', 'get', 'gina']))).toMatchObject({
      balance: '3.25',
      sms_count: '8',
    });
  });

  it('accounts senders shows, replaces and clears the senders an account may use', async () => {
    await smsgw(['accounts', 'create', 'sam', '--password', 'sam-password']);
    expect(JSON.parse(await smsgw(['accounts', 'senders', 'sam']))).toMatchObject({
      configured: false,
    });
    const set = JSON.parse(
      await smsgw(['accounts', 'senders', 'sam', '--allow', 'MyBrand', '--allow', '4179*']),
    );
    expect(set).toMatchObject({ configured: true, policy: 'refuse' });
    expect([...set.senders].sort()).toEqual(['4179*', 'MyBrand']);
    expect(JSON.parse(await smsgw(['accounts', 'senders', 'sam', '--clear']))).toMatchObject({
      configured: false,
      senders: [],
    });
  });

  it('apps create prints a client id and secret that log in', async () => {
    const app = JSON.parse(await smsgw(['apps', 'create', 'gina', '--name', 'cli test']));
    expect(app).toMatchObject({
      client_id: expect.any(String),
      client_secret: expect.any(String),
      name: 'cli test',
    });
    const login = await fetch(`${gw.base}/auth/v1/login/application`, {
      method: 'POST',
      body: new URLSearchParams({ client_id: app.client_id, client_secret: app.client_secret }),
    });
    expect(login.status).toBe(200);
  });

  it('send and balance as the account', async () => {
    const before = sim.messages().length;
    const out = await smsgw([
      'send',
      '--to',
      '41790000077',
      '--content',
      'via cli',
      '-u',
      'gina',
      '-p',
      'gina-password',
    ]);
    expect(out).toMatch(/^Success "[0-9a-f-]{36}$/);
    await sim.waitFor(before + 1, 10_000);
    expect(sim.messages().at(-1)).toMatchObject({ to: '41790000077', text: 'via cli' });
    expect(JSON.parse(await smsgw(['balance', '-u', 'gina', '-p', 'gina-password']))).toEqual({
      balance: '2.75',
      sms_count: '7',
    });
  });

  it('batch send reads a CSV, sends to every recipient and follows the batch to the end', async () => {
    await smsgw(['accounts', 'create', 'hank', '--password', 'hank-password', '--balance', '10']);
    const file = join(mkdtempSync(join(tmpdir(), 'smsgw-csv-')), 'recipients.csv');
    writeFileSync(file, 'to,name\n41790000201,Ann\n+41790000202,Bob\n41790000203,Cy\n');
    let drawn = '';
    const progress = new Writable({
      write: (chunk: Buffer, _enc, done) => ((drawn += chunk.toString()), done()),
    });
    const out = await smsgw(
      [
        'batch',
        'send',
        file,
        '--content',
        'to all',
        '--from',
        'Acme',
        '-u',
        'hank',
        '-p',
        'hank-password',
      ],
      {},
      progress,
    );
    expect(out).toMatch(
      /^batch [0-9a-f-]{36}: 3 messages accepted\nbatch [0-9a-f-]{36} completed: \{"total":3,"queued":0,"sent":3/,
    );
    expect(drawn).toMatch(/3\/3/);
    expect(
      sim
        .messages()
        .filter((m) => m.text === 'to all')
        .map((m) => m.to)
        .sort(),
    ).toEqual(['41790000201', '41790000202', '41790000203']);
    expect(JSON.parse(await smsgw(['balance', '-u', 'hank', '-p', 'hank-password']))).toEqual({
      balance: '7',
      sms_count: 'ND',
    });
  });

  it('sends admin commands to SMSGW_ADMIN_URL when set (auth in distributed mode), the others to SMSGW_URL', async () => {
    const nowhere = 'http://127.0.0.1:9';
    expect(
      JSON.parse(
        await smsgw(['accounts', 'get', 'gina'], { SMSGW_URL: nowhere, SMSGW_ADMIN_URL: gw.base }),
      ),
    ).toMatchObject({ username: 'gina' });
    await expect(
      smsgw(['accounts', 'get', 'gina'], { SMSGW_ADMIN_URL: nowhere }),
    ).rejects.toMatchObject({
      code: 'UNREACHABLE',
      message: expect.stringMatching(/SMSGW_ADMIN_URL/),
    });
    expect(
      await smsgw(['balance', '-u', 'gina', '-p', 'gina-password'], { SMSGW_ADMIN_URL: nowhere }),
    ).toMatch(/balance/);
  });

  it('reports the gateway error code and refuses bad arguments before calling', async () => {
    await expect(smsgw(['accounts', 'get', 'nobody'])).rejects.toThrow(/No account|not found/i);
    await expect(
      smsgw(['accounts', 'create', 'x', '--password', 'long-enough', '--balance', 'ten']),
    ).rejects.toThrow(/decimal/);
    await expect(
      smsgw(['accounts', 'get', 'gina'], { SMSGW_ADMIN_TOKEN: 'wrong-wrong-wrong-wrong' }),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });
});
