/**
 * The SMPP server against clients that mean harm or are broken, in embedded mode, where the SMPP
 * port shares one process with the HTTP API, the dispatcher and the database: no PDU may end
 * more than its own session, a client that never reads its answers is held back and closed,
 * connections that never bind are capped, every request counts against the window, and a change
 * of SMPP access unbinds the sessions it no longer allows (docs/security.md § SMPP customers).
 */
import { connect, type Socket } from 'node:net';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { adminCaller, request } from '../support/http';
import { CMD, cstr, openEsme, type Esme } from './support/esme-client';

const RESP = 0x80000000;
const ESME_ROK = 0;
const ESME_RINVCMDID = 0x03;
const ESME_RMSGQFUL = 0x14;
const WINDOW = 5;
const PENDING_PER_ADDRESS = 5;
const MAX_CONNECTIONS = 40;
const MAX_UNSENT = 64 * 1024;
const MiB = 1024 * 1024;

let smsc: SmppSimulator;
let gw: RunningGateway;
const open: Esme[] = [];
const admin = `Bearer ${ADMIN_TOKEN}`;
const adminCall = adminCaller(() => gw.base, admin);

async function esme(localAddress = '127.0.0.1'): Promise<Esme> {
  const client = await openEsme({ port: gw.gateway.smppPort, localAddress });
  open.push(client);
  return client;
}

async function boundEsme(password = 'fuzzerpw', localAddress = '127.0.0.1'): Promise<Esme> {
  const client = await esme(localAddress);
  const resp = await client.bind('bind_transceiver', 'fuzzer', password);
  expect(resp.status).toBe(ESME_ROK);
  return client;
}

function pdu(commandId: number, body: Buffer, commandLength = 16 + body.length): Buffer {
  const head = Buffer.alloc(16);
  head.writeUInt32BE(commandLength >>> 0, 0);
  head.writeUInt32BE(commandId >>> 0, 4);
  head.writeUInt32BE(0, 8);
  head.writeUInt32BE(7, 12);
  return Buffer.concat([head, body]);
}

/** The session goes on (an enquire_link is answered) or was closed: either, but in time. */
async function answersOrCloses(client: Esme): Promise<'answers' | 'closed'> {
  if (client.closed) return 'closed';
  const answered = client.request(CMD.enquire_link).then(
    () => 'answers' as const,
    () => 'closed' as const,
  );
  return waitFor(
    async () =>
      client.closed ? 'closed' : await Promise.race([answered, Promise.resolve(undefined)]),
    10_000,
    'an answer or a close',
    20,
  );
}

/** The gateway as a whole still works: a new session binds and submits, HTTP answers. */
async function gatewayWorks(): Promise<void> {
  const client = await boundEsme();
  const sent = await client.submit({ to: '41790000001', bytes: Buffer.from('still here') });
  expect(sent.status).toBe(ESME_ROK);
  client.close();
  expect((await request(gw.base, 'GET', '/ping')).status).toBe(200);
}

// A full collection on demand, so that what is measured is what the process holds, not garbage a
// busy machine has not collected yet (the flag is read when a context is made).
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** The old generation's live bytes, after a full collection. */
function retainedHeap(): number {
  collect();
  return getHeapSpaceStatistics()
    .filter((s) => s.space_name === 'old_space' || s.space_name === 'large_object_space')
    .reduce((sum, s) => sum + s.space_used_size, 0);
}

beforeAll(async () => {
  smsc = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  const { port } = await smsc.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    // Long enough for slow binds on a busy machine; the caps below are what is tested.
    SMPP_BIND_TIMEOUT_MS: '20000',
    SMPP_WINDOW: String(WINDOW),
    SMPP_PENDING_PER_ADDRESS: String(PENDING_PER_ADDRESS),
    SMPP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    SMPP_MAX_UNSENT_BYTES: String(MAX_UNSENT),
    SMPP_STALLED_OUTPUT_MS: '1500',
  });
  const created = await adminCall('POST', '/accounts', {
    username: 'fuzzer',
    password: 'fuzzer-http-password',
    balance: '1000',
    rate: '0.01',
  });
  expect(created.status).toBe(201);
  const access = await adminCall('PUT', '/accounts/fuzzer/smpp', {
    password: 'fuzzerpw',
    max_sessions: 50,
  });
  expect(access.status).toBe(200);
}, 60_000);

afterEach(() => {
  for (const client of open.splice(0)) client.close();
});

afterAll(async () => {
  for (const client of open) client.close();
  await gw?.stop();
  await smsc?.stop();
});

