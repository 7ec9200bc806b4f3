/**
 * Connector passwords sealed for their row, black-box in embedded mode on a Postgres the test
 * reads and writes as someone with access to the database (and not to CONNECTOR_SECRET_KEY)
 * would: a sealed password copied into another connector's row, or left in place while the URL
 * is pointed elsewhere, does not open; a password sealed the old way (v1, before rows were bound)
 * still opens, binds, and is sealed again for its row. With CONNECTOR_SECRET_KEY given, nothing of
 * the key is written beside the data.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgDb } from '@smsgw/kit';
import { createTestDatabase, waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { request } from '../support/http';

const KEY = 'sealed-connector-test-key-0123456789-abcdef';
const PASSWORD = 'Op3rator-Pw!';
/** PASSWORD sealed under KEY by the SecretBox of before (v1: no associated data). */
const SEALED_V1 = 'v1:1jQ44t_opaKdtXeNfpexo0zDOjc-xJf-CtmLDxjdT71FFpB3Ubfdeg';

const admin = (gw: RunningGateway, method: string, path: string, json?: unknown) =>
  request(gw.base, method, `/admin/v1${path}`, {
    auth: `Bearer ${ADMIN_TOKEN}`,
    ...(json !== undefined && { json }),
  });
const stateOf = async (gw: RunningGateway, name: string): Promise<string | undefined> =>
  ((await admin(gw, 'GET', `/connectors/${name}`)).body?.data as { state?: string } | undefined)
    ?.state;

describe('sealed connector passwords', () => {
  let sim: SmppSimulator;
  let smscPort: number;
  let database: { url: string; drop(): Promise<void> };
  let db: PgDb;
  let dataDir: string;
  let gw: RunningGateway | undefined;
  const sealedOf = async (name: string) =>
    (
      await db.query<{ password_sealed: string | null }>(
        `SELECT password_sealed FROM connectors WHERE name = $1`,
        [name],
      )
    ).rows[0]?.password_sealed;

  beforeAll(async () => {
    sim = new SmppSimulator({ systemId: 'opa', password: PASSWORD, deliveryReceipts: false });
    smscPort = (await sim.start()).port;
  });
  afterAll(async () => {
    await sim.stop();
  });
  beforeEach(async () => {
    database = await createTestDatabase();
    db = new PgDb({ connectionString: database.url, max: 2 });
    dataDir = mkdtempSync(join(tmpdir(), 'connector-secrets-'));
  });
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
    await db.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = async (env: Record<string, string> = {}) =>
    (gw = await startEmbedded(
      { DATABASE_URL: database.url, CONNECTOR_SECRET_KEY: KEY, ...env },
      dataDir,
    ));

  it('refuses a sealed password copied into another row, or kept while the URL is changed', async () => {
    const running = await start();
    for (const name of ['op-a', 'op-b'])
      expect(
        (
          await admin(running, 'POST', '/connectors', {
            name,
            url: `smpp://${name === 'op-a' ? 'opa' : 'opb'}:${name === 'op-a' ? encodeURIComponent(PASSWORD) : 'other-pw'}@127.0.0.1:${smscPort}`,
          })
        ).status,
      ).toBe(201);
    const sealedA = await sealedOf('op-a');
    expect(sealedA).toMatch(/^v2:/);
    expect((await admin(running, 'GET', '/connectors/op-b')).status).toBe(200);

    // op-a's sealed password, copied into op-b's row, and op-b's system_id made op-a's.
    await db.query(`UPDATE connectors SET password_sealed = $1, url = $2 WHERE name = 'op-b'`, [
      sealedA,
      `smpp://opa@127.0.0.1:${smscPort}`,
    ]);
    const copied = await admin(running, 'GET', '/connectors/op-b');
    expect(copied.status).toBe(500);
    expect(copied.text).not.toContain('127.0.0.1');
    await db.query(`DELETE FROM connectors WHERE name = 'op-b'`);
    expect((await admin(running, 'GET', '/connectors/op-a')).status).toBe(200);

    // op-a's own sealed password, its URL pointed at another host.
    await db.query(`UPDATE connectors SET url = $1 WHERE name = 'op-a'`, [
      `smpp://opa@192.0.2.1:${smscPort}`,
    ]);
    expect((await admin(running, 'GET', '/connectors/op-a')).status).toBe(500);
  }, 60_000);

  it('opens and binds with a password sealed the old way, then seals it again for its row', async () => {
    // The tables exist once a gateway has started on the database.
    await (await start()).stop();
    gw = undefined;
    await db.query(
      `INSERT INTO connectors (name, url, password_sealed, binds) VALUES ('legacy', $1, $2, 1)`,
      [`smpp://opa@127.0.0.1:${smscPort}`, SEALED_V1],
    );
    const running = await start();
    await waitFor(
      async () => ((await stateOf(running, 'legacy')) === 'up' ? true : undefined),
      20_000,
      'the legacy connector bound with its old sealed password',
    );
    const resealed = await sealedOf('legacy');
    expect(resealed).toMatch(/^v2:/);
    expect(resealed).not.toContain(PASSWORD);
    // The key came from the environment: none was written beside the data.
    expect(existsSync(join(dataDir, 'connector-secret-key'))).toBe(false);

    // Sealed again, it opens after a restart and still binds.
    await running.stop();
    gw = undefined;
    const again = await start();
    await waitFor(
      async () => ((await stateOf(again, 'legacy')) === 'up' ? true : undefined),
      20_000,
      'the legacy connector bound after a restart',
    );
    expect(await sealedOf('legacy')).toBe(resealed);
  }, 90_000);

  it('keeps a password sealed the old way as it is with CONNECTOR_SECRETS_RESEAL=false, and seals what it writes for its row', async () => {
    await (await start()).stop();
    gw = undefined;
    await db.query(
      `INSERT INTO connectors (name, url, password_sealed, binds) VALUES ('legacy', $1, $2, 1)`,
      [`smpp://opa@127.0.0.1:${smscPort}`, SEALED_V1],
    );
    // As during a rolling upgrade, where dispatchers of the release before read only v1 values.
    const running = await start({ CONNECTOR_SECRETS_RESEAL: 'false' });
    await waitFor(
      async () => ((await stateOf(running, 'legacy')) === 'up' ? true : undefined),
      20_000,
      'the legacy connector bound with its old sealed password',
    );
    expect(await sealedOf('legacy')).toBe(SEALED_V1);
    const added = await admin(running, 'POST', '/connectors', {
      name: 'added',
      url: `smpp://opa:${encodeURIComponent(PASSWORD)}@127.0.0.1:${smscPort}`,
    });
    expect(added.status).toBe(201);
    expect(await sealedOf('added')).toMatch(/^v2:/);

    // Every replica on the new release: the switch removed, the v1 value is sealed for its row.
    await running.stop();
    gw = undefined;
    await start();
    expect(await sealedOf('legacy')).toMatch(/^v2:/);
  }, 90_000);
});
