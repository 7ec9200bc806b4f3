/**
 * The compose install's single origin for the web console: deploy/console-edge/nginx.conf, run by a
 * real nginx (Debian's nginx-light; CI installs it when missing) in front of auth and api-gateway
 * as separate processes, with only the services' addresses put in for compose's names. Through it
 * the console's page loads, an operator's and a customer's sessions are made, and each reaches
 * what its pages call: the admin API, /secure/ and its own applications.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@smsgw/kit/testing';
import { E2E_ADMIN_TOKEN, E2E_JWT_SECRET, useDistributedRun } from '../support/distributed';
import { request } from '../support/http';

const NGINX = process.env['NGINX_PATH'] ?? '/usr/sbin/nginx';
const root = join(__dirname, '..', '..');
const CONSOLE_DIR = join(root, 'apps', 'console', 'dist');

/** A loopback port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const hostOf = (url: string) => new URL(url).host;

/** The cookie a session's answer set, as the browser sends it back. */
const cookieOf = (headers: Headers) => (headers.get('set-cookie') ?? '').split(';')[0];

describe("compose's console edge", () => {
  const run = useDistributedRun();
  let nginx: ChildProcess | undefined;
  let edge: string;

  beforeAll(async () => {
    if (!existsSync(NGINX))
      throw new Error(
        `nginx is not at ${NGINX}: apt-get install -y nginx-light (CI installs it), or set NGINX_PATH`,
      );
    if (!existsSync(join(CONSOLE_DIR, 'index.html')))
      throw new Error('the console is not built: npm run build');
    const { auth, gateway } = await run.gatewayWithAccount('edgy', { CONSOLE_DIR });
    const port = await freePort();
    const conf = readFileSync(join(root, 'deploy', 'console-edge', 'nginx.conf'), 'utf8')
      .replaceAll('http://auth:8081', `http://${hostOf(auth.url)}`)
      .replaceAll('http://api-gateway:8080', `http://${hostOf(gateway.url)}`)
      .replace('listen 8088;', `listen 127.0.0.1:${port};`);
    const prefix = mkdtempSync(join(tmpdir(), 'smsgw-edge-'));
    mkdirSync(join(prefix, 'logs'));
    writeFileSync(join(prefix, 'nginx.conf'), conf);
    nginx = spawn(
      NGINX,
      ['-p', prefix, '-c', 'nginx.conf', '-g', `daemon off; pid ${join(prefix, 'nginx.pid')};`],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let errors = '';
    nginx.stderr?.on('data', (d: Buffer) => (errors += d.toString()));
    edge = `http://127.0.0.1:${port}`;
    await waitFor(async () => {
      if (nginx?.exitCode !== null) throw new Error(`nginx exited: ${errors}`);
      try {
        return (await fetch(`${edge}/console/`)).ok ? true : undefined;
      } catch {
        return undefined;
      }
    }, 30_000);
  }, 120_000);

  afterAll(() => {
    nginx?.kill('SIGTERM');
  });

  it("serves the console's page under its Content-Security-Policy", async () => {
    const page = await request(edge, 'GET', '/console/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.text).toContain('<div id="root">');
  });

  it("an operator's session reaches the admin API through it", async () => {
    const login = await request(edge, 'POST', '/console/v1/session', {
      json: { kind: 'operator', token: E2E_ADMIN_TOKEN },
    });
    expect(login.status).toBe(201);
    const cookie = cookieOf(login.headers);
    const accounts = await request(edge, 'GET', '/admin/v1/accounts', { headers: { cookie } });
    expect(accounts.status).toBe(200);
    expect(accounts.body.data.accounts.map((a: { username: string }) => a.username)).toContain(
      'edgy',
    );
    // A change carries the session's CSRF token, as the console sends it.
    const credit = await request(edge, 'POST', '/admin/v1/accounts/edgy/credit', {
      headers: { cookie, 'x-csrf-token': login.body.csrfToken as string },
      json: { amount: '1' },
    });
    // An unlimited balance stays unlimited: the credit is taken and changes nothing.
    expect(credit.status).toBe(200);
  });

  it("a customer's session reaches /secure/ and its own applications through it", async () => {
    const login = await request(edge, 'POST', '/console/v1/session', {
      json: { kind: 'customer', username: 'edgy', password: 'edgy-password' },
    });
    expect(login.status).toBe(201);
    const cookie = cookieOf(login.headers);
    const balance = await request(edge, 'GET', '/secure/balance', { headers: { cookie } });
    expect(balance.status).toBe(200);
    const made = await request(edge, 'POST', '/auth/v1/applications', {
      headers: { cookie, 'x-csrf-token': login.body.csrfToken as string },
      json: { name: 'through the edge' },
    });
    expect(made.status).toBe(201);
    const listed = await request(edge, 'GET', '/auth/v1/applications', { headers: { cookie } });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ client_id: made.body.client_id, name: 'through the edge' }),
    ]);
    // Without the session nothing passes, whichever service answers.
    for (const path of ['/secure/balance', '/admin/v1/accounts', '/auth/v1/applications'])
      expect((await request(edge, 'GET', path)).status).toBe(401);
  });

  it('an operator who reaches auth alone (a port-forward to auth-admin) has the console there', async () => {
    const auth = await run.start('auth', {
      ADMIN_TOKEN: E2E_ADMIN_TOKEN,
      JWT_SECRET: E2E_JWT_SECRET,
      CONSOLE_DIR,
    });
    const page = await request(auth.url, 'GET', '/console/accounts');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<div id="root">');
    const login = await request(auth.url, 'POST', '/console/v1/session', {
      json: { kind: 'operator', token: E2E_ADMIN_TOKEN },
    });
    expect(login.status).toBe(201);
    const accounts = await request(auth.url, 'GET', '/admin/v1/accounts', {
      headers: { cookie: cookieOf(login.headers) },
    });
    expect(accounts.status).toBe(200);
  });

  it('routes nothing else', async () => {
    for (const path of ['/metrics', '/internal/v1/verify', '/healthz', '/'])
      expect((await request(edge, 'GET', path)).status).toBe(404);
  });
});