describe('one PDU ends at most its own session', () => {
  it.each([
    ['outbind', 0x0000000b],
    ['alert_notification', 0x00000102],
  ])('an unbound %s of 16 bytes is answered generic_nack', async (_name, commandId) => {
    const client = await esme();
    const resp = await client.request(commandId);
    expect(resp.commandId).toBe(CMD.generic_nack);
    expect(resp.status).toBe(ESME_RINVCMDID);
    expect(await answersOrCloses(client)).toBe('answers');
    await gatewayWorks();
  });

  it('answers generic_nack ESME_RINVCMDID to outbind and alert_notification, bound too', async () => {
    const client = await boundEsme();
    for (const commandId of [0x0000000b, 0x00000102]) {
      const resp = await client.request(commandId);
      expect(resp.commandId).toBe(CMD.generic_nack);
      expect(resp.status).toBe(ESME_RINVCMDID);
    }
    expect(await answersOrCloses(client)).toBe('answers');
  });

  // Every command id of SMPP 3.4 and its response, and ids it does not define.
  const commandIds = [
    0x00000001, 0x00000002, 0x00000003, 0x00000004, 0x00000005, 0x00000006, 0x00000007, 0x00000008,
    0x00000009, 0x0000000b, 0x00000015, 0x00000021, 0x00000102, 0x00000103, 0x0000000a, 0x00000000,
    0x7fffffff, 0x00010000,
  ];
  const allIds = [...commandIds, ...commandIds.map((id) => (id | RESP) >>> 0), RESP, 0xffffffff];

  /**
   * What a session does after one PDU: node-smpp refuses one past 16 KiB as it reads it, and
   * unbind is answered and the connection closed (bound or not); anything else is answered, or
   * is a response and is ignored, and the session goes on.
   */
  const expectedOutcome = (commandId: number, bodyLength: number): 'answers' | 'closed' =>
    16 + bodyLength > 16_384 || commandId === CMD.unbind ? 'closed' : 'answers';
  /** Handlers that threw: none may, though each would close only its own session. */
  const pduFailures = async (): Promise<number> => {
    const text = (await request(gw.base, 'GET', '/metrics')).text;
    return Number(/^smsgw_smpp_pdu_failures_total\{[^}]*\} (\d+)$/m.exec(text)?.[1] ?? NaN);
  };

  /** One session of each kind, opened again only once the server closed it: binds are slow. */
  const sessions = { bound: undefined as Esme | undefined, unbound: undefined as Esme | undefined };
  async function session(bound: boolean): Promise<Esme> {
    const kind = bound ? 'bound' : 'unbound';
    const held = sessions[kind];
    if (held && !held.closed) return held;
    sessions[kind] = bound ? await boundEsme() : await esme();
    return sessions[kind];
  }

  it.each([
    ['unbound', false],
    ['bound', true],
  ])(
    'every command id with no body, a truncated or an oversized one, %s',
    async (_kind, bound) => {
      // Past node-smpp's 16 KiB the PDU is refused as it is read, before any session state.
      const bodies = [Buffer.alloc(0), Buffer.from([0x41]), cstr('x'), Buffer.alloc(300, 0xff)];
      if (!bound) bodies.push(Buffer.alloc(20_000, 0x01));
      for (const commandId of allIds) {
        for (const body of bodies) {
          const client = await session(bound);
          client.writeRaw(pdu(commandId, body));
          expect({
            commandId,
            length: body.length,
            outcome: await answersOrCloses(client),
          }).toEqual({
            commandId,
            length: body.length,
            outcome: expectedOutcome(commandId, body.length),
          });
        }
      }
      expect(await pduFailures()).toBe(0);
      await gatewayWorks();
    },
    240_000,
  );

  it('headers that lie about their length close only their session', async () => {
    // Under the header's own 16 octets, or over node-smpp's 16 KiB: the stream is not PDUs.
    for (const commandLength of [0, 1, 4, 8, 15, 16_385, 0x7fffffff, 0xffffffff]) {
      const client = await esme();
      client.writeRaw(pdu(CMD.submit_sm, Buffer.alloc(8, 0x30), commandLength));
      await waitFor(() => (client.closed ? true : undefined), 10_000, `length ${commandLength}`);
    }
    await gatewayWorks();
  });

  it('random PDUs, bound and unbound (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.oneof(fc.constantFrom(...allIds), fc.integer({ min: 0, max: 0xffffffff })),
        fc.uint8Array({ maxLength: 400 }),
        async (bound, commandId, body) => {
          const client = await session(bound);
          client.writeRaw(pdu(commandId, Buffer.from(body)));
          return (await answersOrCloses(client)) === expectedOutcome(commandId, body.length);
        },
      ),
      { numRuns: 100, seed: 38 },
    );
    expect(await pduFailures()).toBe(0);
    await gatewayWorks();
  }, 240_000);
});

