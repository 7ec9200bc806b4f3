import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import type { Server } from 'smpp';
import type { SmppAccount } from '@smsgw/contracts';
import { loggedLines, waitFor } from '@smsgw/kit/testing';
import { useRawShortMessages } from '@smsgw/smsc';
import { MemoryAccountLimits } from '../src/account-limits';
import { EsmeSession, type SessionDeps } from '../src/esme-session';
import { createSmppServerMetrics } from '../src/metrics';

const smpp = useRawShortMessages();

/** A bind_transceiver PDU as a client writes it. */
function bindPdu(): Buffer {
  const body = Buffer.concat([
    Buffer.from('carol\0secret1\0\0', 'latin1'),
    Buffer.from([0x34, 0, 0]),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(16);
  head.writeUInt32BE(16 + body.length, 0);
  head.writeUInt32BE(0x09, 4);
  head.writeUInt32BE(1, 12);
  return Buffer.concat([head, body]);
}

describe('EsmeSession on the bind error path', () => {
  let server: Server;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  beforeAll(() => process.on('unhandledRejection', onUnhandled));
  afterAll(() => {
    process.off('unhandledRejection', onUnhandled);
    server.close();
  });

  it('a place that cannot be freed after the client left is logged, not an unhandled rejection', async () => {
    const { logger, lines } = loggedLines('smpp-server-test', 'warn');
    let release!: (account: SmppAccount) => void;
    let closed = false;
    // The session place is taken, then freeing it fails (Redis gone): what bind() did not catch.
    class FailingLimits extends MemoryAccountLimits {
      override closeSession(): Promise<void> {
        return Promise.reject(new Error('redis away'));
      }
    }
    const deps: SessionDeps = {
      credentials: {
        check: () => new Promise<SmppAccount>((resolve) => (release = resolve)),
      },
      limits: new FailingLimits(),
      acceptance: {
        accept: () => Promise.reject(new Error('not used')),
        status: () => Promise.resolve(undefined),
      },
      cancel: () => Promise.resolve('not_found'),
      metrics: createSmppServerMetrics(new Registry()),
      logger,
      settings: {
        bindTimeoutMs: 10_000,
        idleTimeoutMs: 10_000,
        enquireLinkMs: 5_000,
        window: 10,
        systemId: 'test',
        maxUnsentBytes: 1 << 20,
        stalledOutputMs: 10_000,
      },
      onBound: () => undefined,
      onClosed: () => (closed = true),
    };
    server = smpp.createServer({}, (session) => new EsmeSession(session, deps));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client: Socket = connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve) => client.once('connect', resolve));
    client.write(bindPdu());
    await waitFor(() => (release !== undefined ? true : undefined), 5_000, 'the bind checked');
    // The client leaves while its bind is being checked; the check then succeeds.
    client.destroy();
    await waitFor(() => (closed ? true : undefined), 5_000, 'the session closed');
    release({
      accountId: 'a1',
      username: 'carol',
      maxSessions: 1,
      throughput: null,
      allowedAddresses: [],
      credential: 'c',
    });
    await waitFor(
      () =>
        lines.some((l) => l.includes('freeing an SMPP session place failed')) ? true : undefined,
      5_000,
      'the failure logged',
    );
    expect(unhandled).toEqual([]);
  });
});
