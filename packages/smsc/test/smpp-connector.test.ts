import type { AddressInfo } from 'node:net';
import * as smpp from 'smpp';
import type { PDU, Server, Session } from 'smpp';
import { createLogger, type Logger } from '@smsgw/kit';
import { waitFor, loggedLines } from '@smsgw/kit/testing';
import {
  MAX_UNANSWERED_DELIVERIES,
  SmppConnector,
  SmppSimulator,
  SmscError,
  parseSmscUrl,
  type DeliveryReceipt,
  type SmppSimulatorOptions,
  type SubmitRequest,
} from '../src';

const logger = createLogger('test', 'silent');
const running: { stop(): Promise<void> }[] = [];

afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function connectorFor(
  port: number,
  query = 'window=10&response_timeout_ms=2000',
  credentials = 'sys:pw',
  extra: { onSessionChange?: (up: boolean) => void; logger?: Logger } = {},
) {
  const { logger: log = logger, ...options } = extra;
  const connector = new SmppConnector(
    {
      ...parseSmscUrl(`smpp://${credentials}@127.0.0.1:${port}?${query}`),
      name: 'test',
      ...options,
    },
    log,
  );
  running.push(connector);
  return connector;
}

async function pair(simOptions: SmppSimulatorOptions = {}, query?: string, credentials?: string) {
  const sim = new SmppSimulator({ systemId: 'sys', password: 'pw', ...simOptions });
  const { port } = await sim.start();
  running.push(sim);
  return { sim, connector: connectorFor(port, query, credentials), port };
}

