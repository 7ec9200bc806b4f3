import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { waitFor } from '@smsgw/kit/testing';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { adminCaller, basic, request } from '../support/http';

/**
 * The web console in a real browser (Debian's Chromium through playwright-core), against embedded
 * mode with its built-in SMSC simulator, as people use it: an operator logs in, creates an account
 * and tops it up; the customer logs in, sends a test message and finds it with its receipt; the
 * operator finds it too, reads its story and exports its CDR; a wrong login is refused, and a page
 * of another origin cannot act with the session. Every page passes axe-core without a serious or
 * critical violation, and the main pages are saved as screenshots (CONSOLE_SCREENSHOTS names the
 * folder: docs/console's pictures are made so).
 */

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const SHOTS = process.env['CONSOLE_SCREENSHOTS'] ?? mkdtempSync(join(tmpdir(), 'smsgw-console-'));

let gw: RunningGateway;
let browser: Browser;
let page: Page;
/** What the page logged as errors, and the requests it made that failed, by URL. */
const problems: string[] = [];
const admin = adminCaller(() => gw.base, `Bearer ${ADMIN_TOKEN}`);

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium is not at ${CHROMIUM}: apt-get install -y chromium (CI installs it), or set CHROMIUM_PATH`,
    );
  gw = await startEmbedded({});
  expect(gw.gateway.consoleServed).toBe(true);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  // Reduced motion: the console then runs no transition, so axe-core reads each page as it stays.
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    reducedMotion: 'reduce',
  });
  page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/i.test(m.text()))
      problems.push(`CSP: ${m.text()}`);
  });
  mkdirSync(SHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

/** No serious or critical accessibility violation on the page as it is now. */
async function accessible(what: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) => `${what}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
  expect(bad).toEqual([]);
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

async function logInAsOperator(): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${gw.base}/console/`);
  await page.getByRole('tab', { name: 'Operator' }).click();
  await page.getByRole('textbox', { name: 'Admin token' }).fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}

async function logInAsCustomer(username: string, password: string): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${gw.base}/console/`);
  await page.getByLabel('Username').fill(username);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

async function logOut(): Promise<void> {
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByRole('button', { name: 'Log in' }).waitFor();
}

/** Makes an application on the page's Applications section; its client id and secret as shown once. */
async function makeApplication(name: string): Promise<string[]> {
  const apps = page.getByRole('region', { name: 'Applications' });
  await apps.getByLabel("New application's name").fill(name);
  await apps.getByRole('button', { name: 'Make an application' }).click();
  const made = apps.getByRole('status').filter({ hasText: 'shown this once' });
  await made.waitFor();
  return (await made.locator('code').allInnerTexts()).map((t) => t.trim());
}

/** Revokes it after the confirmation; the section then lists none. */
async function revokeApplication(clientId: string): Promise<void> {
  const apps = page.getByRole('region', { name: 'Applications' });
  await apps.getByRole('button', { name: `Revoke application ${clientId}` }).click();
  await page
    .getByRole('dialog', { name: `Revoke application ${clientId}?` })
    .getByRole('button', { name: 'Revoke it' })
    .click();
  await apps.getByText('No applications.').waitFor();
}

const rowOf = (name: string) => page.getByRole('row').filter({ hasText: name });

