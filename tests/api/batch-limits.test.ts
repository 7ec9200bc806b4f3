/**
 * Batch size and schedule limits. The gateway runs as its own process (the built standalone app)
 * because a time zone is per process: that is the only way to give the server a TZ that differs
 * from the test's and so tell local-time parsing apart from UTC.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { basic, request } from '../support/http';
import { runNode, startService, type ServiceProcess } from '../support/processes';

const ADMIN_TOKEN = 'limits-admin-token-0123456789';
const MAX_RECIPIENTS = 5;
// UTC+05:45 all year (no daylight saving): an offset no host zone is likely to share by accident.
const SERVER_TZ = 'Asia/Kathmandu';
const SERVER_OFFSET_MS = (5 * 60 + 45) * 60_000;

const dataDir = mkdtempSync(join(tmpdir(), 'smsgw-limits-'));
let sim: SmppSimulator;
let gw: ServiceProcess;
let accounts = 0;

async function account(balance: string): Promise<string> {
  const username = `limits${++accounts}`;
  const created = await request(gw.url, 'POST', '/admin/v1/accounts', {
    auth: `Bearer ${ADMIN_TOKEN}`,
    json: { username, password: 'limits-password', balance, rate: '1' },
  });
  expect(created.status).toBe(201);
  return basic(username, 'limits-password');
}
const balanceOf = async (auth: string) =>
  (await request(gw.url, 'GET', '/secure/balance', { auth })).body.data.balance as string;
const numbers = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

/** The wall-clock time in the server's zone at `instant`, as `YYYY-MM-DD HH:MM:SS`. */
function serverLocal(instant: number): string {
  return new Date(instant + SERVER_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ');
}

beforeAll(async () => {
  sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
  const { port } = await sim.start();
  gw = await startService('standalone', {
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
    MAX_BATCH_RECIPIENTS: String(MAX_RECIPIENTS),
    TZ: SERVER_TZ,
  });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await sim?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('MAX_BATCH_RECIPIENTS', () => {
  it('refuses a batch over the limit with a clear 400, charges and sends nothing', async () => {
    const auth = await account('20');
    // Six recipients over two messages: the limit counts addresses, not message entries.
    const reply = await request(gw.url, 'POST', '/secure/sendbatch', {
      auth,
      json: {
        messages: [
          { to: numbers('4179004100', 3), content: 'a' },
          { to: numbers('4179004200', 3), content: 'b' },
        ],
      },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.detail).toEqual({
      code: 'INVALID_PARAMETER',
      field: 'messages',
      message: expect.stringMatching(/6 recipients.*at most 5/),
    });
    expect(await balanceOf(auth)).toBe('20');

    // The limit itself is allowed; once it is sent, nothing of the refused batch went with it.
    const atLimit = await request(gw.url, 'POST', '/secure/sendbatch', {
      auth,
      json: { messages: [{ to: numbers('4179004300', MAX_RECIPIENTS), content: 'c' }] },
    });
    expect(atLimit.status).toBe(200);
    expect(atLimit.body.data.messageCount).toBe(MAX_RECIPIENTS);
    await waitFor(
      async () => {
        const s = (
          await request(gw.url, 'GET', `/secure/batches/${atLimit.body.data.batchId}`, { auth })
        ).body.data;
        return s.state === 'completed' ? true : undefined;
      },
      15_000,
      'the batch sent',
      100,
    );
    expect(sim.received.map((r) => r.to).sort()).toEqual(numbers('4179004300', MAX_RECIPIENTS));
    expect(await balanceOf(auth)).toBe(String(20 - MAX_RECIPIENTS));
  });
});

describe('schedule_at as local date and time', () => {
  it(`reads a future "YYYY-MM-DD HH:MM:SS" in the server's TZ (${SERVER_TZ}) and reports that instant`, async () => {
    const auth = await account('10');
    const instant = Math.floor((Date.now() + 2 * 86_400_000) / 1000) * 1000;
    const reply = await request(gw.url, 'POST', '/secure/sendbatch', {
      auth,
      json: {
        messages: [{ to: '41790044001', content: 'in two days' }],
        batch_config: { schedule_at: serverLocal(instant) },
      },
    });
    expect(reply.status).toBe(200);
    const status = (
      await request(gw.url, 'GET', `/secure/batches/${reply.body.data.batchId}`, { auth })
    ).body.data;
    expect(status).toMatchObject({
      state: 'scheduled',
      scheduledAt: new Date(instant).toISOString(),
    });
    expect(await balanceOf(auth)).toBe('9');
  });

  it.each([
    '2027-02-30 10:00:00',
    '2027-04-31 10:00:00',
    '2027-01-15 24:30:00',
    '2027-01-15 10:61:00',
  ])('%s does not exist: 400, nothing charged', async (scheduleAt) => {
    const auth = await account('10');
    const reply = await request(gw.url, 'POST', '/secure/sendbatch', {
      auth,
      json: {
        messages: [{ to: '41790045001', content: 'never' }],
        batch_config: { schedule_at: scheduleAt },
      },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.detail).toMatchObject({
      code: 'INVALID_PARAMETER',
      errors: [{ field: 'batch_config.schedule_at', message: 'not a valid date and time' }],
    });
    expect(await balanceOf(auth)).toBe('10');
  });

  // The runtime falls back to UTC for a zone it does not know, which would move every local
  // schedule_at by hours without a word: the start is refused instead (docs/configuration.md).
  it.each(['Mars/Olympus', 'europe/zurich'])(
    'refuses to start with TZ=%s, a zone the runtime does not know',
    async (tz) => {
      const ownDir = mkdtempSync(join(tmpdir(), 'smsgw-tz-'));
      try {
        const started = await runNode(
          'apps/standalone/dist/main.js',
          [],
          { TZ: tz, DATA_DIR: ownDir, PORT: '0', LOG_LEVEL: 'silent' },
          15_000,
        );
        expect({ code: started.code, stderr: started.stderr.trim() }).toEqual({
          code: 1,
          stderr: expect.stringMatching(/^configuration error: TZ: not a time zone/),
        });
      } finally {
        rmSync(ownDir, { recursive: true, force: true });
      }
    },
  );
});
