import { createLogger, type Bus, type Db } from '@smsgw/kit';
import { waitFor } from '@smsgw/kit/testing';
import { Registry } from 'prom-client';
import { MemoryBindLeases, type BindLeases } from '../src/connectors/bind-leases';
import { ConnectorLane } from '../src/connectors/connector-lane';
import type { ConnectorSession } from '../src/connectors/connector-session';
import type { ConnectorConfig } from '../src/connectors/open-connector';
import { createDispatcherMetrics } from '../src/metrics';

const config: ConnectorConfig = {
  name: 'op',
  url: 'smpp://u:p@127.0.0.1:2775?window=10',
  binds: 1,
  bindMode: 'transceiver',
  desiredState: 'started',
};

/** A session that binds at once and records whether it was stopped. */
function fakeSession(): ConnectorSession & { stopped: boolean } {
  const session = {
    stopped: false,
    connector: { isUp: () => !session.stopped, window: 10 },
    load: () => ({ inWindow: 0, waiting: 0 }),
    start: () => Promise.resolve(),
    stop: () => {
      session.stopped = true;
      return Promise.resolve();
    },
    sessions: () => (session.stopped ? 0 : 1),
    submitted: () => 0,
    lastError: () => undefined,
  };
  return session as unknown as ConnectorSession & { stopped: boolean };
}

/** The prefetch of each consumer opened, and whether it was cancelled since. */
type Consumed = { prefetch: number; cancelled: boolean }[];

function lane(
  holder: string,
  leases: BindLeases,
  sessions: ReturnType<typeof fakeSession>[],
  connector: ConnectorConfig = config,
  consumed: Consumed = [],
) {
  const bus = {
    consume: (options: { prefetch: number }) => {
      const entry = { prefetch: options.prefetch, cancelled: false };
      consumed.push(entry);
      return Promise.resolve({
        cancel: () => {
          entry.cancelled = true;
          return Promise.resolve();
        },
      });
    },
    publish: () => Promise.resolve(),
  } as unknown as Bus;
  const db = { query: () => Promise.resolve({ rows: [] }) } as unknown as Db;
  return new ConnectorLane(
    connector,
    {
      db,
      bus,
      leases,
      logger: createLogger('lane-test', 'silent'),
      metrics: createDispatcherMetrics(new Registry(), () => []),
      openSession: () => {
        const s = fakeSession();
        sessions.push(s);
        return s;
      },
    },
    {
      holder,
      leaseTtlMs: 400,
      failoverAfterMs: 5000,
      retryDelaysMs: [1000],
      prefetch: { perWindowPlace: 4, typicalGroupJob: 10, minGroupJobs: 8, heldWindow: 3 },
    },
  );
}

const running: ConnectorLane[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((l) => l.close()));
});

describe('ConnectorLane', () => {
  it('opens a session only while it holds one of the binds', async () => {
    const leases = new MemoryBindLeases();
    const sessions: ReturnType<typeof fakeSession>[] = [];
    const first = lane('a', leases, sessions);
    const second = lane('b', leases, sessions);
    running.push(first, second);
    await first.tick();
    await second.tick();
    expect([first.holdsLease, second.holdsLease]).toEqual([true, false]);
    expect(sessions).toHaveLength(1);
    // The holder leaves: the other takes the bind at its next tick.
    await first.close();
    await second.tick();
    expect(second.holdsLease).toBe(true);
    expect(sessions.map((s) => s.stopped)).toEqual([true, false]);
  });

  it('unbinds at once when the lease answers that it is no longer its own', async () => {
    const leases = new MemoryBindLeases();
    const sessions: ReturnType<typeof fakeSession>[] = [];
    const l = lane('a', leases, sessions);
    running.push(l);
    await l.tick();
    jest.spyOn(leases, 'renew').mockResolvedValue(false);
    await l.tick();
    expect(l.holdsLease).toBe(false);
    expect(sessions[0].stopped).toBe(true);
  });

  it('unbinds once the lease could not be renewed for half its life, without waiting for a tick', async () => {
    const leases = new MemoryBindLeases();
    const sessions: ReturnType<typeof fakeSession>[] = [];
    const l = lane('a', leases, sessions);
    running.push(l);
    await l.tick();
    // The store does not answer: renewals fail, and no tick comes meanwhile.
    jest.spyOn(leases, 'renew').mockRejectedValue(new Error('Redis away'));
    await waitFor(() => sessions[0].stopped, 2_000, 'the session unbound');
  });

  it("sizes its prefetch from its connector's window, and from the held window while stopped", async () => {
    const leases = new MemoryBindLeases();
    const sessions: ReturnType<typeof fakeSession>[] = [];
    const consumed: Consumed = [];
    const stopped: ConnectorConfig = { ...config, desiredState: 'stopped' };
    const l = lane('a', leases, sessions, stopped, consumed);
    running.push(l);
    await l.tick();
    // Stopped: no session, and the queues consumed only to hold their jobs.
    expect(sessions).toHaveLength(0);
    expect(consumed.map((c) => c.prefetch)).toEqual([3 * 4, 8]);
    // Started: the session's connector says its window (10), and the consumers follow it.
    await l.tick(config);
    expect(sessions).toHaveLength(1);
    expect(consumed.map((c) => [c.prefetch, c.cancelled])).toEqual([
      [12, true],
      [8, true],
      [40, false],
      [8, false],
    ]);
    const status = l.status();
    expect([status.window_in_use, status.waiting]).toEqual([0, 0]);
  });
});
