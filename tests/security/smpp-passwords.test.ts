/**
 * An account's SMPP password is 8 characters, black-box in embedded mode: SMPP 3.4's password
 * field holds at most 8, and a shorter one is refused with a 400 naming the field, through the
 * admin API and the CLI, changing nothing.
 */
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { request } from '../support/http';
import { runSmsgw } from '../support/cli';
import { openEsme } from '../smpp-server/support/esme-client';

const PASSWORD = 'Pat0k!23';
const ESME_ROK = 0x00;
const ESME_RINVPASWD = 0x0e;

let gw: RunningGateway;
const admin = (method: string, path: string, json?: unknown) =>
  request(gw.base, method, `/admin/v1${path}`, {
    auth: `Bearer ${ADMIN_TOKEN}`,
    ...(json !== undefined && { json }),
  });

async function bind(systemId: string, password: string): Promise<number> {
  const esme = await openEsme({ port: gw.gateway.smppPort });
  try {
    return (await esme.bind('bind_transceiver', systemId, password)).status;
  } finally {
    esme.close();
  }
}

beforeAll(async () => {
  gw = await startEmbedded({});
  for (const username of ['pat', 'quinn'])
    expect(
      (await admin('POST', '/accounts', { username, password: `${username}-http-password` }))
        .status,
    ).toBe(201);
  expect((await admin('PUT', '/accounts/pat/smpp', { password: PASSWORD })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

describe('SMPP passwords', () => {
  it('refuses one shorter than 8 characters through the admin API, changing nothing', async () => {
    for (const password of ['1', 'x2', 'Pat0k!2']) {
      const changed = await admin('PUT', '/accounts/pat/smpp', { password });
      expect({ status: changed.status, field: changed.body.detail.field }).toEqual({
        status: 400,
        field: 'password',
      });
      expect(changed.body.detail.message).toMatch(/8 characters/);
      const given = await admin('PUT', '/accounts/quinn/smpp', { password, max_sessions: 2 });
      expect(given.status).toBe(400);
    }
    // pat binds with the password it had; quinn was given no access.
    expect(await bind('pat', PASSWORD)).toBe(ESME_ROK);
    expect(await bind('pat', 'Pat0k!2')).toBe(ESME_RINVPASWD);
    expect((await admin('GET', '/accounts/quinn/smpp')).status).toBe(404);
  });

  it('refuses one shorter than 8 characters through the CLI, changing nothing', async () => {
    await expect(
      runSmsgw(gw.base, ['smpp', 'access', 'quinn', '--password', 'qu1nn']),
    ).rejects.toThrow(/8 characters/);
    expect((await admin('GET', '/accounts/quinn/smpp')).status).toBe(404);
    await expect(runSmsgw(gw.base, ['smpp', 'access', 'pat', '--password', 'p4t'])).rejects.toThrow(
      /8 characters/,
    );
    expect(await bind('pat', PASSWORD)).toBe(ESME_ROK);
  });

  it('takes 8 characters, and refuses 9', async () => {
    expect((await admin('PUT', '/accounts/quinn/smpp', { password: 'Qu1nn!ok' })).status).toBe(200);
    expect(await bind('quinn', 'Qu1nn!ok')).toBe(ESME_ROK);
    const long = await admin('PUT', '/accounts/quinn/smpp', { password: 'Qu1nn!ok9' });
    expect({ status: long.status, field: long.body.detail.field }).toEqual({
      status: 400,
      field: 'password',
    });
  });
});
