/**
 * The operators' view from the CLI (docs/operators.md § Support questions, answered): `smsgw
 * accounts list`, `messages search`, `messages show` and `batches list` against an embedded
 * gateway, as `pnpm start` wires it, whose messages went through a simulated SMSC with receipts.
 * Tables for people, the gateway's JSON as it is, and every page followed with --all.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { GatewayCallError } from '@smsgw/cli';
import { runSmsgw } from '../support/cli';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

const admin = `Bearer ${ADMIN_TOKEN}`;
let sim: SmppSimulator;
let gw: RunningGateway;

const smsgw = (args: string[], env: Record<string, string> = {}) => runSmsgw(gw.base, args, env);
const call = (method: string, path: string, auth = admin, json?: unknown) =>
  request(gw.base, method, path, { auth, ...(json !== undefined && { json }) });
const ndjson = (out: string) => out.split('\n').map((line) => JSON.parse(line));
/** Where each heading starts in a table's first line, so rows can be read by column. */
const columnsOf = (header: string) =>
  [...header.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ head: m[0], at: m.index }));
const cell = (header: string, row: string, head: string) => {
  const columns = columnsOf(header);
  const i = columns.findIndex((c) => c.head === head);
  return row.slice(columns[i].at, columns[i + 1]?.at ?? row.length).trim();
};

/** The hour before now and the minute after it, as ISO 8601. */
const range = () => ({
  since: new Date(Date.now() - 3_600_000).toISOString(),
  until: new Date(Date.now() + 60_000).toISOString(),
});

const alice = basic('opv-alice', 'alice-password');
const bob = basic('opv-bob', 'bob-password');
const sent: Record<'alice' | 'bob', string[]> = { alice: [], bob: [] };
let batchId = '';

async function send(auth: string, to: string, content: string): Promise<string> {
  const reply = await call('POST', '/secure/send', auth, { to, content, from: 'Acme' });
  expect(reply.status).toBe(200);
  return (reply.body.data as string).slice('Success "'.length);
}

