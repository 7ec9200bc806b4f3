/**
 * A batch costs the gateway memory for what a batch is, whatever else is sent, however it is
 * encoded and whatever headers it carries, and the early credit check holds for every account:
 * - with an Idempotency-Key the body is read as it arrives, not buffered whole first;
 * - fields a batch cannot have (at the top or in a message) are left out while streaming;
 * - a compressed batch is large (one per account at a time) and limited as it inflates;
 * - a free route kept for one account does not switch the early check off for the others.
 * The gateway runs in this process, so its heap is watched directly, beside the latency of
 * another account's requests.
 */
import { request as httpRequest } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { gzipSync } from 'node:zlib';
import { waitFor } from '@smsgw/kit/testing';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
const MiB = 1024 * 1024;
/** The gateway's limit on a batch's bytes. */
const LIMIT = 32 * MiB;
/**
 * Most the retained heap may grow while a batch is read: bounded by the limit, whatever the body
 * holds. Garbage promoted before a full collection counts too, and a starved process collects
 * late, so the bound is ten times the limit; parsed whole, the junk of these bodies took twenty to
 * forty times its size, so the bound still tells the two apart.
 */
const HEAP_BOUND = 10 * LIMIT;
/**
 * Longest the gateway's event loop may be held while a batch is read. Generous, for a busy
 * machine: the whole body tokenized in one write held it for seconds.
 */
const STALL_BOUND_MS = 2000;
let gw: RunningGateway;

async function account(username: string, balance: string): Promise<string> {
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    ...admin,
    json: { username, password: 'batch-memory-pw', balance, rate: '1' },
  });
  expect(created.status).toBe(201);
  const auth = basic(username, 'batch-memory-pw');
  // Credentials checked once beforehand, so the figures are about the batch, not the KDF.
  expect((await request(gw.base, 'GET', '/secure/balance', { auth })).status).toBe(200);
  return auth;
}

/** One valid message beside `junkBytes` of `{},` where `at` says. */
function junkBatch(junkBytes: number, at: 'top' | 'message'): Buffer {
  const junk = `[${'{},'.repeat(Math.floor(junkBytes / 3))}{}]`;
  const message = '{"to":"41790000001","content":"hello"';
  return Buffer.from(
    at === 'top'
      ? `{"messages":[${message}}],"junk":${junk}}`
      : `{"messages":[${message},"junk":${junk}}]}`,
  );
}

interface Answer {
  status: number;
  text: string;
  /** Whether the answer came before the whole body was written. */
  early: boolean;
}

/**
 * Posts a batch in 64 KiB writes; resolves as soon as the answer is complete. `hold` stops writing
 * after that many bytes, without ending the request, until `release` is called.
 */
function postBatch(
  auth: string,
  body: Buffer,
  headers: Record<string, string> = {},
  hold?: { after: number; release: Promise<void> },
): Promise<Answer> {
  const url = new URL('/secure/sendbatch', gw.base);
  return new Promise((resolve, reject) => {
    let written = false;
    let answered = false;
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          authorization: auth,
          'content-type': 'application/json',
          'content-length': body.length,
          ...headers,
        },
      },
      (res) => {
        answered = true;
        const early = !written;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, early }));
      },
    );
    // A refusal closes the connection while the body is still being written: that is expected.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    let at = 0;
    let held = false;
    const writeMore = (): void => {
      while (at < body.length && !answered) {
        if (hold && !held && at >= hold.after) {
          held = true;
          void hold.release.then(writeMore);
          return;
        }
        const chunk = body.subarray(at, at + 65_536);
        at += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', writeMore);
          return;
        }
      }
      written = at >= body.length;
      req.end();
    };
    writeMore();
  });
}

/**
 * Bytes in the heap's spaces for what lives on (old and large objects): what a request keeps,
 * without the short-lived garbage of the young generation, which any reading makes and drops.
 */
function retainedHeap(): number {
  return getHeapSpaceStatistics()
    .filter(
      (space) => space.space_name === 'old_space' || space.space_name === 'large_object_space',
    )
    .reduce((sum, space) => sum + space.space_used_size, 0);
}

interface Watch {
  /** Most the heap grew over its size when the watch began, in bytes. */
  heapGrowth: number;
  /** Slowest answer to the other account's balance requests, in ms. */
  slowest: number;
  probes: number;
  /** Longest the event loop (the gateway's, as it runs in this process) was held, in ms. */
  stall: number;
}

/**
 * Runs `attack` while sampling this process's heap and asking for another account's balance one
 * request after another (at most 5,000, or until the attack is answered).
 */
async function watch(other: string, attack: () => Promise<Answer>): Promise<Answer & Watch> {
  const base = retainedHeap();
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, retainedHeap());
  }, 5);
  let running = true;
  let slowest = 0;
  let probes = 0;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const prober = (async () => {
    for (let i = 0; i < 5000 && running; i++) {
      const started = performance.now();
      const reply = await request(gw.base, 'GET', '/secure/balance', { auth: other });
      expect(reply.status).toBe(200);
      slowest = Math.max(slowest, performance.now() - started);
      probes++;
    }
  })();
  try {
    const answer = await attack();
    peak = Math.max(peak, retainedHeap());
    loop.disable();
    return { ...answer, heapGrowth: peak - base, slowest, probes, stall: loop.max / 1e6 };
  } finally {
    running = false;
    clearInterval(sampler);
    await prober;
  }
}

