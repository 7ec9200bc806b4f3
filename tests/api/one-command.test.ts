/**
 * Issue 2's "done when", as a user does it: the built app started with one command, no SMSC_URL
 * (so the built-in simulator), the CLI finding the generated admin token in DATA_DIR, one send, and
 * a SIGTERM restart on the same DATA_DIR. cli.test.ts and embedded-restart.test.ts cover the same
 * API in-process with an external simulator; this one covers the processes and files between them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@smsgw/kit/testing';
import { basic, request } from '../support/http';
import { freePort, runNode, startService, type ServiceProcess } from '../support/processes';

const dataDir = mkdtempSync(join(tmpdir(), 'smsgw-one-command-'));
const alice = basic('alice', 's3cret-pass');
const running: ServiceProcess[] = [];
let port: number;
let smppPort: number;

/**
 * `node apps/standalone/dist/main.js`, as `pnpm start` runs it after the build; ready once /readyz
 * answers.
 */
async function startApp(): Promise<ServiceProcess> {
  // Only what a user would set: no SMSC_URL, no ADMIN_TOKEN (generated and kept in DATA_DIR).
  const app = await startService(
    'standalone',
    { DATA_DIR: dataDir, PORT: String(port), SMPP_SERVER_PORT: String(smppPort) },
    60_000,
  );
  running.push(app);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    () =>
      app.output().includes(`sms-gateway is running (embedded mode) on ${base}`) ? true : undefined,
    5_000,
  );
  expect(app.output()).toMatch(/SMSC\s+built-in SMPP simulator/);
  // Customers' SMPP platforms bind there (docs/smpp-server.md).
  expect(app.output()).toContain(`SMPP server   smpp://127.0.0.1:${smppPort}`);
  return app;
}

/**
 * The CLI as a user runs it from the app's directory: the admin token comes from
 * DATA_DIR/admin-token.
 */
const smsgw = (args: string[]) =>
  runNode('apps/cli/dist/main.js', args, {
    SMSGW_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
  });

beforeAll(async () => {
  port = await freePort();
  smppPort = await freePort();
});

afterAll(async () => {
  await Promise.all(running.map((app) => app.stop()));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded mode from one command', () => {
  it('start, create an account with the CLI, send through the built-in simulator, restart: all kept', async () => {
    const first = await startApp();
    expect(readFileSync(join(dataDir, 'admin-token'), 'utf8').trim()).toMatch(/^\S{16,}$/);

    const created = await smsgw([
      'accounts',
      'create',
      'alice',
      '--password',
      's3cret-pass',
      '--balance',
      '10',
      '--rate',
      '0.5',
    ]);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(created.stdout)).toMatchObject({
      username: 'alice',
      balance: '10',
      sms_count: 'ND',
    });

    const sent = await request(first.url, 'POST', '/secure/send', {
      auth: alice,
      headers: { 'content-type': 'application/json' },
      body: '{"to":"41790000001","content":"Hello"}',
    });
    expect(sent.status).toBe(200);
    // The deployed API's exact body: no closing quote after the id (docs/architecture.md § Wire
    // compatibility).
    const id = /^\{"data":"Success \\"([0-9a-f-]{36})"\}$/.exec(sent.text)?.[1];
    expect(id).toBeDefined();
    expect((await request(first.url, 'GET', '/secure/balance', { auth: alice })).body).toEqual({
      data: { balance: '9.5', sms_count: 'ND' },
    });

    // submitted (or already delivered) means the built-in simulator answered the submit_sm.
    const taken = await waitFor(
      async () => {
        const m = (await request(first.url, 'GET', `/secure/messages/${id}`, { auth: alice })).body
          .data;
        return m.state === 'submitted' || m.state === 'delivered' ? m : undefined;
      },
      20_000,
      'the message submitted',
      100,
    );
    expect(taken).toMatchObject({
      id,
      to: '41790000001',
      segments: 1,
      cost: '0.5',
      smscId: expect.any(String),
    });

    expect(await first.stop()).toBe(0);

    const second = await startApp();
    const account = await smsgw(['accounts', 'get', 'alice']);
    expect(account.code).toBe(0);
    expect(JSON.parse(account.stdout)).toMatchObject({ username: 'alice', balance: '9.5' });
    expect((await request(second.url, 'GET', '/secure/balance', { auth: alice })).body).toEqual({
      data: { balance: '9.5', sms_count: 'ND' },
    });
    const kept = (await request(second.url, 'GET', `/secure/messages/${id}`, { auth: alice })).body
      .data;
    expect(kept).toMatchObject({
      id,
      to: '41790000001',
      state: expect.stringMatching(/^(submitted|delivered)$/),
      smscId: taken.smscId,
    });
    expect(await second.stop()).toBe(0);
  }, 120_000);
});