beforeAll(async () => {
  sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    receiptDelayMs: 20,
  });
  const { port } = await sim.start();
  gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}` });
  for (const [username, password] of [
    ['opv-alice', 'alice-password'],
    ['opv-bob', 'bob-password'],
  ])
    expect(
      (
        await call('POST', '/admin/v1/accounts', admin, {
          username,
          password,
          balance: '10',
          rate: '0.5',
        })
      ).status,
    ).toBe(201);
  sent.alice.push(await send(alice, '41790000301', 'first of alice'));
  sent.alice.push(await send(alice, '41790000302', 'second of alice'));
  sent.alice.push(await send(alice, '44790000303', 'third of alice'));
  sent.bob.push(await send(bob, '41790000304', 'only one of bob'));
  const batch = await call('POST', '/secure/sendbatch', alice, {
    messages: [{ to: ['41790000305', '41790000306'], from: 'Acme', content: 'batch of alice' }],
  });
  expect(batch.status).toBe(200);
  batchId = batch.body.data.batchId as string;
  for (const [auth, id] of [
    ...sent.alice.map((id) => [alice, id]),
    ...sent.bob.map((id) => [bob, id]),
  ])
    await waitFor(
      async () =>
        (await call('GET', `/secure/messages/${id}`, auth)).body?.data?.state === 'delivered',
      15_000,
      `${id} delivered`,
    );
  await waitFor(
    async () =>
      (await call('GET', `/secure/batches/${batchId}`, alice)).body?.data?.state === 'completed',
    15_000,
    'the batch completed',
  );
});
afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
});

describe('smsgw accounts list', () => {
  it('shows the accounts as a table in name order, their columns aligned', async () => {
    const [header, ...rows] = (await smsgw(['accounts', 'list', '--search', 'opv-'])).split('\n');
    expect(header).toMatch(/^USERNAME\s+BALANCE\s+SMS COUNT\s+RATE\s+STATE\s+CREATED \(UTC\)$/);
    expect(rows.map((row) => cell(header, row, 'USERNAME'))).toEqual(['opv-alice', 'opv-bob']);
    for (const row of rows) {
      expect(cell(header, row, 'STATE')).toBe('enabled');
      expect(cell(header, row, 'RATE')).toBe('0.5');
      expect(cell(header, row, 'CREATED (UTC)')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    }
  });

  it('--json prints the answer as the gateway gave it', async () => {
    const direct = await call('GET', '/admin/v1/accounts?q=opv-');
    expect(direct.status).toBe(200);
    expect(JSON.parse(await smsgw(['accounts', 'list', '--search', 'opv-', '--json']))).toEqual(
      direct.body,
    );
  });

  it('pages: the first page says the --next that goes on; --all follows it to the end', async () => {
    const first = (await smsgw(['accounts', 'list', '--search', 'opv-', '--limit', '1'])).split(
      '\n',
    );
    expect(first).toHaveLength(3);
    expect(first[2]).toBe('more: --next opv-alice (or --all for every page)');
    const rest = (
      await smsgw(['accounts', 'list', '--search', 'opv-', '--limit', '1', '--next', 'opv-alice'])
    ).split('\n');
    expect(cell(rest[0], rest[1], 'USERNAME')).toBe('opv-bob');
    expect(rest).toHaveLength(2);

    const all = await smsgw([
      'accounts',
      'list',
      '--search',
      'opv-',
      '--limit',
      '1',
      '--all',
      '--json',
    ]);
    expect(ndjson(all).map((a) => a.username)).toEqual(['opv-alice', 'opv-bob']);
    const table = (
      await smsgw(['accounts', 'list', '--search', 'opv-', '--limit', '1', '--all'])
    ).split('\n');
    expect(table.filter((line) => line.startsWith('USERNAME'))).toHaveLength(1);
    expect(table.slice(1).map((row) => cell(table[0], row, 'USERNAME'))).toEqual([
      'opv-alice',
      'opv-bob',
    ]);
  });
});

/**
 * A command's `--json` for opv-alice over a range of its own (without one, each answer says its
 * own now), checked equal to the gateway's answer to the same query.
 */
async function asTheGateway(path: string, command: string[]): Promise<any> {
  const { since, until } = range();
  const direct = await call('GET', `${path}?account=opv-alice&since=${since}&until=${until}`);
  expect(direct.status).toBe(200);
  const out = JSON.parse(
    await smsgw([
      ...command,
      '--account',
      'opv-alice',
      '--since',
      since,
      '--until',
      until,
      '--json',
    ]),
  );
  expect(out).toEqual(direct.body);
  return out;
}

describe('smsgw messages search', () => {
  it("finds an account's messages newest first, with the admin token's JSON as the gateway's", async () => {
    const out = await asTheGateway('/admin/v1/messages', ['messages', 'search']);
    const ids = out.data.messages.map((m: { id: string }) => m.id);
    expect(ids).toHaveLength(5);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(ids).toEqual(expect.arrayContaining(sent.alice));
  });

  it('filters by destination prefix, state, batch and id', async () => {
    const ids = async (...args: string[]) =>
      JSON.parse(
        await smsgw(['messages', 'search', '--account', 'opv-alice', '--json', ...args]),
      ).data.messages.map((m: { id: string }) => m.id);
    expect((await ids('--to', '4479*')).sort()).toEqual([sent.alice[2]]);
    expect(await ids('--to', '+41790000302')).toEqual([sent.alice[1]]);
    expect(await ids('--state', 'failed,unknown')).toEqual([]);
    expect(await ids('--state', 'delivered')).toHaveLength(5);
    expect(await ids('--batch', batchId)).toHaveLength(2);
    expect(await ids('--id', sent.alice[0])).toEqual([sent.alice[0]]);
    expect(
      await ids('--since', '1h', '--until', new Date(Date.now() + 60_000).toISOString()),
    ).toHaveLength(5);
  });

  it('prints a table for people, every page with --all under one header', async () => {
    const lines = (
      await smsgw(['messages', 'search', '--account', 'opv-alice', '--limit', '2', '--all'])
    ).split('\n');
    const [header, ...rows] = lines;
    expect(header).toMatch(
      /^CREATED \(UTC\)\s+ID\s+ACCOUNT\s+TO\s+FROM\s+STATE\s+PARTS\s+COST\s+ERROR\s+CONTENT$/,
    );
    expect(rows).toHaveLength(5);
    const byId = new Map(rows.map((row) => [cell(header, row, 'ID'), row]));
    expect([...byId.keys()]).toEqual(expect.arrayContaining(sent.alice));
    const first = byId.get(sent.alice[0])!;
    expect(cell(header, first, 'ACCOUNT')).toBe('opv-alice');
    expect(cell(header, first, 'TO')).toBe('41790000301');
    expect(cell(header, first, 'STATE')).toBe('delivered');
    expect(cell(header, first, 'COST')).toBe('0.5');
    expect(cell(header, first, 'CONTENT')).toBe('first of alice');

    const all = ndjson(
      await smsgw([
        'messages',
        'search',
        '--account',
        'opv-alice',
        '--limit',
        '2',
        '--all',
        '--json',
      ]),
    );
    expect(all.map((m) => m.id)).toEqual(rows.map((row) => cell(header, row, 'ID')));
  });

  it('says the range it looked in when it finds nothing', async () => {
    const out = await smsgw(['messages', 'search', '--account', 'opv-alice', '--to', '99*']);
    expect(out).toMatch(/^CREATED \(UTC\).*\nno messages from \S+ to \S+$/);
  });

  it('masks the text for a token without messages:content', async () => {
    const token = JSON.parse(
      await smsgw(['admin-tokens', 'create', 'opv-reader', '--scope', 'messages:read']),
    );
    const env = { SMSGW_ADMIN_TOKEN: token.data.token as string };
    const [message] = JSON.parse(
      await smsgw(['messages', 'search', '--id', sent.alice[0], '--json'], env),
    ).data.messages;
    expect(message).toMatchObject({ id: sent.alice[0], content: null, contentMasked: true });
    const [header, row] = (await smsgw(['messages', 'search', '--id', sent.alice[0]], env)).split(
      '\n',
    );
    expect(cell(header, row, 'CONTENT')).toBe('(masked)');
  });

  it("gives a customer its own messages with its credentials, and refuses another's", async () => {
    const own = JSON.parse(
      await smsgw(['messages', 'search', '-u', 'opv-bob', '-p', 'bob-password', '--json']),
    );
    expect(own.data.messages.map((m: { id: string }) => m.id)).toEqual(sent.bob);
    const [header, row] = (
      await smsgw(['messages', 'search', '-u', 'opv-bob', '-p', 'bob-password'])
    ).split('\n');
    expect(header).not.toMatch(/ACCOUNT/);
    expect(cell(header, row, 'ID')).toBe(sent.bob[0]);
    await expect(
      smsgw([
        'messages',
        'search',
        '-u',
        'opv-bob',
        '-p',
        'bob-password',
        '--account',
        'opv-alice',
      ]),
    ).rejects.toThrow(/--account is for the admin token/);
  });
});

describe('smsgw messages show', () => {
  it("prints the message's facts, then one line per event in order", async () => {
    const id = sent.alice[0];
    const lines = (await smsgw(['messages', 'show', id])).split('\n');
    const blank = lines.indexOf('');
    const facts = Object.fromEntries(
      lines
        .slice(0, blank)
        .map((line) => [line.slice(0, line.indexOf('  ')), line.slice(line.indexOf('  ')).trim()]),
    );
    expect(facts).toMatchObject({
      message: id,
      account: 'opv-alice',
      state: 'delivered',
      to: '41790000301',
      from: 'Acme',
      entry: 'rest',
      cost: '0.5',
      content: 'first of alice',
    });
    const [header, ...events] = lines.slice(blank + 1);
    expect(header).toMatch(/^AT \(UTC\)\s+EVENT\s+WHAT HAPPENED$/);
    const kinds = events.map((row) => cell(header, row, 'EVENT'));
    for (const kind of ['accepted', 'submitted', 'receipt']) expect(kinds).toContain(kind);
    expect(kinds.indexOf('accepted')).toBeLessThan(kinds.indexOf('submitted'));
    expect(kinds.indexOf('submitted')).toBeLessThan(kinds.indexOf('receipt'));
    for (const row of events) expect(cell(header, row, 'WHAT HAPPENED')).not.toBe('');

    const direct = await call('GET', `/admin/v1/messages/${id}`);
    expect(JSON.parse(await smsgw(['messages', 'show', id, '--json']))).toEqual(direct.body);
    expect(events).toHaveLength(direct.body.data.events.length);
  });

  it('names an unknown message', async () => {
    const unknown = await smsgw(['messages', 'show', '0190aaaa-0000-7000-8000-000000000000']).catch(
      (e: unknown) => e,
    );
    expect(unknown).toBeInstanceOf(GatewayCallError);
    expect(unknown).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});

describe('smsgw batches list', () => {
  it("lists an account's batches for the operator and for the account", async () => {
    const out = await asTheGateway('/admin/v1/batches', ['batches', 'list']);
    expect(out.data.batches).toEqual([
      expect.objectContaining({ batchId, account: 'opv-alice', state: 'completed', total: 2 }),
    ]);
    const [header, row, ...more] = (
      await smsgw([
        'batches',
        'list',
        '-u',
        'opv-alice',
        '-p',
        'alice-password',
        '--state',
        'completed',
      ])
    ).split('\n');
    expect(header).toMatch(
      /^CREATED \(UTC\)\s+BATCH\s+STATE\s+TOTAL\s+EXPANDED\s+PARTS\s+COST\s+SCHEDULED \(UTC\)\s+COMPLETED \(UTC\)$/,
    );
    expect(more).toEqual([]);
    expect(cell(header, row, 'BATCH')).toBe(batchId);
    expect(cell(header, row, 'STATE')).toBe('completed');
    expect(cell(header, row, 'TOTAL')).toBe('2');
    expect(await smsgw(['batches', 'list', '-u', 'opv-bob', '-p', 'bob-password'])).toMatch(
      /\nno batches from /,
    );
  });
});
