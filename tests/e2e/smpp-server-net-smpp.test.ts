/**
 * Customers on Perl's Net::SMPP (tests/smpp-server/net-smpp) bound to an smpp-server replica in
 * distributed mode when it is SIGKILLed: one platform on a transceiver, another on a transmitter
 * and a receiver. They bind again, to the replica that lives; every message they were answered
 * for reaches the SMSC once, nothing reaches it twice, and every receipt comes once, on the new
 * sessions.
 */
import { freePort, waitFor, type ServiceProcess } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { E2E_ADMIN_TOKEN, E2E_JWT_SECRET, useDistributedRun } from '../support/distributed';
import { NetSmppEsme, type BindKind, type SmppPdu } from '../smpp-server/net-smpp/esme';

const run = useDistributedRun();
const open: NetSmppEsme[] = [];
let smsc: SmppSimulator;
let auth: ServiceProcess;

async function admin(method: string, path: string, json: unknown): Promise<number> {
  const reply = await fetch(`${auth.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(json),
  });
  return reply.status;
}

async function smppServer(): Promise<{ process: ServiceProcess; smppPort: number }> {
  const smppPort = await freePort();
  const process = await run.start('smpp-server', {
    AUTH_URL: auth.url,
    SMPP_SERVER_PORT: String(smppPort),
    SMPP_SERVER_TLS_PORT: String(await freePort()),
  });
  return { process, smppPort };
}

async function bound(port: number, kind: BindKind, systemId: string): Promise<NetSmppEsme> {
  const esme = NetSmppEsme.create({ port });
  open.push(esme);
  expect((await esme.bind(kind, systemId, `${systemId.slice(0, 4)}pw`)).status).toBe(0);
  return esme;
}

const receiptOf = (pdu: SmppPdu): string | undefined =>
  pdu.fields.esm_class === 0x04
    ? pdu.tlvs.get(0x001e)?.toString('latin1').replace(/\0$/, '')
    : undefined;

/** A platform's messages: those answered with an id (id -> destination, '' when unknown). */
interface Platform {
  sender: NetSmppEsme;
  receiver: NetSmppEsme;
  accepted: Map<string, string>;
}

beforeAll(async () => {
  smsc = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    systemId: 'smsgw',
    password: 'secret',
    deliveryReceipts: true,
    // Receipts come after the replica is killed, so none is out on its sessions when it dies.
    receiptDelayMs: 4_000,
  });
  run.simulators.push(smsc);
  const { port } = await smsc.start();
  auth = await run.start('auth', { ADMIN_TOKEN: E2E_ADMIN_TOKEN, JWT_SECRET: E2E_JWT_SECRET });
  for (const username of ['perlco', 'perlpair']) {
    expect(
      await admin('POST', '/accounts', { username, password: `${username}-pw`, balance: null }),
    ).toBe(201);
    expect(
      await admin('PUT', `/accounts/${username}/smpp`, {
        password: `${username.slice(0, 4)}pw`,
        max_sessions: 4,
      }),
    ).toBe(200);
  }
  await Promise.all([
    run.start('dispatcher', { SMSC_URL: `smpp://smsgw:secret@127.0.0.1:${port}?window=10` }),
    run.start('callback-notifier'),
    run.start('batch-scheduler'),
  ]);
}, 180_000);

afterAll(() => {
  for (const esme of open.splice(0)) esme.close();
});

describe('Net::SMPP customers when their smpp-server replica is killed', () => {
  it('bind again to the other replica; nothing is lost or sent twice', async () => {
    const [first, second] = await Promise.all([smppServer(), smppServer()]);
    const transceiver = await bound(first.smppPort, 'transceiver', 'perlco');
    const platforms: Platform[] = [
      { sender: transceiver, receiver: transceiver, accepted: new Map() },
      {
        sender: await bound(first.smppPort, 'transmitter', 'perlpair'),
        receiver: await bound(first.smppPort, 'receiver', 'perlpair'),
        accepted: new Map(),
      },
    ];
    const submit = (p: Platform, to: string, text: string) =>
      p.sender.submit({
        source_addr: '4200',
        destination_addr: to,
        short_message: Buffer.from(text),
        registered_delivery: 1,
      });
    await Promise.all(
      platforms.flatMap((p, k) =>
        Array.from({ length: 10 }, async (_, i) => {
          const to = `417900${k}${String(4000 + i)}`;
          const { status, id } = await submit(p, to, `kill ${k} ${i}`);
          expect(status).toBe(0);
          p.accepted.set(id, to);
        }),
      ),
    );
    // More on the wire when the replica dies: each is answered or not, never sent twice.
    const inFlight = platforms.flatMap((p, k) =>
      Array.from({ length: 5 }, (_, i) =>
        submit(p, `417900${k}${String(5000 + i)}`, `in flight ${k} ${i}`).then(
          (answer) => {
            if (answer.status === 0) p.accepted.set(answer.id, '');
          },
          () => undefined,
        ),
      ),
    );
    await first.process.kill();
    await Promise.all(inFlight);
    for (const esme of open) await esme.whenClosed(10_000);

    // Each platform binds again, as it bound before, to the replica that lives.
    const again: Platform[] = [
      { ...platforms[0], receiver: await bound(second.smppPort, 'transceiver', 'perlco') },
      {
        ...platforms[1],
        sender: await bound(second.smppPort, 'transmitter', 'perlpair'),
        receiver: await bound(second.smppPort, 'receiver', 'perlpair'),
      },
    ];
    for (const [k, p] of again.entries()) {
      await waitFor(
        () => {
          const got = new Set(p.receiver.delivered.map(receiptOf));
          return [...p.accepted.keys()].every((id) => got.has(id)) ? true : undefined;
        },
        90_000,
        `a receipt for every message platform ${k} was answered for`,
      );
      // Each receipt once, on the new session, to the platform that sent the message.
      const receipted = [...platforms[k].receiver.delivered, ...p.receiver.delivered]
        .map(receiptOf)
        .filter((id): id is string => id !== undefined);
      expect([...receipted].sort()).toEqual([...p.accepted.keys()].sort());
    }
    // Each accepted message reached the SMSC once; nothing reached it twice.
    const destinations = smsc.received.map((r) => r.to).filter((to) => to.startsWith('417900'));
    expect(new Set(destinations).size).toBe(destinations.length);
    for (const p of platforms)
      for (const to of p.accepted.values()) if (to !== '') expect(destinations).toContain(to);
  }, 240_000);
});
