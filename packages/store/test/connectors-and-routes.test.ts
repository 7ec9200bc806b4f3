import { PgliteDb, SecretBox, migrate } from '@smsgw/kit';
import { waitFor } from '@smsgw/kit/testing';
import {
  deleteStaleConnectorStatus,
  getConnector,
  getMtRoute,
  insertConnector,
  listConnectorStatus,
  lockConnectors,
  putMtRoute,
  reportConnectorStatus,
  routesUsingConnector,
  setDesiredState,
  updateConnector,
  type ConnectorStatusReport,
  type NewMtRoute,
} from '@smsgw/store';

let db: PgliteDb;
const box = new SecretBox('connectors-and-routes-test-key-0123456789');
beforeAll(async () => {
  db = await PgliteDb.open();
  await migrate(db);
  for (const name of ['a', 'b'])
    await insertConnector(db, box, {
      name,
      url: `smpp://u:p@${name}`,
      binds: 1,
      bind_mode: 'transceiver',
    });
});
afterAll(() => db?.close());

const route = (name: string, position: number, connectors: string[]): NewMtRoute => ({
  name,
  position,
  kind: 'failover',
  targets: connectors.map((connector) => ({ connector })),
  filters: {},
  reroute_on: [],
  price: '0.05',
});
const updatedAt = async (name: string) => (await getConnector(db, name, box))!.updated_at.getTime();
/** Until the database clock is past `ms`: a change made after it gets a later updated_at. */
const clockPast = (ms: number) =>
  waitFor(
    async () => {
      const { rows } = await db.query<{ now: Date }>('SELECT clock_timestamp() AS now');
      return rows[0].now.getTime() > ms;
    },
    5_000,
    'the database clock past the last change',
    1,
  );

describe('connectors', () => {
  it('refuses a second connector of the same name', async () => {
    expect(
      await insertConnector(db, box, {
        name: 'a',
        url: 'smpp://x@y',
        binds: 1,
        bind_mode: 'transceiver',
      }),
    ).toBe(false);
    expect((await getConnector(db, 'a', box))!.url).toBe('smpp://u:p@a');
  });

  it('moves updated_at only when a value changes', async () => {
    const before = await updatedAt('a');
    await clockPast(before);
    expect(await updateConnector(db, box, 'a', { binds: 1, url: 'smpp://u:p@a' })).toBe(true);
    expect(await updatedAt('a')).toBe(before);
    expect(await updateConnector(db, box, 'a', { binds: 2 })).toBe(true);
    expect(await updatedAt('a')).toBeGreaterThan(before);
    expect(await getConnector(db, 'a', box)).toMatchObject({ binds: 2, url: 'smpp://u:p@a' });
    expect(await updateConnector(db, box, 'nope', { binds: 2 })).toBe(false);
  });

  it('stops and starts, false for an unknown one', async () => {
    expect(await setDesiredState(db, 'b', 'stopped')).toBe(true);
    expect((await getConnector(db, 'b', box))!.desired_state).toBe('stopped');
    const stoppedAt = await updatedAt('b');
    await clockPast(stoppedAt);
    expect(await setDesiredState(db, 'b', 'stopped')).toBe(true);
    expect(await updatedAt('b')).toBe(stoppedAt);
    expect(await setDesiredState(db, 'b', 'started')).toBe(true);
    expect((await getConnector(db, 'b', box))!.desired_state).toBe('started');
    expect(await setDesiredState(db, 'nope', 'stopped')).toBe(false);
  });

  it('locks only the connectors that exist', async () => {
    expect(await lockConnectors(db, ['b', 'nope', 'a'], 'share')).toEqual(['a', 'b']);
  });
});

describe('MT routes', () => {
  it('reads one route, names the routes using a connector, and keeps positions unique', async () => {
    expect(await putMtRoute(db, route('first', 1, ['a', 'b']))).toBe(true);
    expect(await putMtRoute(db, route('second', 2, ['b']))).toBe(true);
    expect(await putMtRoute(db, route('third', 2, ['a']))).toBe(false);
    expect(await getMtRoute(db, 'first')).toMatchObject({
      position: 1,
      targets: [{ connector: 'a' }, { connector: 'b' }],
      price: '0.050000',
    });
    expect(await getMtRoute(db, 'third')).toBeUndefined();
    expect(await routesUsingConnector(db, 'b')).toEqual(['first', 'second']);
    expect(await routesUsingConnector(db, 'a')).toEqual(['first']);
    expect(await routesUsingConnector(db, 'nope')).toEqual([]);
  });
});

describe('connector status', () => {
  const row = (connector: string, bound: number): ConnectorStatusReport => ({
    connector,
    bound,
    window_in_use: 0,
    waiting: 0,
    rate: 0,
    last_error: null,
    last_error_at: null,
    up_since: null,
    down_since: null,
  });

  it('lists fresh rows and deletes stale ones', async () => {
    await reportConnectorStatus(db, 'one', [row('a', 1), row('b', 0)]);
    await reportConnectorStatus(db, 'two', [row('a', 2)]);
    await db.query(
      `UPDATE connector_status SET reported_at = now() - interval '1 minute' WHERE holder = 'two'`,
    );
    const fresh = await listConnectorStatus(db, 10);
    expect(fresh.map((s) => [s.connector, s.holder, s.bound])).toEqual([
      ['a', 'one', 1],
      ['b', 'one', 0],
    ]);
    expect(await deleteStaleConnectorStatus(db, 30)).toBe(1);
    expect((await listConnectorStatus(db, 3600)).map((s) => s.holder)).toEqual(['one', 'one']);
  });
});
