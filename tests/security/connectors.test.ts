import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { PgDb, UrlGuard, createLogger, type Logger } from '@smsgw/kit';
import {
  createTestDatabase,
  selfSignedCertificate,
  waitFor,
  type TestCertificate,
} from '@smsgw/kit/testing';
import {
  HttpConnector,
  SmppConnector,
  SmppSimulator,
  parseHttpSmscUrl,
  parseSmscUrl,
  splitMessage,
  type SubmitRequest,
} from '@smsgw/smsc';
import { controlAllowed, simulatorControl } from '../../packages/smsc/src/simulator-control';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { request } from '../support/http';

/** A pino logger whose lines are kept, to read what was (and was not) logged. */
function capturingLogger(): { logger: Logger; lines: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger('test', 'info', stream), lines: () => chunks.join('') };
}

const admin = (gw: RunningGateway, method: string, path: string, json?: unknown) =>
  request(gw.base, method, `/admin/v1${path}`, { auth: `Bearer ${ADMIN_TOKEN}`, json });

const message = (content: string): SubmitRequest => {
  const encoded = splitMessage({ content }, { maxParts: 10 });
  return {
    to: '41790000001',
    from: 'Acme',
    dataCoding: encoded.dataCoding,
    parts: encoded.parts,
    registeredDelivery: false,
  };
};

