/**
 * The smpp-server in distributed mode: its own processes, binds checked by auth over HTTP, session
 * places and throughput in Redis, messages through the dispatcher to an SMSC and receipts back
 * through the callback-notifier's smpp_deliveries. Then a replica is SIGKILLed while a customer is
 * bound to it: the customer binds to the other replica, every message it was answered for reaches
 * the SMSC once, and its receipt arrives once, on the new session. The same with customers on
 * Perl's Net::SMPP (tests/smpp-server/net-smpp), one on a transceiver, another on a transmitter and
 * a receiver.
 */
import { freePort, waitFor, type ServiceProcess } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { E2E_ADMIN_TOKEN, E2E_JWT_SECRET, useDistributedRun } from '../support/distributed';
import { openEsme, type Delivered, type Esme } from '../smpp-server/support/esme-client';
import { NetSmppEsme, type BindKind, type SmppPdu } from '../smpp-server/net-smpp/esme';

const run = useDistributedRun();
const open: Esme[] = [];
/** Net::SMPP sessions opened by a case. */
const perl: NetSmppEsme[] = [];
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

async function bound(port: number): Promise<Esme> {
  const esme = await openEsme({ port });
  open.push(esme);
  expect((await esme.bind('bind_transceiver', 'smppco', 'smpp0k!!')).status).toBe(0);
  return esme;
}

const receiptOf = (d: Delivered): string | undefined =>
  d.esmClass === 0x04 ? d.tlvs.get(0x001e)?.toString('latin1').replace(/\0$/, '') : undefined;

async function boundPerl(port: number, kind: BindKind, systemId: string): Promise<NetSmppEsme> {
  const esme = NetSmppEsme.create({ port });
  perl.push(esme);
  expect((await esme.bind(kind, systemId, `${systemId.slice(0, 4)}pw!!`)).status).toBe(0);
  return esme;
}

