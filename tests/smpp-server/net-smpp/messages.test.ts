/**
 * Messages between the gateway and a customer's platform on Perl's Net::SMPP (embedded mode, a
 * simulator with handset receipts as the operator's SMSC): binary and UCS-2 content kept byte for
 * byte, long messages concatenated by UDH, by SAR TLVs or whole in message_payload, the receipt on
 * a receiver session opened after the message was sent, an inbound reply delivered to the
 * customer's session, and the Net::SMPP script of docs/smpp-server.md run as it stands.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@smsgw/kit/testing';
import { stripUdh, type ReceivedSubmit } from '@smsgw/smsc';
import type { SmppPdu } from './esme';
import { startCustomerGateway, type CustomerGateway } from './gateway';

let gateway: CustomerGateway;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const receivedBy = (to: string): ReceivedSubmit[] =>
  gateway.smsc.received.filter((r) => r.to === to);
/** The bytes each part carried to the SMSC without its UDH, in a fixed order to compare. */
const bodies = (parts: ReceivedSubmit[]): string[] =>
  parts.map((p) => stripUdh(p.shortMessage, p.esmClass).body.toString('hex')).sort();
/** The part number in a concatenation UDH (SMPP 3.4 5.3.2 points to GSM 03.40 9.2.3.24.1 / .8). */
function partNumber(part: ReceivedSubmit): number {
  const udh = stripUdh(part.shortMessage, part.esmClass).udh ?? Buffer.alloc(0);
  for (let at = 1; at + 1 < udh.length; at += 2 + udh[at + 1]) {
    if (udh[at] === 0x00) return udh[at + 4];
    if (udh[at] === 0x08) return udh[at + 5];
  }
  throw new Error(`no concatenation UDH in ${part.shortMessage.toString('hex')}`);
}
const receiptOf = (pdu: SmppPdu): string | undefined =>
  pdu.fields.esm_class === 0x04
    ? pdu.tlvs.get(0x001e)?.toString('latin1').replace(/\0$/, '')
    : undefined;
const stateOf = async (id: string): Promise<string> =>
  (await gateway.message('pia', id)).body.data.state as string;

