import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@smsgw/kit';
import {
  selfSignedCertificate,
  waitFor,
  type TestCertificate,
  loggedLines,
} from '@smsgw/kit/testing';
import { SmppConnector, SmppSimulator, parseSmscUrl, type DeliveryReceipt } from '@smsgw/smsc';

const logger = createLogger('smpps-test', 'silent');

let dir: string;
let sim: SmppSimulator;
let port: number;
const running: SmppConnector[] = [];

let trusted: TestCertificate;
let stranger: TestCertificate;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'smpps-'));
  trusted = selfSignedCertificate(dir, 'smsc');
  stranger = selfSignedCertificate(dir, 'other');
  sim = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    tls: { key: trusted.key, cert: trusted.cert },
    deliveryReceipts: true,
    receiptDelayMs: 10,
  });
  port = (await sim.start()).port;
});

afterAll(async () => {
  await Promise.all(running.map((c) => c.stop()));
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

function connector(query: string, log = logger): SmppConnector {
  const c = new SmppConnector(
    { ...parseSmscUrl(`smpps://gw:pw@127.0.0.1:${port}?${query}`, { caDir: dir }), name: 'tls' },
    log,
  );
  running.push(c);
  return c;
}

describe('smpps:// connectors', () => {
  it('bind over TLS with the certificate checked against tls_ca, submit and get the receipt', async () => {
    // A file name of SMSC_CA_DIR here; the PEM itself in the next test.
    const c = connector('tls_ca=smsc-cert.pem');
    const receipts: DeliveryReceipt[] = [];
    c.onReceipt((r) => void receipts.push(r));
    await c.start();
    expect(c.isUp()).toBe(true);
    const { smscIds } = await c.submit({
      to: '41790000001',
      from: 'TLS',
      dataCoding: 0,
      parts: [Buffer.from('over tls')],
      registeredDelivery: true,
    });
    expect(sim.received.map((r) => r.to)).toEqual(['41790000001']);
    await waitFor(() => (receipts.length > 0 ? true : undefined), 10_000, 'receipt');
    expect(receipts[0].smscId).toBe(smscIds[0]);
  });

  it('does not bind to an SMSC whose certificate the CA it trusts did not sign', async () => {
    const { logger: watched, lines } = loggedLines('smpps-test', 'warn');
    const c = connector(
      `tls_ca=${encodeURIComponent(stranger.cert)}&response_timeout_ms=1000`,
      watched,
    );
    void c.start().catch(() => undefined);
    // Every attempt ends like the first: the certificate check refuses the session.
    await waitFor(
      () => lines.some((l) => l.includes('SMPP session error') && /certificate/i.test(l)),
      10_000,
      'the session refused for its certificate',
    );
    expect(c.isUp()).toBe(false);
    expect(sim.binds.filter((b) => b.systemId === 'gw')).toHaveLength(1);
  });

  it('parses the scheme: port 3550 by default, TLS parameters only with smpps', () => {
    expect(parseSmscUrl('smpps://a:b@host').port).toBe(3550);
    expect(parseSmscUrl('smpps://a:b@host?tls_insecure=true').tls).toEqual({
      rejectUnauthorized: false,
    });
    expect(parseSmscUrl('smpp://a:b@host').tls).toBeUndefined();
    expect(() => parseSmscUrl('smpp://a:b@host?tls_insecure=true')).toThrow(/smpps/);
    expect(() => parseSmscUrl('smpps://a:b@host?tls_ca=no-such.pem', { caDir: dir })).toThrow(
      /not a readable file/,
    );
  });
});
