/**
 * A large /secure/sendbatch from an account that cannot pay is refused early, while it is still
 * being read, and other customers' sends keep working meanwhile; a second large batch of the same
 * account while one is in reading gets 429 with Retry-After. Latencies are logged for the record;
 * the assertions are the absence of errors and a generous bound.
 */
import { request as httpRequest } from 'node:http';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
let gw: RunningGateway;

async function account(username: string, balance: string): Promise<string> {
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    ...admin,
    json: { username, password: 'large-batch-pw', balance, rate: '1' },
  });
  expect(created.status).toBe(201);
  return basic(username, 'large-batch-pw');
}

/** About `megabytes` MiB of batch: messages of 100 recipients each. */
function bigBatch(megabytes: number): Buffer {
  const to = Array.from({ length: 100 }, (_, i) => String(41_700_000_000 + i));
  const message = JSON.stringify({ to, content: 'large batch' });
  const count = Math.ceil((megabytes * 1024 * 1024) / (message.length + 1));
  return Buffer.from(`{"messages":[${Array.from({ length: count }, () => message).join(',')}]}`);
}

/** Posts the body in 64 KiB writes; resolves with the status and headers as soon as they come. */
function postBatch(
  auth: string,
  body: Buffer,
): Promise<{ status: number; retryAfter: string | undefined; text: string; ms: number }> {
  const url = new URL('/secure/sendbatch', gw.base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          authorization: auth,
          'content-type': 'application/json',
          'content-length': body.length,
        },
      },
      (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            text,
            ms: performance.now() - started,
          }),
        );
      },
    );
    // A refusal closes the connection while the body is still being written: that is expected.
    let answered = false;
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    let at = 0;
    const writeMore = (): void => {
      while (at < body.length && !answered) {
        const chunk = body.subarray(at, at + 65_536);
        at += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', writeMore);
          return;
        }
      }
      req.end();
    };
    writeMore();
  });
}

beforeAll(async () => {
  gw = await startEmbedded({ UNLISTED_SENDERS: 'refuse' });
}, 120_000);
afterAll(() => gw?.stop());

describe('large batches', () => {
  it('refuses a large batch from an account without credit early, while another account keeps sending', async () => {
    const broke = await account('broke', '5');
    const other = await account('other', '1000000');
    const body = bigBatch(48);
    // Credentials checked once beforehand, so the figures are about the batch, not the KDF.
    expect((await request(gw.base, 'GET', '/secure/balance', { auth: broke })).status).toBe(200);
    expect((await request(gw.base, 'GET', '/secure/balance', { auth: other })).status).toBe(200);

    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    let sending = true;
    const sender = (async () => {
      // Bounded in count and time: at most 2,000 sends or until the batch is answered.
      for (let i = 0; i < 2000 && sending; i++) {
        const started = performance.now();
        const reply = await request(gw.base, 'POST', '/secure/send', {
          auth: other,
          json: { to: '41790000001', content: `probe ${i}` },
        });
        latencies.push(performance.now() - started);
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      }
    })();
    const refused = await postBatch(broke, body);
    sending = false;
    await sender;

    expect(refused.status).toBe(402);
    expect(JSON.parse(refused.text).detail.code).toBe('INSUFFICIENT_CREDIT');
    expect([...statuses.keys()]).toEqual([200]);
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? 0;
    const max = latencies[latencies.length - 1] ?? 0;
    console.log(
      `large batch (${(body.length / 1048576).toFixed(0)} MiB) answered in ${refused.ms.toFixed(0)} ms; ` +
        `other account: ${latencies.length} sends, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms`,
    );
    expect(max).toBeLessThan(5000);
    // Refused on its first recipients, not after the whole body was parsed and validated.
    expect(JSON.parse(refused.text).detail.message).toMatch(/credit/i);
  }, 120_000);

  it('answers 429 with Retry-After to a second large batch of the same account while one is being read', async () => {
    const rich = await account('rich', '100000000');
    const body = bigBatch(8);
    const [first, second] = await Promise.all([postBatch(rich, body), postBatch(rich, body)]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([200, 429]);
    const limited = first.status === 429 ? first : second;
    expect(limited.retryAfter).toBe('1');
    expect(JSON.parse(limited.text).detail.code).toBe('RATE_LIMITED');
  }, 120_000);

  it('refuses nesting deeper than a batch needs with a clear 400', async () => {
    const auth = await account('nested', '100');
    const deep = '['.repeat(50_000) + ']'.repeat(50_000);
    const reply = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth,
      body: `{"messages":${deep}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.detail.message).toMatch(/nested deeper/);
  });
});
