import * as smpp from 'smpp';
import type { PDU, Session } from 'smpp';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator, type SmppSimulatorOptions } from '../src';

const running: { stop(): Promise<void> }[] = [];
const clients: Session[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  for (const r of running.splice(0).reverse()) await r.stop();
});

async function simulator(options: SmppSimulatorOptions = {}) {
  const sim = new SmppSimulator(options);
  const address = await sim.start();
  running.push(sim);
  return { sim, ...address };
}

/** A bare node-smpp client, so the simulator is checked on its own. */
async function client(port: number): Promise<Session> {
  const session = smpp.connect({ url: `smpp://127.0.0.1:${port}` });
  clients.push(session);
  session.on('error', () => undefined);
  await new Promise<void>((resolve) => session.on('connect', () => resolve()));
  return session;
}

function call(
  session: Session,
  command: string,
  fields: Record<string, unknown> = {},
): Promise<PDU> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${command}`)), 3000);
    session.send(new smpp.PDU(command, fields), (pdu) => {
      clearTimeout(timer);
      resolve(pdu);
    });
  });
}

const bind = (session: Session, systemId = 'sys', password = 'pw') =>
  call(session, 'bind_transceiver', { system_id: systemId, password, interface_version: 0x34 });

const submit = (session: Session, fields: Record<string, unknown>) =>
  call(session, 'submit_sm', {
    destination_addr: '41790000001',
    source_addr: 'Acme',
    data_coding: 0,
    ...fields,
  });

const udh = (ref: number, total: number, seq: number) =>
  Buffer.from([0x05, 0x00, 0x03, ref, total, seq]);
const ucs2 = (text: string) => Buffer.from(text, 'utf16le').swap16();

describe('SmppSimulator', () => {
  it('listens on loopback and a free port by default', async () => {
    const { host, port } = await simulator();
    expect(host).toBe('127.0.0.1');
    expect(port).toBeGreaterThan(0);
  });

  it('checks credentials when configured and records every bind', async () => {
    const { sim, port } = await simulator({ systemId: 'sys', password: 'pw' });
    const wrong = await client(port);
    expect((await bind(wrong, 'sys', 'nope')).command_status).toBe(0x0e);
    expect((await bind(wrong, 'other', 'pw')).command_status).toBe(0x0e);
    const right = await client(port);
    expect(await bind(right)).toMatchObject({
      command: 'bind_transceiver_resp',
      command_status: 0,
    });
    expect(sim.binds).toEqual([
      { systemId: 'sys', interfaceVersion: 0x34, command: 'bind_transceiver' },
      { systemId: 'other', interfaceVersion: 0x34, command: 'bind_transceiver' },
      { systemId: 'sys', interfaceVersion: 0x34, command: 'bind_transceiver' },
    ]);
    expect(sim.sessionCount).toBe(2);
  });

  it('accepts any bind without configured credentials, and refuses submit_sm before a bind', async () => {
    const { sim, port } = await simulator();
    const session = await client(port);
    expect((await submit(session, { short_message: Buffer.from('x') })).command_status).toBe(0x04);
    expect((await bind(session, 'anyone', 'anything')).command_status).toBe(0);
    expect(sim.received).toHaveLength(0);
  });

  it('records submits byte for byte, answers ids in uppercase hex, and answers enquire_link and unbind', async () => {
    const { sim, port } = await simulator();
    const session = await client(port);
    await bind(session);
    const answer = await submit(session, {
      short_message: Buffer.from([0x48, 0x00, 0x02]),
      registered_delivery: 1,
    });
    expect(answer.command_status).toBe(0);
    expect(answer['message_id']).toMatch(/^[0-9A-F]+$/);
    expect(sim.received[0]).toMatchObject({
      messageId: answer['message_id'],
      smscId: BigInt(`0x${String(answer['message_id'])}`).toString(),
      to: '41790000001',
      from: 'Acme',
      dataCoding: 0,
      esmClass: 0,
      registeredDelivery: 1,
    });
    expect([...sim.received[0].shortMessage]).toEqual([0x48, 0x00, 0x02]);
    expect(sim.received[0].receivedAt).toBeInstanceOf(Date);
    expect(sim.messages()).toEqual([
      {
        to: '41790000001',
        from: 'Acme',
        text: 'H@$',
        dataCoding: 0,
        parts: 1,
        smscIds: [sim.received[0].smscId],
      },
    ]);
    expect((await call(session, 'enquire_link')).command).toBe('enquire_link_resp');
    expect((await call(session, 'unbind')).command).toBe('unbind_resp');
    expect(sim.unbinds).toBe(1);
    await waitFor(() => sim.sessionCount === 0, 2000, 'the session to close after unbind');
  });

  it('keeps only the most recent records when told to, as the embedded one is', async () => {
    const { sim, port } = await simulator({ keepRecords: 3, deliveryReceipts: true });
    const session = await client(port);
    session.on('deliver_sm', (pdu: PDU) => session.send(pdu.response()));
    await bind(session);
    for (let i = 0; i < 10; i++)
      await submit(session, {
        destination_addr: `4179000000${i}`,
        short_message: Buffer.from(`m${i}`),
        registered_delivery: 1,
      });
    await waitFor(() => (sim.receipts.some((r) => r.to === '41790000009') ? true : undefined));
    // At most twice as many as kept (they are dropped in one go), the newest last.
    expect(sim.received.length).toBeGreaterThanOrEqual(3);
    expect(sim.received.length).toBeLessThan(6);
    expect(sim.received.at(-1)?.to).toBe('41790000009');
    expect(sim.received.map((r) => r.to)).not.toContain('41790000000');
    expect(sim.receipts.length).toBeLessThan(6);
  });

  it('reassembles concatenated parts by reference, in any order, and leaves incomplete ones out', async () => {
    const { sim, port } = await simulator();
    const session = await client(port);
    await bind(session);
    const part = (ref: number, total: number, seq: number, body: Buffer, to = '41790000001') =>
      submit(session, {
        destination_addr: to,
        esm_class: 0x40,
        data_coding: 8,
        short_message: Buffer.concat([udh(ref, total, seq), body]),
      });
    await part(7, 2, 2, ucs2('мир'));
    await part(8, 2, 1, ucs2('other '), '41790000002');
    await part(7, 2, 1, ucs2('Привет, '));
    await part(8, 2, 2, ucs2('one'), '41790000002');
    await part(9, 3, 1, ucs2('never '));
    // 16-bit reference (IEI 0x08) and GSM bytes.
    for (const [seq, body] of [
      [1, [0x40, 0x00]],
      [2, [0x02, 0x24]],
    ] as const) {
      await submit(session, {
        esm_class: 0x40,
        short_message: Buffer.concat([
          Buffer.from([0x06, 0x08, 0x04, 0x12, 0x34, 0x02, seq]),
          Buffer.from(body),
        ]),
      });
    }
    const ids = sim.received.map((r) => r.smscId);
    expect(sim.messages()).toEqual([
      {
        to: '41790000001',
        from: 'Acme',
        text: 'Привет, мир',
        dataCoding: 8,
        parts: 2,
        smscIds: [ids[2], ids[0]],
      },
      {
        to: '41790000002',
        from: 'Acme',
        text: 'other one',
        dataCoding: 8,
        parts: 2,
        smscIds: [ids[1], ids[3]],
      },
      {
        to: '41790000001',
        from: 'Acme',
        text: '¡@$¤',
        dataCoding: 0,
        parts: 2,
        smscIds: [ids[5], ids[6]],
      },
    ]);
  });

  it('answers throttling, failures and rejected destinations as configured, deterministically', async () => {
    const draws = [0.1, 0.9, 0.1, 0.9, 0.9];
    const { sim, port } = await simulator({
      throttleRate: 0.5,
      failureRate: 0.5,
      rejectDestinations: /^999/,
      random: () => draws.shift() ?? 0.9,
    });
    const session = await client(port);
    await bind(session);
    const statuses: number[] = [];
    for (const to of ['999', '1', '2', '3'])
      statuses.push(
        (await submit(session, { destination_addr: to, short_message: Buffer.from('x') }))
          .command_status,
      );
    expect(statuses).toEqual([0x0b, 0x58, 0x08, 0]);
    expect(sim.received.map((r) => r.to)).toEqual(['3']);
  });

  it('delays answers by latencyMs and tracks the most submits held at once', async () => {
    const { sim, port } = await simulator({ latencyMs: [100, 200], random: () => 0.5 });
    const session = await client(port);
    await bind(session);
    const started = Date.now();
    await Promise.all([1, 2, 3].map(() => submit(session, { short_message: Buffer.from('x') })));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(sim.maxOutstanding).toBe(3);
  });

  it('sends a receipt with the id in decimal for the hex id it answered, only when asked', async () => {
    const { port } = await simulator({
      deliveryReceipts: true,
      receiptDelayMs: 10,
      receiptStat: 'UNDELIV',
    });
    const session = await client(port);
    const receipts: PDU[] = [];
    session.on('deliver_sm', (pdu: PDU) => {
      receipts.push(pdu);
      session.send(pdu.response());
    });
    await bind(session);
    await submit(session, { short_message: Buffer.from('no receipt') });
    const answer = await submit(session, {
      short_message: Buffer.from([0x48, 0x69]),
      registered_delivery: 1,
    });
    const decimal = BigInt(`0x${String(answer['message_id'])}`).toString();
    // The receipt of the second submit: one for the first, which did not ask, would come before it.
    await waitFor(
      () =>
        receipts.some((r) =>
          (r['short_message'] as Buffer).toString('latin1').startsWith(`id:${decimal} `),
        ),
      3000,
      'the receipt asked for',
    );
    expect(receipts).toHaveLength(1);
    const receipt = receipts[0];
    expect(receipt['esm_class']).toBe(0x04);
    const text = (receipt['short_message'] as Buffer).toString('latin1');
    expect(text).toMatch(
      new RegExp(
        `^id:${decimal} sub:001 dlvrd:000 submit date:\\d{10} done date:\\d{10} stat:UNDELIV err:\\d{3} text:Hi$`,
      ),
    );
    expect(receipt['source_addr']).toBe('41790000001');
  });

  const idFormats: [
    string,
    SmppSimulatorOptions['idFormat'],
    RegExp,
    (answered: string) => string,
  ][] = [
    [
      'decimal answers, lower-case hex receipts',
      { response: 'decimal', receipt: 'hex', upperCase: false },
      /^\d+$/,
      (a) => BigInt(a).toString(16),
    ],
    [
      'hex both ways with leading zeros',
      { response: 'hex', receipt: 'hex', leadingZeros: 3 },
      /^000[0-9A-F]+$/,
      (a) => a,
    ],
    [
      'decimal both ways with leading zeros',
      { response: 'decimal', receipt: 'decimal', leadingZeros: 2 },
      /^00\d+$/,
      (a) => a,
    ],
  ];
  it.each(idFormats)('writes ids as asked: %s', async (_name, idFormat, answeredAs, inReceipt) => {
    const { sim, port } = await simulator({ deliveryReceipts: true, idFormat });
    const session = await client(port);
    const texts: string[] = [];
    session.on('deliver_sm', (pdu: PDU) => {
      texts.push((pdu['short_message'] as Buffer).toString('latin1'));
      session.send(pdu.response());
    });
    await bind(session);
    const answer = String(
      (await submit(session, { short_message: Buffer.from('x'), registered_delivery: 1 }))[
        'message_id'
      ],
    );
    await waitFor(() => texts.length === 1, 3000, 'the receipt');
    expect(answer).toMatch(answeredAs);
    expect(texts[0]).toMatch(new RegExp(`^id:${inReceipt(answer)} `));
    expect(sim.receipts).toEqual([
      expect.objectContaining({
        receiptId: inReceipt(answer),
        smscId: sim.received[0].smscId,
        onSubmittingSession: true,
      }),
    ]);
  });

  it('sends a receipt on another bound session of the same system_id when asked, never to a transmitter or another account', async () => {
    const { sim, port } = await simulator({ deliveryReceipts: true, receiptSession: 'other' });
    const sessions = {
      submitter: await client(port),
      receiver: await client(port),
      transmitter: await client(port),
      otherAccount: await client(port),
    };
    const got = { submitter: 0, receiver: 0, transmitter: 0, otherAccount: 0 };
    for (const [name, session] of Object.entries(sessions)) {
      session.on('deliver_sm', (pdu: PDU) => {
        got[name as keyof typeof got]++;
        session.send(pdu.response());
      });
    }
    const as = (systemId: string) => ({
      system_id: systemId,
      password: 'pw',
      interface_version: 0x34,
    });
    await call(sessions.submitter, 'bind_transceiver', as('sys'));
    await call(sessions.receiver, 'bind_receiver', as('sys'));
    await call(sessions.transmitter, 'bind_transmitter', as('sys'));
    await call(sessions.otherAccount, 'bind_transceiver', as('another'));
    for (let i = 0; i < 3; i++)
      await submit(sessions.submitter, { short_message: Buffer.from('x'), registered_delivery: 1 });
    await waitFor(() => got.receiver === 3, 3000, 'three receipts on the receiver');
    expect(got).toEqual({ submitter: 0, receiver: 3, transmitter: 0, otherAccount: 0 });
    expect(sim.receipts.map((r) => r.onSubmittingSession)).toEqual([false, false, false]);
  });

  it('sends the receipt before the submit_sm_resp when asked', async () => {
    const { port } = await simulator({
      deliveryReceipts: true,
      receiptBeforeResponse: true,
      latencyMs: 30,
    });
    const session = await client(port);
    const order: string[] = [];
    session.on('deliver_sm', (pdu: PDU) => {
      order.push('receipt');
      session.send(pdu.response());
    });
    await bind(session);
    await submit(session, { short_message: Buffer.from('x'), registered_delivery: 1 }).then(() =>
      order.push('response'),
    );
    expect(order).toEqual(['receipt', 'response']);
  });

  it('falls back to the submitting session when no other session can take the receipt', async () => {
    const { sim, port } = await simulator({ deliveryReceipts: true, receiptSession: 'other' });
    const session = await client(port);
    let got = 0;
    session.on('deliver_sm', (pdu: PDU) => {
      got++;
      session.send(pdu.response());
    });
    await bind(session);
    await submit(session, { short_message: Buffer.from('x'), registered_delivery: 1 });
    await waitFor(() => got === 1, 3000, 'the receipt');
    expect(sim.receipts).toEqual([expect.objectContaining({ onSubmittingSession: true })]);
  });

  it('draws undelivered receipts at undeliverableRate', async () => {
    const draws = [0.1, 0.9];
    const { port } = await simulator({
      deliveryReceipts: true,
      undeliverableRate: 0.5,
      random: () => draws.shift() ?? 0.9,
    });
    const session = await client(port);
    const stats: string[] = [];
    session.on('deliver_sm', (pdu: PDU) => {
      stats.push(/stat:(\w+)/.exec((pdu['short_message'] as Buffer).toString('latin1'))![1]);
      session.send(pdu.response());
    });
    await bind(session);
    await submit(session, { short_message: Buffer.from('a'), registered_delivery: 1 });
    await waitFor(() => stats.length === 1, 3000, 'the first receipt');
    await submit(session, { short_message: Buffer.from('b'), registered_delivery: 1 });
    await waitFor(() => stats.length === 2, 3000, 'the second receipt');
    expect(stats).toEqual(['UNDELIV', 'DELIVRD']);
  });

  it('waitFor is bounded, reset forgets what arrived, stop closes sessions', async () => {
    const { sim, port } = await simulator();
    const session = await client(port);
    await bind(session);
    await expect(sim.waitFor(1, 50)).rejects.toThrow(/received 0 of 1/);
    await submit(session, { short_message: Buffer.from('x') });
    await sim.waitFor(1, 1000);
    sim.reset();
    expect(sim.received).toHaveLength(0);
    expect(sim.messages()).toEqual([]);
    expect(sim.binds).toHaveLength(0);
    const closed = new Promise<void>((resolve) => session.on('close', () => resolve()));
    await sim.stop();
    await closed;
    expect(sim.sessionCount).toBe(0);
  });
});