const perlReceiptOf = (pdu: SmppPdu): string | undefined =>
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
  expect(
    await admin('POST', '/accounts', {
      username: 'smppco',
      password: 'smppco-password',
      balance: null,
    }),
  ).toBe(201);
  expect(
    await admin('PUT', '/accounts/smppco/smpp', { password: 'smpp0k!!', max_sessions: 4 }),
  ).toBe(200);
  for (const username of ['perlco', 'perlpair']) {
    expect(
      await admin('POST', '/accounts', { username, password: `${username}-pw`, balance: null }),
    ).toBe(201);
    expect(
      await admin('PUT', `/accounts/${username}/smpp`, {
        password: `${username.slice(0, 4)}pw!!`,
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

afterEach(() => {
  for (const esme of open.splice(0)) esme.close();
  for (const esme of perl.splice(0)) esme.close();
});

describe('the smpp-server in distributed mode', () => {
  it('binds through auth, takes a submit_sm with registered_delivery and sends its receipt as deliver_sm', async () => {
    const { smppPort } = await smppServer();
    const refused = await openEsme({ port: smppPort });
    open.push(refused);
    // ESME_RINVPASWD (0x0E): the password check is auth's, over HTTP.
    expect((await refused.bind('bind_transceiver', 'smppco', 'wrong')).status).toBe(0x0e);

    const esme = await bound(smppPort);
    const sent = await esme.submit({
      from: '4100',
      to: '41790001001',
      bytes: Buffer.from('distributed hello'),
      registeredDelivery: 1,
    });
    expect(sent.status).toBe(0);
    const receipt = await waitFor(
      () => esme.delivered.find((d) => receiptOf(d) === sent.id),
      60_000,
      'the receipt as deliver_sm',
    );
    expect(receipt.bytes.toString('latin1')).toMatch(
      new RegExp(`^id:${sent.id} sub:001 dlvrd:001 .* stat:DELIVRD err:\\d{3} text:distributed h`),
    );
    expect(smsc.received.filter((r) => r.to === '41790001001')).toHaveLength(1);
  }, 120_000);

  it('loses nothing and sends nothing twice when the replica a customer is bound to is killed', async () => {
    const [first, second] = await Promise.all([smppServer(), smppServer()]);
    const before = await bound(first.smppPort);
    const accepted = new Map<string, string>(); // message id -> destination
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const to = `4179000${String(2000 + i)}`;
        const { status, id } = await before.submit({
          from: '4100',
          to,
          bytes: Buffer.from(`kill ${i}`),
          registeredDelivery: 1,
        });
        expect(status).toBe(0);
        accepted.set(id, to);
      }),
    );
    // More submits still on the wire when the replica dies: each is answered or not, never
    // sent to the SMSC twice.
    const inFlight = Array.from({ length: 10 }, (_, i) =>
      before
        .submit({
          from: '4100',
          to: `4179000${String(3000 + i)}`,
          bytes: Buffer.from(`in flight ${i}`),
          registeredDelivery: 1,
        })
        .then(
          (answer) => answer,
          () => undefined,
        ),
    );
    await first.process.kill();
    for (const answer of await Promise.all(inFlight))
      if (answer?.status === 0) accepted.set(answer.id, '');
    await waitFor(() => (before.closed ? true : undefined), 10_000, 'the killed session closed');

    // The customer binds again, to the replica that lives.
    const after = await bound(second.smppPort);
    await waitFor(
      () => {
        const got = new Set([...before.delivered, ...after.delivered].map(receiptOf));
        return [...accepted.keys()].every((id) => got.has(id)) ? true : undefined;
      },
      90_000,
      'a receipt for every accepted message',
    );
    // Each accepted message reached the SMSC once; nothing reached it twice.
    const destinations = smsc.received
      .map((r) => r.to)
      .filter((to) => to.startsWith('41790002') || to.startsWith('41790003'));
    expect(new Set(destinations).size).toBe(destinations.length);
    for (const to of accepted.values()) if (to !== '') expect(destinations).toContain(to);
    // Each receipt came once, and those after the kill on the new session.
    const receipted = [...before.delivered, ...after.delivered]
      .map(receiptOf)
      .filter((id): id is string => id !== undefined && accepted.has(id));
    expect(receipted.sort()).toEqual([...accepted.keys()].sort());
    expect(after.delivered.map(receiptOf).filter((id) => id && accepted.has(id)).length).toBe(
      accepted.size,
    );
  }, 240_000);

  it('Net::SMPP platforms bind again to the other replica when theirs is killed; nothing is lost or sent twice', async () => {
    const [first, second] = await Promise.all([smppServer(), smppServer()]);
    const transceiver = await boundPerl(first.smppPort, 'transceiver', 'perlco');
    const platforms: Platform[] = [
      { sender: transceiver, receiver: transceiver, accepted: new Map() },
      {
        sender: await boundPerl(first.smppPort, 'transmitter', 'perlpair'),
        receiver: await boundPerl(first.smppPort, 'receiver', 'perlpair'),
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
          const to = `417901${k}${String(4000 + i)}`;
          const { status, id } = await submit(p, to, `kill ${k} ${i}`);
          expect(status).toBe(0);
          p.accepted.set(id, to);
        }),
      ),
    );
    // More on the wire when the replica dies: each is answered or not, never sent twice.
    const unanswered = platforms.map(() => new Set<string>());
    const inFlight = platforms.flatMap((p, k) =>
      Array.from({ length: 5 }, (_, i) => {
        const to = `417901${k}${String(5000 + i)}`;
        return submit(p, to, `in flight ${k} ${i}`).then(
          (answer) => {
            if (answer.status === 0) p.accepted.set(answer.id, '');
            else unanswered[k]?.add(to);
          },
          () => unanswered[k]?.add(to),
        );
      }),
    );
    await first.process.kill();
    await Promise.all(inFlight);
    for (const esme of perl) await esme.whenClosed(10_000);

    // Each platform binds again, as it bound before, to the replica that lives.
    const again: Platform[] = [
      { ...platforms[0], receiver: await boundPerl(second.smppPort, 'transceiver', 'perlco') },
      {
        ...platforms[1],
        sender: await boundPerl(second.smppPort, 'transmitter', 'perlpair'),
        receiver: await boundPerl(second.smppPort, 'receiver', 'perlpair'),
      },
    ];
    for (const [k, p] of again.entries()) {
      await waitFor(
        () => {
          const got = new Set(p.receiver.delivered.map(perlReceiptOf));
          return [...p.accepted.keys()].every((id) => got.has(id)) ? true : undefined;
        },
        90_000,
        `a receipt for every message platform ${k} was answered for`,
      );
      // Each receipt once, to the platform that sent the message. A message the dying replica
      // had accepted but not answered for has its receipt too, as from any SMSC: the platform
      // never learnt its id, and the receipt names the destination it was sent to.
      const receipts = [...platforms[k].receiver.delivered, ...p.receiver.delivered].flatMap(
        (pdu) => {
          const id = perlReceiptOf(pdu);
          return id === undefined ? [] : [{ id, from: String(pdu.fields.source_addr) }];
        },
      );
      const ids = receipts.map((r) => r.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of p.accepted.keys()) expect(ids).toContain(id);
      for (const r of receipts.filter((r) => !p.accepted.has(r.id)))
        expect(unanswered[k]).toContain(r.from);
    }
    // Each accepted message reached the SMSC once; nothing reached it twice.
    const destinations = smsc.received.map((r) => r.to).filter((to) => to.startsWith('417901'));
    expect(new Set(destinations).size).toBe(destinations.length);
    for (const p of platforms)
      for (const to of p.accepted.values()) if (to !== '') expect(destinations).toContain(to);
  }, 240_000);
});