/** Runs a Perl script (never synchronously: the gateway answers it from this process). */
function perl(script: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn('perl', ['-e', script], { timeout: 45_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.on('close', (status) => resolve({ status, stdout, stderr })),
  );
}

beforeAll(async () => {
  gateway = await startCustomerGateway({ deliveryReceipts: true });
  await gateway.account('pia', { password: 'p1apw-sm' });
  // The account and SMPP password docs/smpp-server.md's script binds with.
  await gateway.account('acme', { password: 'Xq7!pz2k' });
  // A ceiling: Net::SMPP may be installed (apt-get) before the gateway starts.
}, 120_000);

afterEach(() => gateway.closeClients());

afterAll(async () => {
  await gateway?.stop();
});

describe('Net::SMPP submit_sm', () => {
  it('sends text, binary and UCS-2 content with its data_coding, byte for byte', async () => {
    const esme = await gateway.bound('transmitter', 'pia', 'p1apw-sm');
    const cases = [
      { to: '41790000501', coding: 0, bytes: Buffer.from('Hello @ $ world', 'latin1') },
      { to: '41790000502', coding: 4, bytes: Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f, 0x0a]) },
      { to: '41790000503', coding: 8, bytes: Buffer.from('00480069d83dde00', 'hex') },
    ];
    for (const c of cases) {
      const { status, id } = await esme.submit({
        source_addr: '4000',
        destination_addr: c.to,
        data_coding: c.coding,
        short_message: c.bytes,
      });
      expect(status).toBe(0);
      expect(id).toMatch(UUID);
      const [got] = await waitFor(
        () => (receivedBy(c.to).length > 0 ? receivedBy(c.to) : undefined),
        20_000,
      );
      expect(got.dataCoding).toBe(c.coding);
      expect(got.shortMessage.equals(c.bytes)).toBe(true);
      expect(got.from).toBe('4000');
    }
  });

  it('passes the parts of a long message concatenated by UDH through, each with its own id', async () => {
    const esme = await gateway.bound('transceiver', 'pia', 'p1apw-sm');
    const parts = [
      Buffer.from('x'.repeat(153), 'latin1'),
      Buffer.from('y'.repeat(153), 'latin1'),
      Buffer.from('z'.repeat(40), 'latin1'),
    ].map((body, i) => Buffer.concat([Buffer.from([0x05, 0x00, 0x03, 0x2b, 3, i + 1]), body]));
    // Net::SMPP's asynchronous mode: all the parts on the wire before the first answer.
    const answers = await Promise.all(
      parts.map((part) =>
        esme.submit({ destination_addr: '41790000504', esm_class: 0x40, short_message: part }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([0, 0, 0]);
    for (const answer of answers) expect(answer.id).toMatch(UUID);
    expect(new Set(answers.map((a) => a.id)).size).toBe(3);
    const sent = await waitFor(
      () => (receivedBy('41790000504').length === 3 ? receivedBy('41790000504') : undefined),
      20_000,
    );
    // UDH and bytes unchanged, with UDHI (docs/smpp-server.md, Submitting).
    expect(sent.every((p) => p.esmClass & 0x40)).toBe(true);
    expect(sent.map((p) => p.shortMessage.toString('hex')).sort()).toEqual(
      parts.map((p) => p.toString('hex')).sort(),
    );
  });

  it('passes the parts of a long message concatenated by SAR TLVs through', async () => {
    const esme = await gateway.bound('transmitter', 'pia', 'p1apw-sm');
    const parts = [Buffer.from('s'.repeat(153), 'latin1'), Buffer.from('t'.repeat(20), 'latin1')];
    const answers = await Promise.all(
      parts.map((body, i) =>
        esme.submit({
          destination_addr: '41790000505',
          short_message: body,
          tlvs: {
            sar_msg_ref_num: Buffer.from([0x01, 0x2c]),
            sar_total_segments: Buffer.from([2]),
            sar_segment_seqnum: Buffer.from([i + 1]),
          },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([0, 0]);
    const sent = await waitFor(
      () => (receivedBy('41790000505').length === 2 ? receivedBy('41790000505') : undefined),
      20_000,
    );
    expect(bodies(sent)).toEqual(parts.map((p) => p.toString('hex')).sort());
    // The SAR TLVs leave as the same TLVs of the outgoing submit_sm.
    for (const part of sent) {
      const tlv = (tag: number) => part.tlvs.find((t) => t.tag === tag)?.value.toString('hex');
      expect([tlv(0x020c), tlv(0x020e)]).toEqual(['012c', '02']);
      expect(part.shortMessage.equals(parts[Number(`0x${tlv(0x020f)}`) - 1])).toBe(true);
    }
  });

  it('sends a long message given whole in message_payload, in parts', async () => {
    const esme = await gateway.bound('transmitter', 'pia', 'p1apw-sm');
    const payload = Buffer.from('p'.repeat(160) + 'q'.repeat(140), 'latin1');
    const { status } = await esme.submit({
      destination_addr: '41790000506',
      short_message: Buffer.alloc(0),
      tlvs: { message_payload: payload },
    });
    expect(status).toBe(0);
    const sent = await waitFor(
      () => (receivedBy('41790000506').length === 2 ? receivedBy('41790000506') : undefined),
      20_000,
    );
    const joined = Buffer.concat(
      [...sent]
        .sort((a, b) => partNumber(a) - partNumber(b))
        .map((p) => stripUdh(p.shortMessage, p.esmClass).body),
    );
    expect(joined.equals(payload)).toBe(true);
  });
});

describe('Net::SMPP deliver_sm', () => {
  it('gets the receipt on a receiver session bound after the message was sent', async () => {
    const tx = await gateway.bound('transmitter', 'pia', 'p1apw-sm');
    const { status, id } = await tx.submit({
      source_addr: '4000',
      destination_addr: '41790000507',
      short_message: Buffer.from('Your code is 5678'),
      registered_delivery: 1,
    });
    expect(status).toBe(0);
    await waitFor(async () => ((await stateOf(id)) === 'delivered' ? true : undefined), 30_000);
    expect(tx.delivered).toEqual([]);

    const rx = await gateway.bound('receiver', 'pia', 'p1apw-sm');
    const receipt = await rx.next((p) => p.command === 'deliver_sm' && receiptOf(p) === id, 30_000);
    expect(receipt.fields).toMatchObject({
      esm_class: 0x04,
      source_addr: '41790000507',
      destination_addr: '4000',
      data_coding: 0,
    });
    // SMPP 3.4 Appendix B, and message_state (0x0427) DELIVERED.
    expect(receipt.shortMessage.toString('latin1')).toMatch(
      new RegExp(`^id:${id} sub:001 dlvrd:001 submit date:\\d{10} done date:\\d{10} stat:DELIVRD `),
    );
    expect(receipt.tlvs.get(0x0427)).toEqual(Buffer.from([2]));
  });

  it('gets a receipt again on its next session when the first deliver_sm went unanswered', async () => {
    const tx = await gateway.bound('transmitter', 'pia', 'p1apw-sm');
    const { id } = await tx.submit({
      destination_addr: '41790000509',
      short_message: Buffer.from('again'),
      registered_delivery: 1,
    });
    await waitFor(async () => ((await stateOf(id)) === 'delivered' ? true : undefined), 30_000);
    // This platform reads the deliver_sm, crashes before answering it, and binds again.
    const crashing = gateway.client({ answerDeliverSm: false });
    expect((await crashing.bind('receiver', 'pia', 'p1apw-sm')).status).toBe(0);
    await crashing.next((p) => receiptOf(p) === id, 30_000);
    crashing.close();
    const again = await gateway.bound('receiver', 'pia', 'p1apw-sm');
    const receipt = await again.next((p) => receiptOf(p) === id, 30_000);
    expect(receipt.fields.esm_class).toBe(0x04);
  });

  it('gets an inbound reply on the customer’s session when its MO route says smpp', async () => {
    const route = await gateway.admin('PUT', '/mo-routes/pia-replies', {
      position: 1,
      to: '4001',
      exact: true,
      account: 'pia',
      smpp: true,
    });
    expect(route.status).toBe(200);
    const rx = await gateway.bound('transceiver', 'pia', 'p1apw-sm');
    let tries = 0;
    // The notifier reloads its MO routes every few seconds: a reply that came before is kept
    // unrouted, so each try is a new reply.
    const reply = await waitFor(async () => {
      tries += 1;
      await gateway.smsc.originate({ from: '41790000508', to: '4001', text: `OK ${tries}` });
      return rx
        .next((p) => p.command === 'deliver_sm' && p.fields.source_addr === '41790000508', 3_000)
        .catch(() => undefined);
    }, 30_000);
    expect(reply.fields).toMatchObject({ esm_class: 0, destination_addr: '4001', data_coding: 0 });
    expect(reply.shortMessage.toString('latin1')).toMatch(/^OK \d+$/);
  });
});

describe('docs/smpp-server.md', () => {
  it('runs the Net::SMPP script as the customer would, receipt included', async () => {
    const doc = readFileSync(join(__dirname, '../../../docs/smpp-server.md'), 'utf8');
    const section = doc.slice(doc.indexOf("### A customer on Perl's Net::SMPP"));
    const script = /```perl\n([\s\S]*?)```/.exec(section)?.[1];
    expect(script).toContain("Net::SMPP->new_transceiver('gateway.example', port => 2775,");
    const run = await perl(
      script!
        .replace("'gateway.example'", "'127.0.0.1'")
        .replace('port => 2775', `port => ${gateway.gw.gateway.smppPort}`),
    );
    expect(run.stderr).toBe('');
    const id = /^message id (\S+)$/m.exec(run.stdout)?.[1];
    expect(id).toMatch(UUID);
    expect(run.stdout).toMatch(
      new RegExp(
        `^receipt: id:${id} sub:001 dlvrd:001 .* stat:DELIVRD err:\\d{3} text:Hello$`,
        'm',
      ),
    );
    expect(run.status).toBe(0);
  }, 60_000);
});