/** A loopback HTTP upstream that records each request as it arrived. */
async function recordingUpstream(answer: (res: import('node:http').ServerResponse) => void) {
  const seen: { url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      answer(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    seen,
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('HTTP connectors', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startEmbedded({});
  });
  afterAll(() => gw?.stop());

  it('refuses at the admin API an upstream at a loopback, private or metadata address, and stores nothing', async () => {
    for (const host of ['127.0.0.1:8080', '10.0.0.5', '169.254.169.254', '[::1]:80', 'localhost']) {
      const reply = await admin(gw, 'POST', '/connectors', {
        name: 'internal',
        url: `http://u:p@${host}/gw`,
      });
      expect([host, reply.status]).toEqual([host, 400]);
      expect(reply.body.detail.message).toMatch(/CONNECTOR_ALLOWED_HOSTS/);
    }
    expect((await admin(gw, 'GET', '/connectors/internal')).status).toBe(404);
  });

  it('refuses at send time an upstream that resolves to a forbidden address, sending nothing', async () => {
    const upstream = await recordingUpstream((res) => res.end('Success "1"'));
    try {
      for (const host of [`127.0.0.1:${upstream.port}`, `localhost:${upstream.port}`]) {
        const connector = new HttpConnector(
          { ...parseHttpSmscUrl(`http://gw:pw@${host}`), name: 'up' },
          createLogger('test', 'silent'),
          new UrlGuard([], 'CONNECTOR_ALLOWED_HOSTS'),
        );
        await expect(connector.submit(message('hello'))).rejects.toMatchObject({
          code: 'ADDRESS_REFUSED',
          unanswered: false,
        });
      }
      expect(upstream.seen).toEqual([]);
    } finally {
      await upstream.close();
    }
  });

  it('sends the credentials in the body and a Basic header, never in the URL', async () => {
    const upstream = await recordingUpstream((res) => res.end('Success "ab12"'));
    try {
      const connector = new HttpConnector(
        {
          ...parseHttpSmscUrl(`http://front:S3cret-pw@127.0.0.1:${upstream.port}/api`),
          name: 'up',
        },
        createLogger('test', 'silent'),
        new UrlGuard(['127.0.0.1'], 'CONNECTOR_ALLOWED_HOSTS'),
      );
      expect((await connector.submit(message('hello'))).smscIds).toHaveLength(1);
      const [sent] = upstream.seen;
      expect(sent.url).toBe('/api/send');
      expect(sent.url).not.toContain('S3cret-pw');
      expect(sent.headers.authorization).toBe(
        `Basic ${Buffer.from('front:S3cret-pw').toString('base64')}`,
      );
      expect(Object.fromEntries(new URLSearchParams(sent.body))).toMatchObject({
        username: 'front',
        password: 'S3cret-pw',
        to: '41790000001',
        content: 'hello',
      });
    } finally {
      await upstream.close();
    }
  });

  it('stops reading an oversized answer and fails the submission', async () => {
    let written = 0;
    const upstream = await recordingUpstream((res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // Bounded: at most 256 chunks (16 MiB), or until the connector hangs up.
      const more = () => {
        while (written < 256 && !res.destroyed) {
          written++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    try {
      const connector = new HttpConnector(
        {
          ...parseHttpSmscUrl(`http://gw:pw@127.0.0.1:${upstream.port}?timeout_ms=20000`),
          name: 'up',
        },
        createLogger('test', 'silent'),
        new UrlGuard(['127.0.0.1'], 'CONNECTOR_ALLOWED_HOSTS'),
      );
      await expect(connector.submit(message('hello'))).rejects.toMatchObject({
        code: 'ANSWER_TOO_LARGE',
      });
      // The connection was dropped long before the upstream could write all it wanted.
      await waitFor(() => (written < 256 ? true : undefined), 5000, 'the upstream stopped');
      expect(written).toBeLessThan(256);
    } finally {
      await upstream.close();
    }
  });
});

describe('insecure transport', () => {
  let dir: string;
  let certificate: TestCertificate;
  let sim: SmppSimulator;
  let port: number;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'insecure-'));
    certificate = selfSignedCertificate(dir);
    sim = new SmppSimulator({
      host: '127.0.0.1',
      port: 0,
      tls: { key: certificate.key, cert: certificate.cert },
      deliveryReceipts: false,
    });
    port = (await sim.start()).port;
  });
  afterAll(async () => {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('warns when a connector with tls_insecure=true starts', async () => {
    const { logger, lines } = capturingLogger();
    const connector = new SmppConnector(
      { ...parseSmscUrl(`smpps://gw:pw@127.0.0.1:${port}?tls_insecure=true`), name: 'lax' },
      logger,
    );
    try {
      await connector.start();
      const warning = lines()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { level: number; msg: string; transport?: string })
        .find((l) => l.level === 40 && /INSECURE/.test(l.msg));
      expect(warning).toMatchObject({ transport: 'tls-unverified' });
    } finally {
      await connector.stop();
    }
  });

  it('warns when a plain HTTP connector to another host starts', async () => {
    const { logger, lines } = capturingLogger();
    await new HttpConnector(
      { ...parseHttpSmscUrl('http://gw:pw@upstream.invalid/gw'), name: 'plain' },
      logger,
      new UrlGuard([]),
    ).start();
    expect(lines()).toMatch(/"level":40.*"transport":"plain".*INSECURE/);
  });

  it('shows the transport of each connector in the admin API', async () => {
    const gw = await startEmbedded({});
    try {
      await admin(gw, 'POST', '/connectors', {
        name: 'lax',
        url: `smpps://gw:pw@127.0.0.1:${port}?tls_insecure=true`,
      });
      const lax = (await admin(gw, 'GET', '/connectors/lax')).body.data;
      expect(lax).toMatchObject({ transport: 'tls-unverified', insecure: true });
      const local = (await admin(gw, 'GET', '/connectors/default')).body.data;
      expect(local).toMatchObject({ transport: 'plain', insecure: false });
    } finally {
      await gw.stop();
    }
  });
});

describe('tls_ca', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startEmbedded({});
  });
  afterAll(() => gw?.stop());

  it('refuses at the admin API a path or a traversal, and stores nothing', async () => {
    for (const ca of [
      '/etc/passwd',
      '../../etc/passwd',
      'certs/../../key.pem',
      '/proc/self/environ',
    ]) {
      const reply = await admin(gw, 'POST', '/connectors', {
        name: 'reader',
        url: `smpps://u:p@127.0.0.1:1?tls_ca=${encodeURIComponent(ca)}`,
      });
      expect([ca, reply.status]).toEqual([ca, 400]);
      expect(reply.body.detail.message).toMatch(/tls_ca/);
    }
    expect((await admin(gw, 'GET', '/connectors/reader')).status).toBe(404);
  });

  it('reads a file only inside SMSC_CA_DIR, not through a link leading out of it', () => {
    const root = mkdtempSync(join(tmpdir(), 'ca-dir-'));
    try {
      const caDir = join(root, 'cas');
      mkdirSync(caDir);
      const certificate = selfSignedCertificate(caDir, 'smsc');
      writeFileSync(join(root, 'secret.pem'), 'not for an admin to read');
      symlinkSync(join(root, 'secret.pem'), join(caDir, 'link.pem'));
      const url = (ca: string) => `smpps://u:p@h?tls_ca=${encodeURIComponent(ca)}`;
      expect(parseSmscUrl(url('smsc-cert.pem'), { caDir }).tls?.ca).toBe(certificate.cert);
      expect(parseSmscUrl(url(certificate.cert)).tls?.ca).toBe(certificate.cert);
      expect(() => parseSmscUrl(url('link.pem'), { caDir })).toThrow(/inside SMSC_CA_DIR/);
      expect(() => parseSmscUrl(url(join(root, 'secret.pem')), { caDir })).toThrow(
        /without a path/,
      );
      expect(() => parseSmscUrl(url('smsc-cert.pem'))).toThrow(/SMSC_CA_DIR is not set/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('connector passwords at rest', () => {
  const PASSWORD = 'Op3rator-Pw!';
  let database: { url: string; drop(): Promise<void> };
  let db: PgDb;
  let sim: SmppSimulator;
  let smscPort: number;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = new PgDb({ connectionString: database.url, max: 2 });
    sim = new SmppSimulator({ systemId: 'opa', password: PASSWORD, deliveryReceipts: false });
    smscPort = (await sim.start()).port;
  });
  afterAll(async () => {
    await sim.stop();
    await db.close();
    await database.drop();
  });

  const stateOf = async (gw: RunningGateway, name: string) =>
    (await admin(gw, 'GET', `/connectors/${name}`)).body.data as { state: string; url: string };

  it('are stored sealed, never shown, and still bind after a restart; a clear row still works and is sealed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sealed-'));
    const env = { DATABASE_URL: database.url };
    let gw = await startEmbedded(env, dataDir);
    try {
      const created = await admin(gw, 'POST', '/connectors', {
        name: 'op-a',
        url: `smpp://opa:${encodeURIComponent(PASSWORD)}@127.0.0.1:${smscPort}`,
      });
      expect(created.status).toBe(201);
      expect(JSON.stringify(created.body)).not.toContain('Op3rator');
      const { rows } = await db.query<{ row: string }>(
        `SELECT row_to_json(c)::text AS row FROM connectors c WHERE name = 'op-a'`,
      );
      expect(rows[0].row).not.toContain('Op3rator');
      expect(rows[0].row).toContain('"password_sealed":"v2:');
      await waitFor(async () => ((await stateOf(gw, 'op-a')).state === 'up' ? true : undefined));

      // A row written in clear before passwords were sealed.
      await db.query(`INSERT INTO connectors (name, url, binds) VALUES ('legacy', $1, 1)`, [
        `smpp://opa:${encodeURIComponent(PASSWORD)}@127.0.0.1:${smscPort}`,
      ]);
      await gw.stop();
      gw = await startEmbedded(env, dataDir);
      for (const name of ['op-a', 'legacy'])
        await waitFor(async () => ((await stateOf(gw, name)).state === 'up' ? true : undefined));
      expect((await stateOf(gw, 'legacy')).url).toBe(`smpp://opa:***@127.0.0.1:${smscPort}`);
      const after = await db.query<{ row: string }>(
        `SELECT row_to_json(c)::text AS row FROM connectors c WHERE name = 'legacy'`,
      );
      expect(after.rows[0].row).not.toContain('Op3rator');
    } finally {
      await gw.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("the simulator's control endpoint", () => {
  it('refuses /received, /reset and /originate without its token, answering /healthz', async () => {
    const sim = new SmppSimulator({ deliveryReceipts: false });
    await sim.start();
    const token = 'sim-control-token-0123456789';
    const server = createServer(simulatorControl(sim, { token }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      for (const [method, path] of [
        ['GET', '/received'],
        ['POST', '/reset'],
        ['POST', '/originate'],
      ]) {
        expect((await fetch(`${base}${path}`, { method })).status).toBe(401);
        const wrong = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}x` },
        });
        expect(wrong.status).toBe(401);
      }
      const right = await fetch(`${base}/received`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(right.status).toBe(200);
    } finally {
      server.close();
      await sim.stop();
    }
  });

  it('answers callers of another machine only with the token', () => {
    expect(controlAllowed('172.18.0.5', undefined, undefined)).toBe(false);
    expect(controlAllowed('::ffff:10.0.0.7', undefined, undefined)).toBe(false);
    expect(controlAllowed('127.0.0.1', undefined, undefined)).toBe(true);
    expect(controlAllowed('::1', undefined, undefined)).toBe(true);
    expect(controlAllowed('172.18.0.5', 'Bearer t0ken-0123456789ab', 't0ken-0123456789ab')).toBe(
      true,
    );
  });
});

/** One SMPP PDU: the 16-byte header, then the body. */
function pdu(commandId: number, sequence: number, body: Buffer): Buffer {
  const header = Buffer.alloc(16);
  header.writeUInt32BE(16 + body.length, 0);
  header.writeUInt32BE(commandId, 4);
  header.writeUInt32BE(0, 8);
  header.writeUInt32BE(sequence, 12);
  return Buffer.concat([header, body]);
}

/** A deliver_sm with esm_class 0x04 (a receipt) and `text` as its short_message. */
function receiptPdu(text: string): Buffer {
  const message = Buffer.from(text, 'latin1');
  const cString = (value: string) => Buffer.from(`${value}\0`, 'latin1');
  return pdu(
    0x00000005,
    1,
    Buffer.concat([
      cString(''), // service_type
      Buffer.from([1, 1]),
      cString('41790000001'),
      Buffer.from([1, 1]),
      cString('Acme'),
      Buffer.from([0x04, 0, 0]), // esm_class, protocol_id, priority_flag
      cString(''), // schedule_delivery_time
      cString(''), // validity_period
      Buffer.from([0, 0, 0, 0, message.length]), // registered_delivery … sm_length
      message,
    ]),
  );
}

describe('a delivery receipt without an id', () => {
  it('is logged without its text', async () => {
    // An SMSC written by hand: it answers the bind and sends a receipt whose text has no id.
    const sockets: Socket[] = [];
    const server = createTcpServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
      let pending = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 16 && pending.length >= pending.readUInt32BE(0)) {
          const length = pending.readUInt32BE(0);
          const commandId = pending.readUInt32BE(4);
          const sequence = pending.readUInt32BE(12);
          pending = pending.subarray(length);
          if (commandId === 0x00000009) {
            socket.write(pdu(0x80000009, sequence, Buffer.from('raw\0')));
            socket.write(
              receiptPdu(
                'sub:001 dlvrd:001 submit date:2501011200 done date:2501011201 stat:DELIVRD err:000 text:Your code is 493817',
              ),
            );
          } else if (commandId === 0x00000015) {
            socket.write(pdu(0x80000015, sequence, Buffer.alloc(0)));
          } else if (commandId === 0x00000006) {
            socket.write(pdu(0x80000006, sequence, Buffer.alloc(0)));
          }
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { logger, lines } = capturingLogger();
    const connector = new SmppConnector(
      {
        ...parseSmscUrl(`smpp://sys:pw@127.0.0.1:${(server.address() as AddressInfo).port}`),
        name: 'raw',
      },
      logger,
    );
    try {
      await connector.start();
      await waitFor(() => (/receipt without an id/.test(lines()) ? true : undefined));
      expect(lines()).not.toContain('493817');
      expect(lines()).toMatch(/"textLength":\d+/);
    } finally {
      await connector.stop();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