describe('a client that does not read its answers', () => {
  it('is no longer read past the bound of unsent answers, and closed when it stays there', async () => {
    const socket: Socket = connect({ host: '127.0.0.1', port: gw.gateway.smppPort });
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    // Never read: a socket without a data listener stays paused.
    socket.on('error', () => undefined);
    let closed = false;
    socket.on('close', () => (closed = true));
    const enquireLinks = Buffer.concat(
      Array.from({ length: 4096 }, (_, i) => {
        const p = pdu(CMD.enquire_link, Buffer.alloc(0));
        p.writeUInt32BE(i + 1, 12);
        return p;
      }),
    );
    const base = retainedHeap();
    let peak = base;
    let written = 0;
    // Up to 9 MiB of enquire_link, each 64 KiB as soon as the last was taken.
    while (!closed && written < 9 * MiB) {
      const flushed = socket.write(enquireLinks);
      written += enquireLinks.length;
      if (!flushed) {
        const drained = await Promise.race([
          new Promise<boolean>((resolve) => socket.once('drain', () => resolve(true))),
          waitFor(() => (closed ? true : undefined), 20_000, 'drain or close').then(() => false),
        ]);
        if (!drained) break;
      }
      peak = Math.max(peak, retainedHeap());
    }
    await waitFor(() => (closed ? true : undefined), 20_000, 'the server closed the session');
    // The server stopped reading: what the client managed to write stayed far below 9 MiB.
    expect(written).toBeLessThan(8 * MiB);
    // Nor does it hold what it read: live memory grew by far less than the megabytes written.
    expect(peak - base).toBeLessThan(4 * MiB);
    await gatewayWorks();
  }, 60_000);
});

describe('connections that never bind', () => {
  it('are capped per address', async () => {
    const held = await Promise.all(
      Array.from({ length: PENDING_PER_ADDRESS }, () => esme('127.0.0.5')),
    );
    const extra = await esme('127.0.0.5');
    await waitFor(() => (extra.closed ? true : undefined), 10_000, 'the extra one closed');
    expect(held.every((c) => !c.closed)).toBe(true);
    // Another address is not held back by this one.
    const other = await esme('127.0.0.6');
    expect(await answersOrCloses(other)).toBe('answers');
    // A bound session is no longer pending: its address may open another.
    const bind = await held[0].bind('bind_transmitter', 'fuzzer', 'fuzzerpw');
    expect(bind.status).toBe(ESME_ROK);
    const next = await esme('127.0.0.5');
    expect(await answersOrCloses(next)).toBe('answers');
  });

  it('are capped in all', async () => {
    const addresses = Array.from({ length: 10 }, (_, i) => `127.0.1.${i + 1}`);
    // One after another, so the server sees them in this order.
    const clients: Esme[] = [];
    for (const address of addresses)
      for (let i = 0; i < PENDING_PER_ADDRESS; i++) clients.push(await esme(address));
    await waitFor(
      () =>
        clients.filter((c) => c.closed).length >= clients.length - MAX_CONNECTIONS
          ? true
          : undefined,
      10_000,
      'the connections past the cap closed',
    );
    // The oldest gave way to the newest: connections that never bind do not keep newcomers out.
    expect(clients.at(-1)?.closed).toBe(false);
    expect(clients[0].closed).toBe(true);
    expect(clients.filter((c) => !c.closed).length).toBeLessThanOrEqual(MAX_CONNECTIONS);
    const metrics = (await request(gw.base, 'GET', '/metrics')).text;
    expect(metrics).toMatch(/smsgw_smpp_connections_refused_total\{reason="gave_way"[^}]*\} [1-9]/);
    // The next tests need places again: closed here, and gone once a new connection is answered.
    for (const c of clients) c.close();
    await waitFor(
      async () => {
        const probe = await esme();
        return (await answersOrCloses(probe)) === 'answers' ? true : undefined;
      },
      10_000,
      'places free again',
      50,
    );
  });
});

describe('the window', () => {
  it('counts every request, query_sm too', async () => {
    const client = await boundEsme();
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        client.request(
          CMD.query_sm,
          Buffer.concat([
            cstr('00000000-0000-4000-8000-000000000000'),
            Buffer.from([1, 1]),
            cstr(''),
          ]),
        ),
      ),
    );
    const full = answers.filter((a) => a.status === ESME_RMSGQFUL).length;
    expect(full).toBeGreaterThan(0);
    // The others were worked on, WINDOW at a time, and answered: an unknown id.
    expect(answers.filter((a) => a.status !== ESME_RMSGQFUL).length).toBeGreaterThanOrEqual(WINDOW);
  });
});

describe('a change of SMPP access', () => {
  it('unbinds the sessions bound with the old password, and keeps the others', async () => {
    await adminCall('PUT', '/accounts/fuzzer/smpp', { password: 'oldpass1' });
    const old = await boundEsme('oldpass1');
    await adminCall('PUT', '/accounts/fuzzer/smpp', { password: 'newpass2' });
    await waitFor(() => (old.closed ? true : undefined), 15_000, 'the old session unbound');
    expect(old.received.some((p) => p.commandId === CMD.unbind)).toBe(true);
    const current = await boundEsme('newpass2');
    // A change that leaves the password as it is keeps its session; the narrower address below
    // is the condition that tells the change was applied.
    const elsewhere = await boundEsme('newpass2', '127.0.0.9');
    expect(
      (await adminCall('PUT', '/accounts/fuzzer/smpp', { allowed_addresses: ['127.0.0.9'] }))
        .status,
    ).toBe(200);
    await waitFor(() => (current.closed ? true : undefined), 15_000, 'the refused address unbound');
    expect(await answersOrCloses(elsewhere)).toBe('answers');
    await adminCall('PUT', '/accounts/fuzzer/smpp', {
      password: 'fuzzerpw',
      allowed_addresses: [],
    });
  });
});