/** A hand-rolled SMSC for behaviour the simulator does not have. */
async function rawServer(onSession: (session: Session) => void) {
  const server: Server = smpp.createServer({}, (session) => {
    session.on('error', () => undefined);
    onSession(session);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const handle = {
    port,
    server,
    async stop() {
      for (const s of [...server.sessions]) s.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  running.push(handle);
  return handle;
}

function answerBinds(session: Session, statuses: number[] = []): void {
  session.on('bind_transceiver', (pdu: PDU) =>
    session.send(pdu.response({ command_status: statuses.shift() ?? 0, system_id: 'raw' })),
  );
  session.on('unbind', (pdu: PDU) => session.send(pdu.response()));
}

/** Concatenation UDH 05 00 03 ref total seq. */
const udh = (ref: number, total: number, seq: number) =>
  Buffer.from([0x05, 0x00, 0x03, ref, total, seq]);
const ucs2 = (text: string) => Buffer.from(text, 'utf16le').swap16();

const request = (overrides: Partial<SubmitRequest> = {}): SubmitRequest => ({
  to: '41790000001',
  from: 'Acme',
  dataCoding: 0,
  // GSM 03.38 "H@$": @ is 0x00 and $ is 0x02, both mangled by a string round trip through node-smpp.
  parts: [Buffer.from([0x48, 0x00, 0x02])],
  registeredDelivery: false,
  ...overrides,
});

describe('SmppConnector against the simulator', () => {
  it('binds as a 3.4 transceiver and delivers the exact bytes and data_coding', async () => {
    const { sim, connector } = await pair();
    await connector.start();
    expect(connector.isUp()).toBe(true);
    expect(sim.binds).toEqual([
      { systemId: 'sys', interfaceVersion: 0x34, command: 'bind_transceiver' },
    ]);
    const result = await connector.submit(request());
    expect(sim.received).toHaveLength(1);
    expect(sim.received[0]).toMatchObject({
      to: '41790000001',
      from: 'Acme',
      dataCoding: 0,
      esmClass: 0,
      registeredDelivery: 0,
    });
    expect([...sim.received[0].shortMessage]).toEqual([0x48, 0x00, 0x02]);
    // Answered in hex, reported normalised.
    expect(sim.received[0].messageId).toMatch(/^[0-9A-F]*[A-F][0-9A-F]*$/);
    expect(result.smscIds).toEqual([BigInt(`0x${sim.received[0].messageId}`).toString(10)]);
    expect(sim.messages()[0]).toMatchObject({ text: 'H@$', parts: 1 });
  });

  it('sends concatenated UCS-2 parts with esm_class 0x40, UDH and bytes intact', async () => {
    const { sim, connector } = await pair();
    await connector.start();
    const first = ucs2('Привет, ');
    const second = ucs2('мир 👋');
    const result = await connector.submit(
      request({
        dataCoding: 0x08,
        parts: [Buffer.concat([udh(0x2a, 2, 1), first]), Buffer.concat([udh(0x2a, 2, 2), second])],
        registeredDelivery: true,
      }),
    );
    expect(result.smscIds).toHaveLength(2);
    expect(result.smscIds).toEqual(sim.received.map((r) => r.smscId));
    expect(sim.received.map((r) => [r.esmClass, r.dataCoding, r.registeredDelivery])).toEqual([
      [0x40, 8, 1],
      [0x40, 8, 1],
    ]);
    expect(sim.received[0].shortMessage.equals(Buffer.concat([udh(0x2a, 2, 1), first]))).toBe(true);
    expect(sim.received[1].shortMessage.equals(Buffer.concat([udh(0x2a, 2, 2), second]))).toBe(
      true,
    );
    expect(sim.messages()).toEqual([
      expect.objectContaining({
        text: 'Привет, мир 👋',
        parts: 2,
        dataCoding: 8,
        smscIds: result.smscIds,
      }),
    ]);
  });

  it('refuses to start with a wrong password, and does not retry', async () => {
    const { sim, connector } = await pair({}, 'window=1', 'sys:wrong');
    await expect(connector.start()).rejects.toThrow(/ESME_RINVPASWD/);
    expect(connector.isUp()).toBe(false);
    await sleep(400);
    expect(sim.binds).toHaveLength(1);
  });

  it('maps throttling and system errors to transient errors and a bad destination to a permanent one', async () => {
    const { connector } = await pair({ throttleRate: 1, rejectDestinations: /^999/ });
    await connector.start();
    await expect(connector.submit(request())).rejects.toMatchObject({
      name: 'SmscError',
      code: 'ESME_RTHROTTLED',
      permanent: false,
      commandStatus: 0x58,
    });
    await expect(connector.submit(request({ to: '999123' }))).rejects.toMatchObject({
      code: 'ESME_RINVDSTADR',
      permanent: true,
      commandStatus: 0x0b,
    });
    const failing = await pair({ failureRate: 1 });
    await failing.connector.start();
    await expect(failing.connector.submit(request())).rejects.toMatchObject({
      code: 'ESME_RSYSERR',
      permanent: false,
    });
  });

  it('rejects a part that does not fit short_message before sending anything', async () => {
    const { sim, connector } = await pair();
    await connector.start();
    await expect(connector.submit(request({ parts: [Buffer.alloc(255)] }))).rejects.toMatchObject({
      code: 'MESSAGE_TOO_LONG',
      permanent: true,
    });
    await connector.submit(request({ parts: [Buffer.alloc(254, 0x41)] }));
    expect(sim.received.map((r) => r.shortMessage.length)).toEqual([254]);
  });

  it('times out a submit the SMSC does not answer, and frees its window slot', async () => {
    const { connector } = await pair({ latencyMs: 1500 }, 'window=1&response_timeout_ms=200');
    await connector.start();
    const started = Date.now();
    const error = await connector.submit(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SmscError);
    expect(error).toMatchObject({ code: 'TIMEOUT', permanent: false });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(connector.inFlight).toBe(0);
    // The slot is free again: the next submit is written (and times out too) instead of waiting for a slot.
    await expect(connector.submit(request())).rejects.toMatchObject({ code: 'TIMEOUT' });
  });

  it('never has more submit_sm outstanding than its window', async () => {
    const { sim, connector } = await pair(
      { latencyMs: [5, 15] },
      'window=2&response_timeout_ms=5000',
    );
    await connector.start();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => connector.submit(request({ to: `4179000000${i}` }))),
    );
    expect(sim.received).toHaveLength(10);
    expect(sim.maxOutstanding).toBe(2);
  });

  it('runs concurrent multipart submits through a small window without deadlock, even with more parts than the window', async () => {
    const { sim, connector } = await pair(
      { latencyMs: [2, 8] },
      'window=2&response_timeout_ms=3000',
    );
    await connector.start();
    const parts = (ref: number, total: number) =>
      Array.from({ length: total }, (_, i) =>
        Buffer.concat([udh(ref, total, i + 1), Buffer.from([0x41 + i])]),
      );
    const written: number[] = [];
    const third = connector.submit(request({ parts: parts(3, 3) }));
    void third.written.then(() => written.push(sim.received.length));
    const results = await Promise.all([
      connector.submit(request({ parts: parts(1, 2) })),
      connector.submit(request({ parts: parts(2, 2) })),
      third,
      connector.submit(request({ parts: parts(4, 2) })),
    ]);
    expect(results.map((r) => r.smscIds.length)).toEqual([2, 2, 3, 2]);
    expect(sim.received).toHaveLength(9);
    expect(sim.maxOutstanding).toBeLessThanOrEqual(2);
    expect(written).toHaveLength(1);
    expect(
      sim
        .messages()
        .map((m) => m.text)
        .sort(),
    ).toEqual(['AB', 'AB', 'AB', 'ABC']);
  });

  it('tells once every part is written, before any answer', async () => {
    const { sim, connector } = await pair({ latencyMs: 100 });
    await connector.start();
    const calls: boolean[] = [];
    let answered = false;
    const parts = [1, 2, 3].map((seq) => Buffer.concat([udh(9, 3, seq), Buffer.from('abc')]));
    const submission = connector.submit(request({ parts }));
    void submission.written.then(() => calls.push(answered));
    await submission.then(() => (answered = true));
    expect(calls).toEqual([false]);
    expect(sim.received).toHaveLength(3);
  });

  it('answers a receipt only once its listener recorded it, and refuses one it could not record so it comes again', async () => {
    const { sim, connector } = await pair({ deliveryReceipts: true, receiptRetryMs: 20 });
    let refusals = 1;
    const recorded: string[] = [];
    connector.onReceipt(async (receipt) => {
      if (refusals-- > 0) throw new Error('database unavailable');
      await sleep(30);
      recorded.push(receipt.smscId);
    });
    await connector.start();
    const { smscIds } = await connector.submit(request({ registeredDelivery: true }));
    await waitFor(() => recorded.length === 1, 5000, 'the receipt delivered again and recorded');
    expect(recorded).toEqual(smscIds);
    expect(sim.receipts.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it('matches a receipt sent in decimal to the id answered in hex, one receipt per part', async () => {
    const { sim, connector } = await pair({
      deliveryReceipts: true,
      receiptDelayMs: 10,
      receiptStat: (to) => (to.endsWith('9') ? 'UNDELIV' : 'DELIVRD'),
    });
    const receipts: DeliveryReceipt[] = [];
    connector.onReceipt((r) => void receipts.push(r));
    await connector.start();
    const ok = await connector.submit(request({ registeredDelivery: true }));
    const bad = await connector.submit(request({ to: '41790000009', registeredDelivery: true }));
    const long = await connector.submit(
      request({
        registeredDelivery: true,
        parts: [1, 2].map((seq) => Buffer.concat([udh(5, 2, seq), Buffer.from('xy')])),
      }),
    );
    const silent = await connector.submit(request({ registeredDelivery: false }));
    // A last one that asks: a receipt for the one before it would come first.
    const last = await connector.submit(request({ registeredDelivery: true }));
    await waitFor(
      () => receipts.some((r) => r.smscId === last.smscIds[0]),
      5000,
      'the last receipt',
    );
    expect(receipts).toHaveLength(5); // none for the submit that did not ask
    expect(receipts.map((r) => r.smscId)).not.toContain(silent.smscIds[0]);
    const byId = new Map(receipts.map((r) => [r.smscId, r]));
    expect(byId.get(ok.smscIds[0])).toMatchObject({
      state: 'delivered',
      stat: 'DELIVRD',
      err: '000',
      dlvrd: '001',
      text: 'H@$',
    });
    expect(byId.get(bad.smscIds[0])).toMatchObject({ state: 'undelivered', stat: 'UNDELIV' });
    for (const id of long.smscIds) expect(byId.get(id)).toMatchObject({ state: 'delivered' });
    // The trap really was exercised: the raw ids differ.
    expect(sim.received[0].messageId).not.toBe(ok.smscIds[0]);
    expect(byId.get(ok.smscIds[0])!.submitDate).toMatch(/^\d{10}$/);
  });

  it('reports a receipt that arrives on another session of the same account, with the id as submit answered it', async () => {
    const { sim, connector, port } = await pair({
      deliveryReceipts: true,
      receiptSession: 'other',
      idFormat: { response: 'decimal', receipt: 'hex', leadingZeros: 2 },
    });
    const other = connectorFor(port);
    const heard = { submitting: [] as DeliveryReceipt[], other: [] as DeliveryReceipt[] };
    connector.onReceipt((r) => void heard.submitting.push(r));
    other.onReceipt((r) => void heard.other.push(r));
    await Promise.all([connector.start(), other.start()]);
    const result = await connector.submit(request({ registeredDelivery: true }));
    await waitFor(() => heard.other.length === 1, 5000, 'the receipt on the other session');
    expect(heard.other[0]).toMatchObject({ smscId: result.smscIds[0], state: 'delivered' });
    expect(heard.submitting).toEqual([]);
    expect(sim.receipts).toEqual([expect.objectContaining({ onSubmittingSession: false })]);
  });

  it('fails what is in flight when the link drops, then reconnects on the same port', async () => {
    const changes: boolean[] = [];
    const { logger: watched, lines } = loggedLines('test', 'debug');
    const sim = new SmppSimulator({ systemId: 'sys', password: 'pw', latencyMs: 2000 });
    const { port } = await sim.start();
    running.push(sim);
    const connector = connectorFor(port, 'window=5&response_timeout_ms=5000', 'sys:pw', {
      onSessionChange: (up) => changes.push(up),
      logger: watched,
    });
    await connector.start();
    const inFlight = connector.submit(request());
    await sim.waitFor(1, 2000);
    await sim.stop();
    await expect(inFlight).rejects.toMatchObject({ code: 'CONNECTION_LOST', permanent: false });
    expect(connector.isUp()).toBe(false);
    expect(connector.inFlight).toBe(0);
    // Two reconnects refused while the port is closed (each ends a session: the drop was the first).
    await waitFor(
      () => lines.filter((l) => l.includes('SMPP session closed; reconnecting')).length >= 3,
      10_000,
      'two refused reconnects',
    );
    const again = new SmppSimulator({ port, systemId: 'sys', password: 'pw' });
    await again.start();
    running.push(again);
    await waitFor(() => connector.isUp(), 10_000, 'the connector to rebind');
    expect(changes).toEqual([true, false, true]);
    await connector.submit(request());
    expect(again.received).toHaveLength(1);
    expect(again.binds[0]).toMatchObject({ interfaceVersion: 0x34 });
  });

  it('lets a submit waiting for the window through once the session is back', async () => {
    const { sim, connector, port } = await pair({}, 'window=1&response_timeout_ms=5000');
    await connector.start();
    await sim.stop();
    await waitFor(() => !connector.isUp(), 2000, 'the session to drop');
    const waiting = connector.submit(request());
    const again = new SmppSimulator({ port, systemId: 'sys', password: 'pw' });
    await again.start();
    running.push(again);
    await expect(waiting).resolves.toMatchObject({ smscIds: [expect.any(String)] });
  });

  it('waits for outstanding answers on stop, then unbinds, closes and stays down', async () => {
    const { sim, connector } = await pair({ latencyMs: 200 });
    await connector.start();
    const inFlight = connector.submit(request());
    await sim.waitFor(1, 2000);
    await connector.stop();
    await expect(inFlight).resolves.toMatchObject({ smscIds: [expect.any(String)] });
    expect(connector.isUp()).toBe(false);
    expect(sim.unbinds).toBe(1);
    await expect(connector.submit(request())).rejects.toMatchObject({ code: 'STOPPED' });
    await waitFor(() => sim.sessionCount === 0, 2000, 'the session to close');
    await sleep(400);
    expect(sim.binds).toHaveLength(1);
  });
});

describe('SmppConnector against awkward SMSCs', () => {
  it('backs off and binds again when the SMSC still holds an old bind (ESME_RALYBND)', async () => {
    const statuses = [0x05, 0x05];
    const raw = await rawServer((session) => answerBinds(session, statuses));
    const connector = connectorFor(raw.port);
    const started = Date.now();
    await connector.start();
    expect(connector.isUp()).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200); // two backoffs of ≥ 100 ms
  });

  it('prefers the receipt TLVs, answers every deliver_sm, and ignores mobile-originated messages', async () => {
    const answered: number[] = [];
    const raw = await rawServer((session) => {
      answerBinds(session);
      session.on('deliver_sm_resp', (pdu: PDU) => answered.push(pdu.sequence_number));
      session.on('bind_transceiver', () => {
        setTimeout(() => {
          // A mobile-originated message first: answered, not a receipt.
          session.send(
            new smpp.PDU('deliver_sm', {
              sequence_number: 1,
              esm_class: 0,
              source_addr: '4179',
              short_message: Buffer.from('hello'),
            }),
          );
          session.send(
            new smpp.PDU('deliver_sm', {
              sequence_number: 2,
              esm_class: 0x04,
              short_message: Buffer.from(
                'id:12345 sub:001 dlvrd:000 submit date:2501011200 done date:2501011201 stat:DELIVRD err:000 text:hi',
              ),
              receipted_message_id: 'A0000001',
              message_state: 5,
            }),
          );
          // Receipt text in message_payload with an empty short_message.
          session.send(
            new smpp.PDU('deliver_sm', {
              sequence_number: 3,
              esm_class: 0x04,
              message_payload: Buffer.from(
                'id:0000000042 sub:001 dlvrd:001 submit date:2501011200 done date:2501011201 stat:EXPIRED err:000 text:',
              ),
            }),
          );
        }, 20);
      });
    });
    const connector = connectorFor(raw.port, 'window=10&id_format=hex&receipt_id_format=decimal');
    const receipts: DeliveryReceipt[] = [];
    connector.onReceipt((r) => void receipts.push(r));
    await connector.start();
    await waitFor(() => answered.length === 3, 3000, 'three deliver_sm_resp');
    expect(answered.sort()).toEqual([1, 2, 3]);
    expect(receipts).toEqual([
      expect.objectContaining({
        smscId: BigInt('0xA0000001').toString(),
        stat: 'UNDELIV',
        state: 'undelivered',
        submitDate: '2501011200',
        doneDate: '2501011201',
      }),
      expect.objectContaining({ smscId: '42', stat: 'EXPIRED', state: 'expired' }),
    ]);
  });

  it('stops reading a session while too many deliveries wait for their answer, and reads on after', async () => {
    const sent = MAX_UNANSWERED_DELIVERIES + 300;
    const answered: number[] = [];
    const raw = await rawServer((session) => {
      answerBinds(session);
      session.on('deliver_sm_resp', (pdu: PDU) => answered.push(pdu.sequence_number));
      session.on('bind_transceiver', () => {
        setTimeout(() => {
          for (let i = 1; i <= sent; i++)
            session.send(
              new smpp.PDU('deliver_sm', {
                sequence_number: i,
                esm_class: 0x04,
                short_message: Buffer.from(
                  `id:${i} sub:001 dlvrd:001 submit date:2501011200 done date:2501011201 stat:DELIVRD err:000 text:`,
                ),
              }),
            );
        }, 20);
      });
    });
    const connector = connectorFor(raw.port);
    const waiting: (() => void)[] = [];
    connector.onReceipt(() => new Promise<void>((resolve) => waiting.push(resolve)));
    await connector.start();
    await waitFor(() => waiting.length >= MAX_UNANSWERED_DELIVERIES, 5000, 'a full backlog');
    await sleep(300);
    // Read no further: the rest stays in the socket and at the SMSC.
    expect(waiting).toHaveLength(MAX_UNANSWERED_DELIVERIES);
    expect(answered).toHaveLength(0);
    for (const resolve of waiting.splice(0, MAX_UNANSWERED_DELIVERIES / 2 - 1)) resolve();
    await sleep(100);
    expect(waiting).toHaveLength(MAX_UNANSWERED_DELIVERIES / 2 + 1);
    waiting.shift()!();
    await waitFor(() => answered.length + waiting.length === sent, 5000, 'the rest read');
    for (const resolve of waiting.splice(0)) resolve();
    await waitFor(() => answered.length === sent, 5000, 'every deliver_sm answered');
  });

  it('answers enquire_link from the SMSC', async () => {
    let answer: PDU | undefined;
    const raw = await rawServer((session) => {
      answerBinds(session);
      session.on('bind_transceiver', () =>
        setTimeout(
          () => session.send(new smpp.PDU('enquire_link', {}), (pdu) => (answer = pdu)),
          10,
        ),
      );
    });
    const connector = connectorFor(raw.port);
    await connector.start();
    await waitFor(() => answer !== undefined, 2000, 'enquire_link_resp');
    expect(answer).toMatchObject({ command: 'enquire_link_resp', command_status: 0 });
  });

  it('drops and rebinds a session whose SMSC stops answering (half-open link)', async () => {
    let binds = 0;
    const raw = await rawServer((session) => {
      // Answers the bind, then never a word: enquire_link goes unanswered.
      session.on('bind_transceiver', (pdu: PDU) => {
        binds++;
        session.send(pdu.response({ system_id: 'mute' }));
      });
    });
    const changes: boolean[] = [];
    const connector = connectorFor(
      raw.port,
      'enquire_link_ms=1000&response_timeout_ms=200',
      'sys:pw',
      { onSessionChange: (up) => changes.push(up) },
    );
    await connector.start();
    await waitFor(() => binds >= 2, 6000, 'a second bind');
    expect(changes.slice(0, 2)).toEqual([true, false]);
  });

  it('drops a session after a PDU it cannot parse, and reconnects', async () => {
    let sessions = 0;
    const raw = await rawServer((session) => {
      sessions++;
      answerBinds(session);
      if (sessions === 1)
        session.on('bind_transceiver', () =>
          setTimeout(
            () => session.socket.write(Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0])),
            20,
          ),
        );
    });
    const connector = connectorFor(raw.port);
    await connector.start();
    await waitFor(() => sessions >= 2 && connector.isUp(), 5000, 'a new bound session');
  });

  it('retries a bind that is never answered, and stop() ends a start() still waiting', async () => {
    let attempts = 0;
    const raw = await rawServer((session) => session.on('bind_transceiver', () => attempts++));
    const connector = connectorFor(raw.port, 'response_timeout_ms=150');
    const start = connector.start();
    const outcome = start.catch((e: unknown) => e);
    await waitFor(() => attempts >= 2, 5000, 'a second bind attempt');
    await connector.stop();
    expect(await outcome).toMatchObject({ code: 'STOPPED' });
  });

  it('rebinds when the SMSC unbinds', async () => {
    let binds = 0;
    const raw = await rawServer((session) => {
      answerBinds(session);
      session.on('bind_transceiver', () => {
        binds++;
        if (binds === 1) setTimeout(() => session.send(new smpp.PDU('unbind', {})), 20);
      });
    });
    const connector = connectorFor(raw.port);
    await connector.start();
    await waitFor(() => binds === 2 && connector.isUp(), 5000, 'a rebind');
  });
});
