import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNotifierService } from '@smsgw/callback-notifier';
import {
  MemoryBus,
  createLogger,
  createRegistry,
  envVars,
  migrate,
  openDb,
  type Db,
} from '@smsgw/kit';
import { createTestDatabase, waitFor } from '@smsgw/kit/testing';

/**
 * Callbacks against receivers that answer slowly, on a real Postgres: one host's slow answers do
 * not hold back another host's callbacks, and notifiers sharing a database never both send one.
 */

const logger = createLogger('test', 'silent');

/** A receiver that answers every request after `delayMs`, counting requests per message id. */
class SlowReceiver {
  readonly seen = new Map<string, number>();
  inProgress = 0;
  private server: Server | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  base = '';

  constructor(private readonly delayMs: number) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const id = new URL(req.url ?? '/', 'http://receiver').searchParams.get('id') ?? '';
      this.seen.set(id, (this.seen.get(id) ?? 0) + 1);
      this.inProgress++;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.inProgress--;
        res.writeHead(200).end('OK');
      }, this.delayMs);
      this.timers.add(timer);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}

let database: { url: string; drop(): Promise<void> };
let dbs: Db[];
const receivers: SlowReceiver[] = [];
const notifiers: { stop(): Promise<void> }[] = [];

beforeEach(async () => {
  database = await createTestDatabase();
  dbs = [];
  await migrate(await db());
});

afterEach(async () => {
  await Promise.all(notifiers.splice(0).map((n) => n.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
  await Promise.all(dbs.map((db) => db.close()));
  await database.drop();
});

async function db(): Promise<Db> {
  // The first is the test's own; each notifier gets another, as replicas would.
  const opened = await openDb({ databaseUrl: database.url, dataDir: '/nonexistent', logger });
  dbs.push(opened);
  return opened;
}

async function receiver(delayMs: number): Promise<SlowReceiver> {
  const r = new SlowReceiver(delayMs);
  await r.start();
  receivers.push(r);
  return r;
}

async function notifier(on: Db, timeoutMs: number): Promise<void> {
  const n = createNotifierService({
    db: on,
    bus: new MemoryBus(),
    logger,
    registry: createRegistry(`test_${notifiers.length}`),
    allowedHosts: ['127.0.0.1'],
    maxAttempts: 3,
    retryBaseMs: 60_000,
    timeoutMs,
    hostConcurrency: 2,
    pollIntervalMs: 100,
    // The keywords the notifier's config defaults to (OPTOUT_KEYWORDS, OPTIN_KEYWORDS).
    optOutKeywords: {
      optOut: envVars.OPTOUT_KEYWORDS.parse(undefined),
      optIn: envVars.OPTIN_KEYWORDS.parse(undefined),
    },
  });
  await n.start();
  notifiers.push(n);
}

/** Pending callback requests to `base`, one per new message id; answers the ids. */
async function pending(on: Db, base: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  for (const id of ids)
    await on.query(
      `INSERT INTO callback_attempts (message_id, kind, url, method, query, state)
       VALUES ($1, 'callback', $2, 'GET', $3::jsonb, 'pending')`,
      [id, `${base}/cb`, JSON.stringify({ id })],
    );
  return ids;
}

async function done(on: Db, ids: string[]): Promise<number> {
  const { rows } = await on.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM callback_attempts WHERE message_id = ANY($1::uuid[]) AND state = 'done'`,
    [ids],
  );
  return rows[0].n;
}

describe('callbacks to a slow receiver', () => {
  it("do not hold back another host's callbacks", async () => {
    const main = await db();
    // Answers only after 20 s, within the 25 s timeout: its requests stay in flight all test long.
    const slow = await receiver(20_000);
    const fast = await receiver(0);
    await pending(main, slow.base, 40);
    await notifier(main, 25_000);
    await waitFor(() => slow.inProgress >= 2, 10_000);

    const [quick] = await pending(main, fast.base, 1);

    // Generous: far less than the slow receiver's answer.
    await waitFor(() => fast.seen.get(quick) === 1, 10_000);
    expect(slow.inProgress).toBeGreaterThan(0);
  }, 60_000);

  it('are never sent by two notifiers sharing the database', async () => {
    const main = await db();
    // Enough slow answers that a notifier which queued them all behind its two places per host
    // would still be sending when its lease on the last ones ended (24 × 1.5 s / 2 = 18 s, against
    // a lease of 2 × 4 s + 5 s). The timeout is well above one answer: a request that timed out
    // on a busy machine is retried, and a retry is a second send by design, not the fault sought.
    const slow = await receiver(1500);
    const ids = await pending(main, slow.base, 24);
    await notifier(main, 4000);
    await notifier(await db(), 4000);

    await waitFor(async () => (await done(main, ids)) === ids.length, 90_000);

    const twice = [...slow.seen].filter(([, n]) => n > 1).map(([id]) => id);
    expect(twice).toEqual([]);
    expect(ids.every((id) => slow.seen.get(id) === 1)).toBe(true);
  }, 120_000);
});