describe('the web console in a browser', () => {
  let messageId: string;

  it('serves the login page under a strict Content-Security-Policy, accessible', async () => {
    const reply = await page.goto(`${gw.base}/console/`);
    const policy = reply?.headers()['content-security-policy'] ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).toContain("frame-ancestors 'none'");
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await accessible('login');
    await shot('login');
  });

  it('refuses a wrong login and says why', async () => {
    await logInAsCustomer('nobody', 'wrong-password-1');
    await page.getByRole('alert').filter({ hasText: 'Wrong username or password' }).waitFor();
    expect(await page.getByRole('button', { name: 'Log out' }).count()).toBe(0);
  });

  it('an operator logs in, creates an account and tops it up', async () => {
    await logInAsOperator();
    // The chart of the last 24 hours is drawn (a canvas) under its accessible name.
    await page
      .getByRole('img', { name: 'Counted messages per hour and final state' })
      .locator('canvas')
      .waitFor();
    await accessible('overview');
    await page.getByRole('link', { name: 'Accounts' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByLabel('Username').fill('dora');
    await page.getByRole('textbox', { name: 'Password' }).fill('dora-pass-123');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').filter({ hasText: 'Account dora created.' }).waitFor();
    await rowOf('dora').waitFor();
    await page.getByLabel('Credit for dora').fill('10');
    await rowOf('dora').getByRole('button', { name: 'Top up' }).click();
    // What the page shows is what the gateway holds once the credit is in.
    const held = await waitFor(async () => {
      const balance = String((await admin('GET', '/accounts/dora')).body.balance);
      return Number(balance) === 10 ? balance : undefined;
    });
    await rowOf('dora').getByRole('cell', { name: held, exact: true }).waitFor();
    await accessible('accounts');
    await shot('accounts');
    await logOut();
  });

  it('the customer logs in, sends a test message and sees its receipt', async () => {
    await logInAsCustomer('dora', 'dora-pass-123');
    await page.getByRole('heading', { name: 'Balance and test message' }).waitFor();
    const balance = String((await admin('GET', '/accounts/dora')).body.balance);
    await page.getByText(balance, { exact: true }).first().waitFor();
    await page.getByLabel('To').fill('41790000001');
    await page.getByLabel('Text').fill('hello from the browser');
    await page.getByRole('button', { name: 'Send' }).click();
    const accepted = page.getByRole('status').filter({ hasText: 'is on its way' });
    await accepted.waitFor();
    messageId = (await accepted.getByRole('link').innerText()).trim();
    expect(messageId).toMatch(/^[0-9a-f-]{36}$/);
    await accessible('customer overview');
    await shot('customer-overview');
    await accepted.getByRole('link').click();
    await page.getByText('delivered', { exact: true }).first().waitFor({ timeout: 20_000 });
    await accessible('customer message');
    await page.getByRole('link', { name: 'Messages', exact: true }).click();
    await page.getByRole('row').filter({ hasText: 'hello from the browser' }).waitFor();
    await accessible('customer messages');
    await logOut();
  });

  it('the operator finds the message, reads its story and exports its CDR', async () => {
    await logInAsOperator();
    await page.getByRole('link', { name: 'Messages', exact: true }).click();
    await page.getByLabel('Account').fill('dora');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/account=dora/);
    const row = page.getByRole('row').filter({ hasText: 'hello from the browser' });
    await row.waitFor();
    await accessible('messages');
    await shot('messages');

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export these CDRs (CSV)' }).click();
    const csv = readFileSync(await (await download).path(), 'utf8');
    expect(csv.split('\r\n')[0]).toMatch(/^id,account,/);
    expect(csv).toContain(`${messageId},dora,`);

    await row.getByRole('link').click();
    await page.getByRole('heading', { name: 'Its story' }).waitFor();
    await page.getByText('receipt', { exact: true }).waitFor();
    await accessible('message story');
    await shot('message-story');
    // A link to the search opens it as it was: the filters are in the address.
    await page.goto(`${gw.base}/console/messages?account=dora&state=delivered`);
    await page.getByRole('row').filter({ hasText: 'hello from the browser' }).waitFor();
  });

  it('the operator stops a connector and starts it again, each after a confirmation', async () => {
    await logInAsOperator();
    await page.getByRole('link', { name: 'Connectors' }).click();
    const row = rowOf('default');
    await row.getByText('up', { exact: true }).waitFor({ timeout: 20_000 });
    await row.getByRole('button', { name: 'Stop default' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop connector default?' });
    await dialog.waitFor();
    await accessible('connector confirmation');
    await dialog.getByRole('button', { name: 'Stop it' }).click();
    await row.getByText('stopped', { exact: true }).waitFor();
    expect((await admin('GET', '/connectors/default')).body.data.desiredState).toBe('stopped');
    await row.getByRole('button', { name: 'Start default' }).click();
    await page
      .getByRole('dialog', { name: 'Start connector default?' })
      .getByRole('button', { name: 'Start it' })
      .click();
    await row.getByText('up', { exact: true }).waitFor({ timeout: 20_000 });
    expect((await admin('GET', '/connectors/default')).body.data.desiredState).toBe('started');
    await accessible('connectors');
    await shot('connectors');
  });

  it('the customer follows a batch', async () => {
    const sent = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth: basic('dora', 'dora-pass-123'),
      json: { messages: [{ to: ['41790000002', '41790000003'], content: 'batch from the API' }] },
    });
    expect(sent.status).toBe(200);
    await logInAsCustomer('dora', 'dora-pass-123');
    await page.getByRole('link', { name: 'Batches' }).click();
    await page.getByRole('row').filter({ hasText: '2 of 2' }).waitFor();
    await accessible('customer batches');
  });

  it("the operator cancels a customer's scheduled batch, and it is refunded", async () => {
    const before = String((await admin('GET', '/accounts/dora')).body.balance);
    const later = await request(gw.base, 'POST', '/secure/sendbatch', {
      auth: basic('dora', 'dora-pass-123'),
      json: {
        messages: [{ to: ['41790000004', '41790000005'], content: 'for tomorrow' }],
        batch_config: { schedule_at: '86400s' },
      },
    });
    expect(later.status).toBe(200);
    await logInAsOperator();
    await page.getByRole('link', { name: 'Batches' }).click();
    const row = page.getByRole('row').filter({ hasText: 'scheduled' });
    await row.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('row').filter({ hasText: 'cancelled' }).waitFor();
    const after = await waitFor(async () => {
      const balance = String((await admin('GET', '/accounts/dora')).body.balance);
      return balance === before ? balance : undefined;
    });
    expect(after).toBe(before);
    await accessible('operator batches');
  });

  it("the customer keeps its opt-out list and callback secret, and reads a handset's reply", async () => {
    await logInAsCustomer('dora', 'dora-pass-123');
    await page.getByRole('link', { name: 'Settings' }).click();
    const secret = page.getByRole('region', { name: 'Callback secret' }).locator('code').first();
    await secret.waitFor();
    const before = await secret.innerText();
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await page.getByText('the previous one is still accepted').waitFor();
    expect(await secret.innerText()).not.toBe(before);

    await page.getByRole('textbox', { name: 'Number to opt out' }).fill('41790000009');
    await page.getByRole('button', { name: 'Opt it out' }).click();
    await page.getByRole('row').filter({ hasText: '41790000009' }).waitFor();
    await accessible('customer settings');
    await shot('customer-settings');
    const refused = await request(gw.base, 'POST', '/secure/send', {
      auth: basic('dora', 'dora-pass-123'),
      json: { to: '41790000009', content: 'to an opted-out number' },
    });
    expect(refused.status).toBe(403);
    await page.getByRole('button', { name: 'Take 41790000009 off' }).click();
    await page.getByText('No number is opted out.').waitFor();

    // A handset answers on 4000, which an MO route gives to the account.
    expect(
      (await admin('PUT', '/mo-routes/dora-replies', { position: 10, to: '4000', account: 'dora' }))
        .status,
    ).toBe(200);
    const control = gw.gateway.simulatorControlUrl;
    if (control === undefined) throw new Error('embedded mode runs no simulator');
    const mo = await fetch(`${control}/originate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: '41790000001', to: '4000', text: 'YES please' }),
    });
    expect(mo.ok).toBe(true);
    await page.getByRole('link', { name: 'Inbound messages' }).click();
    await page.getByRole('row').filter({ hasText: 'YES please' }).waitFor({ timeout: 20_000 });
    await accessible('customer inbound');
  });

  it("the operator disables an account from its page, its customer's login is refused, and enables it", async () => {
    await logInAsOperator();
    await page.getByRole('link', { name: 'Accounts' }).click();
    await rowOf('dora').getByRole('link', { name: 'dora' }).click();
    await page.getByRole('heading', { name: 'Account dora' }).waitFor();
    await page
      .getByRole('table', { name: 'Newest messages' })
      .getByRole('row')
      .filter({ hasText: '41790000001' })
      .waitFor();
    await page.getByRole('button', { name: 'Disable dora' }).click();
    await page
      .getByRole('dialog', { name: 'Disable account dora?' })
      .getByRole('button', { name: 'Disable it' })
      .click();
    await page.getByRole('button', { name: 'Enable dora' }).waitFor();
    await accessible('account');
    await shot('account');
    expect((await admin('GET', '/accounts/dora')).body.disabled_at).not.toBeNull();

    await logInAsCustomer('dora', 'dora-pass-123');
    await page.getByRole('alert').filter({ hasText: 'disabled' }).waitFor();

    await logInAsOperator();
    await page.goto(`${gw.base}/console/accounts/dora`);
    await page.getByRole('button', { name: 'Enable dora' }).click();
    await page
      .getByRole('dialog', { name: 'Enable account dora?' })
      .getByRole('button', { name: 'Enable it' })
      .click();
    await page.getByRole('button', { name: 'Disable dora' }).waitFor();
    expect((await admin('GET', '/accounts/dora')).body.disabled_at).toBeNull();
  });

  it('a token made in the console shows only what its scopes allow; the audit trail names who disabled the account', async () => {
    await logInAsOperator();
    await page.getByRole('link', { name: 'Admin tokens' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('desk');
    await page.getByRole('checkbox', { name: 'messages:read' }).check();
    await page.getByRole('button', { name: 'Make it' }).click();
    const made = page.getByRole('status').filter({ hasText: 'not shown again' });
    await made.waitFor();
    const token = (await made.locator('code').innerText()).trim();
    expect(token).toMatch(/^smsgw_admin_/);
    await accessible('admin tokens');

    await page.context().clearCookies();
    await page.goto(`${gw.base}/console/`);
    await page.getByRole('tab', { name: 'Operator' }).click();
    await page.getByRole('textbox', { name: 'Admin token' }).fill(token);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('desk', { exact: true }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.getByRole('link', { name: 'Messages', exact: true }).click();
    await page.getByRole('row').filter({ hasText: 'dora' }).first().waitFor();
    expect(await nav.getByRole('link', { name: 'Accounts' }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Admin tokens' }).count()).toBe(0);
    // The token lacks messages:content: the text is not shown to it.
    expect(await page.getByRole('cell', { name: 'hello from the browser' }).count()).toBe(0);

    await logInAsOperator();
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByRole('textbox', { name: 'Actor' }).fill('ADMIN_TOKEN');
    await page.getByRole('textbox', { name: 'Target starts with' }).fill('/accounts/dora');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('row').filter({ hasText: '/accounts/dora/disable' }).first().waitFor();
    await accessible('audit trail');
    await shot('audit');
  });

  it('the operator watches the last minutes live, and what waits for SMPP customers', async () => {
    await logInAsOperator();
    const live = page.getByRole('region', { name: 'Live: the last 15 minutes by minute' });
    await live.getByRole('img').locator('canvas').waitFor();
    // The messages of the tests before are recent: the figures come from the live view.
    const accepted = await waitFor(async () => {
      const text = await live.getByText('Accepted, last 5 min').locator('..').innerText();
      const n = Number(/(\d+)\s*$/.exec(text)?.[1] ?? '0');
      return n > 0 ? n : undefined;
    });
    const minutes = (await admin('GET', '/stats/live?minutes=5')).body.data.minutes as {
      accepted: number;
    }[];
    expect(minutes.reduce((n, m) => n + m.accepted, 0)).toBeGreaterThanOrEqual(accepted);
    await page
      .getByRole('region', { name: 'Waiting for SMPP customers' })
      .getByText('0 receipts and 0 inbound messages wait')
      .waitFor();
    await accessible('operator overview');
    await shot('overview');
  });

  it('the operator gives an account its senders, SMPP access and an application, and revokes it', async () => {
    await logInAsOperator();
    await page.goto(`${gw.base}/console/accounts/dora`);
    const senders = page.getByRole('region', { name: 'Senders' });
    await senders.getByText('No list').waitFor();
    await senders.getByLabel('Senders it may use').fill('DoraShop\n4000');
    await senders.getByRole('button', { name: 'Save the senders' }).click();
    await senders.getByText('2 senders listed; another is refused.').waitFor();
    expect((await admin('GET', '/accounts/dora/senders')).body).toMatchObject({
      configured: true,
      senders: ['4000', 'DoraShop'],
      policy: 'refuse',
    });

    const smpp = page.getByRole('region', { name: 'SMPP access' });
    await smpp.getByText('No SMPP access').waitFor();
    await smpp.getByLabel(/^SMPP password/).fill('d0rasmpp');
    await smpp.getByLabel('Sessions at most').fill('2');
    await smpp.getByRole('button', { name: 'Give SMPP access' }).click();
    await smpp.getByText('Binds as system_id dora, at most 2 sessions').waitFor();
    expect((await admin('GET', '/accounts/dora/smpp')).body).toMatchObject({ max_sessions: 2 });

    const apps = page.getByRole('region', { name: 'Applications' });
    const [clientId, secret] = await makeApplication('crm');
    const token = await request(gw.base, 'POST', '/auth/v1/login/application', {
      body: new URLSearchParams({ client_id: clientId, client_secret: secret }),
    });
    expect(token.status).toBe(200);
    await apps.getByRole('row').filter({ hasText: 'crm' }).waitFor();
    await accessible('account access');
    await shot('account-access');
    await revokeApplication(clientId);
    expect((await admin('GET', '/accounts/dora/applications')).body.data).toEqual([]);

    // Back as they were, for what follows.
    await senders.getByRole('button', { name: 'Remove the list' }).click();
    await senders.getByText('No list').waitFor();
    await smpp.getByRole('button', { name: 'Take SMPP access away' }).click();
    await page
      .getByRole('dialog', { name: "Take dora's SMPP access away?" })
      .getByRole('button', { name: 'Take it away' })
      .click();
    await smpp.getByText('No SMPP access').waitFor();
  });

  it('the customer makes an application of its own and sees it listed', async () => {
    await logInAsCustomer('dora', 'dora-pass-123');
    await page.getByRole('link', { name: 'Settings' }).click();
    const apps = page.getByRole('region', { name: 'Applications' });
    await apps.getByText('No applications.').waitFor();
    const [clientId] = await makeApplication('shop');
    await apps.getByRole('row').filter({ hasText: 'shop' }).waitFor();
    const listed = await request(gw.base, 'GET', '/auth/v1/applications', {
      auth: basic('dora', 'dora-pass-123'),
    });
    expect(listed.body.data.map((a: { client_id: string }) => a.client_id)).toEqual([clientId]);
    await accessible('customer applications');
    await revokeApplication(clientId);
  });

  it('the operator adds a connector and routes, asks which route numbers take, and takes them away', async () => {
    await logInAsOperator();
    await page.getByRole('link', { name: 'Connectors' }).click();
    await page.getByRole('button', { name: 'Add a connector' }).click();
    const add = page.getByRole('dialog', { name: 'Add a connector' });
    await add.getByLabel('Name').fill('backup');
    // Nothing listens there: the connector is added, and stays down.
    await add.getByLabel('URL').fill('smpp://backup:secret@127.0.0.1:9');
    await add.getByRole('button', { name: 'Save the connector' }).click();
    await rowOf('backup').getByText('down', { exact: true }).waitFor({ timeout: 20_000 });
    await rowOf('backup').getByRole('button', { name: 'Edit backup' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit connector backup' });
    await edit.getByLabel('Binds').fill('2');
    await edit.getByRole('button', { name: 'Save the connector' }).click();
    await rowOf('backup').getByText('0 / 2').waitFor();
    const stored = (await admin('GET', '/connectors/backup')).body.data;
    expect(stored).toMatchObject({ binds: 2, url: 'smpp://backup:***@127.0.0.1:9' });

    await page.getByRole('link', { name: 'Routes' }).click();
    await page.getByRole('button', { name: 'Add an MT route' }).click();
    const mt = page.getByRole('dialog', { name: 'Add an MT route' });
    await mt.getByLabel('Name').fill('swiss');
    await mt.getByLabel('Position').fill('10');
    await mt.getByLabel('Kind').click();
    await page.getByRole('option', { name: 'failover: in order' }).click();
    await mt.getByLabel('Connectors').fill('default\nbackup');
    await mt.getByLabel('Destination prefixes').fill('41, 423');
    await mt.getByRole('button', { name: 'Save the route' }).click();
    await rowOf('swiss').getByText('failover: default, backup').waitFor();
    expect((await admin('GET', '/routes/swiss')).body.data).toMatchObject({
      position: 10,
      kind: 'failover',
      filters: { prefixes: ['41', '423'] },
    });

    const tester = page.getByRole('region', { name: 'Which MT route would this number take?' });
    await tester.getByLabel('To').fill('+41790000001');
    await tester.getByLabel('Account').fill('dora');
    await tester.getByRole('button', { name: 'Find the route' }).click();
    await tester.getByRole('status').getByText('Route swiss (position 10, failover)').waitFor();
    await tester.getByLabel('To').fill('33600000001');
    await tester.getByRole('button', { name: 'Find the route' }).click();
    await tester.getByRole('status').getByText('No route takes it').waitFor();

    await rowOf('swiss').getByRole('button', { name: 'Edit swiss' }).click();
    const change = page.getByRole('dialog', { name: 'Edit MT route swiss' });
    await change.getByLabel('Destination prefixes').fill('41, 423, 33');
    await change.getByRole('button', { name: 'Save the route' }).click();
    await rowOf('swiss').getByText('prefixes: 41, 423, 33').waitFor();
    await tester.getByRole('button', { name: 'Find the route' }).click();
    await tester.getByRole('status').getByText('Route swiss').waitFor();

    await page.getByRole('button', { name: 'Add an MO route' }).click();
    const mo = page.getByRole('dialog', { name: 'Add an MO route' });
    await mo.getByLabel('Name').fill('dora-info');
    await mo.getByLabel('Position').fill('20');
    await mo.getByLabel('Sent to').fill('4100');
    await mo.getByLabel('Keyword').fill('info');
    await mo.getByRole('textbox', { name: 'Account' }).fill('dora');
    await mo.getByRole('button', { name: 'Save the route' }).click();
    await rowOf('dora-info').getByRole('cell', { name: 'INFO', exact: true }).waitFor();
    const moTester = page.getByRole('region', { name: 'Which MO route would take this message?' });
    await moTester.getByLabel('Sent to').fill('41001');
    await moTester.getByLabel('Text').fill('info please');
    await moTester.getByRole('button', { name: 'Find the MO route' }).click();
    await moTester
      .getByRole('status')
      .getByText('MO route dora-info, for account dora (keyword INFO)')
      .waitFor();
    await accessible('routes');
    await shot('routes');

    for (const [kind, name] of [
      ['MT', 'swiss'],
      ['MO', 'dora-info'],
    ] as const) {
      await rowOf(name)
        .getByRole('button', { name: `Delete ${name}` })
        .click();
      await page
        .getByRole('dialog', { name: `Delete ${kind} route ${name}?` })
        .getByRole('button', { name: 'Delete it' })
        .click();
      await rowOf(name).waitFor({ state: 'detached' });
    }
    expect((await admin('GET', '/routes')).body.data).toEqual([]);

    await page.getByRole('link', { name: 'Connectors' }).click();
    await rowOf('backup').getByRole('button', { name: 'Delete backup' }).click();
    await page
      .getByRole('dialog', { name: 'Delete connector backup?' })
      .getByRole('button', { name: 'Delete it' })
      .click();
    await rowOf('backup').waitFor({ state: 'detached' });
    expect((await admin('GET', '/connectors/backup')).status).toBe(404);
  });

  it('a page of another origin cannot act with the session', async () => {
    const before = (await admin('GET', '/accounts/dora')).body.balance as string;
    // The operator's session is in the browser; a page elsewhere posts with it as a form would.
    const other: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>elsewhere</title><p>elsewhere</p>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const port = (other.address() as AddressInfo).port;
      await page.goto(`http://127.0.0.1:${port}/`);
      const statuses = await page.evaluate(async (base: string) => {
        const credit = await fetch(`${base}/admin/v1/accounts/dora/credit`, {
          method: 'POST',
          mode: 'no-cors',
          credentials: 'include',
          headers: { 'content-type': 'text/plain' },
          body: JSON.stringify({ amount: '5' }),
        });
        return [credit.type];
      }, gw.base);
      // An opaque answer: the page learns nothing, and the gateway refused it.
      expect(statuses).toEqual(['opaque']);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
    expect((await admin('GET', '/accounts/dora')).body.balance).toBe(before);
    const noSession = await request(gw.base, 'GET', '/admin/v1/accounts');
    expect(noSession.status).toBe(401);
  });

  it('logged no error and broke no Content-Security-Policy rule', () => {
    expect(problems).toEqual([]);
  });
});