function codeOf(answer: Answer): string {
  return (JSON.parse(answer.text) as { detail: { code: string } }).detail.code;
}

let poor: string;
let bystander: string;

beforeAll(async () => {
  gw = await startEmbedded({ MAX_BATCH_BYTES: String(LIMIT) });
  poor = await account('poor', '1');
  bystander = await account('bystander', '1000');
}, 120_000);
afterAll(() => gw?.stop());

describe('a batch costs memory for what it is', () => {
  it('checks credit early at the lowest price the account may have, not at a free route of another account', async () => {
    const put = await request(gw.base, 'PUT', '/admin/v1/routes/free-for-partner', {
      ...admin,
      json: {
        position: 1,
        kind: 'static',
        connectors: [{ connector: 'default' }],
        price: '0',
        filters: { accounts: ['partner'] },
      },
    });
    expect(put.status).toBeLessThan(300);
    // Once the gateway's table has the route, the poor account has no route left at all.
    await waitFor(
      async () =>
        (
          await request(gw.base, 'POST', '/secure/rate', {
            auth: poor,
            json: { to: '41790000001', content: 'hello' },
          })
        ).status !== 200,
      20_000,
      'the route table reloaded',
    );
    // Enough recipients that the first 64 KiB already holds more than the account can pay for.
    const to = Array.from({ length: 200_000 }, (_, i) => String(41_700_000_000 + i));
    const body = Buffer.from(JSON.stringify({ messages: [{ to, content: 'hello' }] }));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const answer = postBatch(poor, body, {}, { after: 256 * 1024, release: released });
    // Refused while the rest of the body is held back: before, it waited for the whole body.
    await waitFor(async () => {
      const settled = await Promise.race([answer, Promise.resolve(undefined)]);
      return settled !== undefined;
    }, 20_000);
    release();
    const refused = await answer;
    expect(refused.early).toBe(true);
    expect(refused.status).toBe(402);
    expect(codeOf(refused)).toBe('INSUFFICIENT_CREDIT');
    const deleted = await request(gw.base, 'DELETE', '/admin/v1/routes/free-for-partner', admin);
    expect(deleted.status).toBeLessThan(300);
  }, 120_000);

  it('reads a batch with an Idempotency-Key as it arrives: junk beside one recipient stays out of memory', async () => {
    const body = junkBatch(24 * MiB, 'top');
    const seen = await watch(bystander, () =>
      postBatch(poor, body, { 'idempotency-key': 'junk-with-key-1' }),
    );
    console.log(
      `24 MiB of junk with a key: ${seen.status}, heap +${(seen.heapGrowth / MiB).toFixed(0)} MiB, ` +
        `other account's slowest of ${seen.probes} balance requests ${seen.slowest.toFixed(0)} ms, ` +
        `event loop held ${seen.stall.toFixed(0)} ms at most`,
    );
    expect(seen.status).toBe(400);
    expect(seen.text).toMatch(/junk/);
    expect(seen.heapGrowth).toBeLessThan(HEAP_BOUND);
    expect(seen.stall).toBeLessThan(STALL_BOUND_MS);
    // Nothing was charged, and the key is free for a corrected batch.
    const balance = await request(gw.base, 'GET', '/secure/balance', { auth: poor });
    expect(Number(balance.body.data.balance)).toBe(1);
  }, 120_000);

  it.each(['top', 'message'] as const)(
    'leaves fields a batch cannot have out while streaming (%s)',
    async (at) => {
      const body = junkBatch(24 * MiB, at);
      const seen = await watch(bystander, () => postBatch(poor, body));
      console.log(
        `24 MiB of junk in the ${at}: ${seen.status}, heap +${(seen.heapGrowth / MiB).toFixed(0)} MiB, ` +
          `event loop held ${seen.stall.toFixed(0)} ms at most`,
      );
      expect(seen.status).toBe(400);
      expect(seen.text).toMatch(/junk/);
      expect(seen.heapGrowth).toBeLessThan(HEAP_BOUND);
      expect(seen.stall).toBeLessThan(STALL_BOUND_MS);
    },
    120_000,
  );

  it('judges a compressed batch by what it inflates to: one per account at a time, limited as it is read', async () => {
    // 64 MiB of `{},` inflate from about 65 KB: far above the limit, from a short body.
    const bomb = gzipSync(junkBatch(64 * MiB, 'top'));
    expect(bomb.length).toBeLessThan(1 * MiB);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The first is held open after its first bytes; meanwhile the account's second is refused.
    const first = postBatch(
      poor,
      bomb,
      { 'content-encoding': 'gzip' },
      { after: 1, release: released },
    );
    const second = await postBatch(poor, bomb, { 'content-encoding': 'gzip' });
    expect(second.status).toBe(429);
    expect(codeOf(second)).toBe('RATE_LIMITED');
    release();
    const seen = await watch(bystander, () => first);
    expect(seen.status).toBe(413);
    expect(codeOf(seen)).toBe('PAYLOAD_TOO_LARGE');
    expect(seen.heapGrowth).toBeLessThan(HEAP_BOUND);
  }, 120_000);
});
