/**
 * The SMPP server as a customer's platform on Perl's Net::SMPP meets it (embedded mode, a simulator
 * as the operator's SMSC): binds of each kind, a wrong password, one session too many, the
 * server's enquire_link answered by the client, and submits past the account's throughput
 * answered ESME_RTHROTTLED.
 */
import { waitFor } from '@smsgw/kit/testing';
import { startCustomerGateway, type CustomerGateway } from './gateway';

let gateway: CustomerGateway;
const IDLE_TIMEOUT_MS = 6_000;

beforeAll(async () => {
  gateway = await startCustomerGateway(
    { deliveryReceipts: false },
    // Several enquire_links within a test, and an idle timeout a live session outlasts. The
    // server counts its own work on a request (a bind's password check) as silence, so the idle
    // timeout stays longer than a slow bind on a busy machine.
    { SMPP_ENQUIRE_LINK_MS: '1000', SMPP_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS) },
  );
  await gateway.account('nina', { password: 'n1napw-s', max_sessions: 2 });
  await gateway.account('otto', { password: '0ttopw-s', throughput: 2 });
  // A ceiling: Net::SMPP may be installed (apt-get) before the gateway starts.
}, 120_000);

afterEach(() => gateway.closeClients());

afterAll(async () => {
  await gateway?.stop();
});

const sessionsOf = async (systemId: string): Promise<number> =>
  ((await gateway.admin('GET', '/smpp/sessions')).body.data as { system_id: string }[]).filter(
    (s) => s.system_id === systemId,
  ).length;

describe('Net::SMPP binds', () => {
  it('binds as transmitter, receiver and transceiver, and unbinds', async () => {
    for (const kind of ['transmitter', 'receiver', 'transceiver'] as const) {
      const esme = gateway.client();
      const resp = await esme.bind(kind, 'nina', 'n1napw-s');
      expect(resp.command).toBe(`bind_${kind}_resp`);
      expect(resp.status).toBe(0);
      expect((await esme.enquireLink()).status).toBe(0);
      const unbound = await esme.unbind();
      expect([unbound.command, unbound.status]).toEqual(['unbind_resp', 0]);
      await esme.whenClosed(10_000);
    }
  });

  it('is refused ESME_RINVPASWD with a wrong password or the HTTP one, and binds after with the right one', async () => {
    const esme = gateway.client();
    expect((await esme.bind('transceiver', 'nina', 'wrong')).status).toBe(0x0e);
    expect((await esme.bind('transceiver', 'nina', 'nina-http-password')).status).toBe(0x0e);
    expect((await esme.bind('transceiver', 'nobody', 'n1napw-s')).status).toBe(0x0e);
    expect((await esme.bind('transceiver', 'nina', 'n1napw-s')).status).toBe(0);
  });

  it('is refused ESME_RBINDFAIL for a session beyond the account’s limit, until one unbinds', async () => {
    const first = await gateway.bound('transceiver', 'nina', 'n1napw-s');
    await gateway.bound('transmitter', 'nina', 'n1napw-s');
    const third = gateway.client();
    expect((await third.bind('receiver', 'nina', 'n1napw-s')).status).toBe(0x0d);
    expect((await first.unbind()).status).toBe(0);
    // The place is freed when the server sees the connection close.
    await waitFor(async () => ((await sessionsOf('nina')) === 1 ? true : undefined), 10_000);
    expect((await third.bind('receiver', 'nina', 'n1napw-s')).status).toBe(0);
  });

  it('stays bound past the idle timeout, answering the server’s enquire_link', async () => {
    const esme = await gateway.bound('receiver', 'nina', 'n1napw-s');
    const boundAt = Date.now();
    const link = await esme.next(
      (p) => p.command === 'enquire_link' && Date.now() - boundAt > IDLE_TIMEOUT_MS + 1_000,
      30_000,
    );
    expect(link.command).toBe('enquire_link');
    expect(esme.received.filter((p) => p.command === 'enquire_link').length).toBeGreaterThan(2);
    expect(esme.closed).toBe(false);
    expect((await esme.enquireLink()).status).toBe(0);
  });
});

describe('Net::SMPP throughput', () => {
  it("answers ESME_RTHROTTLED past the account's messages per second, across its sessions", async () => {
    const one = await gateway.bound('transceiver', 'otto', '0ttopw-s');
    const two = await gateway.bound('transmitter', 'otto', '0ttopw-s');
    // Net::SMPP's asynchronous mode: all eight on the wire before the first answer.
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? one : two).submit({
          destination_addr: `4179000040${i}`,
          short_message: Buffer.from(`burst ${i}`),
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 0x58).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 0 || s === 0x58)).toBe(true);
    // What was accepted is sent; what was throttled is not.
    const accepted = answers.flatMap((a, i) => (a.status === 0 ? [`4179000040${i}`] : []));
    await waitFor(
      () =>
        accepted.every((to) => gateway.smsc.received.some((r) => r.to === to)) ? true : undefined,
      20_000,
    );
    const throttled = answers.flatMap((a, i) => (a.status === 0x58 ? [`4179000040${i}`] : []));
    expect(gateway.smsc.received.filter((r) => throttled.includes(r.to))).toEqual([]);
  });
});
