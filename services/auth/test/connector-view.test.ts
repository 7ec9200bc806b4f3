import type { ConnectorRow, ConnectorStatusRow, MtRouteRow } from '@smsgw/store';
import { maskConnectorUrl } from '../src/connector-url-mask';
import { connectorView } from '../src/connector-view';

const at = (s: string) => new Date(`2026-01-01T${s}Z`);
const connector = (over: Partial<ConnectorRow> = {}): ConnectorRow => ({
  name: 'op',
  url: 'smpp://sys:S3cret@smsc.example:2775?window=5',
  binds: 3,
  bind_mode: 'transceiver',
  desired_state: 'started',
  updated_at: at('00:00:00'),
  ...over,
});
const row = (holder: string, over: Partial<ConnectorStatusRow> = {}): ConnectorStatusRow => ({
  connector: 'op',
  holder,
  bound: 0,
  window_in_use: 0,
  waiting: 0,
  rate: 0,
  last_error: null,
  last_error_at: null,
  up_since: null,
  down_since: null,
  reported_at: at('12:00:00'),
  ...over,
});
const route = (name: string, connectors: string[]): MtRouteRow => ({
  name,
  position: 1,
  kind: 'failover',
  targets: connectors.map((c) => ({ connector: c })),
  filters: {},
  reroute_on: [],
  price: null,
});

describe('a connector as the admin API shows it', () => {
  it('sums the holders of an up connector, with the latest error and the earliest bound holder', () => {
    const view = connectorView(
      connector(),
      [
        row('d1', {
          bound: 2,
          window_in_use: 3,
          waiting: 4,
          rate: 10.25,
          up_since: at('10:00:00'),
          last_error: 'old',
          last_error_at: at('09:00:00'),
        }),
        row('d2', {
          bound: 1,
          window_in_use: 1,
          waiting: 1,
          rate: 5.1,
          up_since: at('11:00:00'),
          last_error: 'ESME_RTHROTTLED',
          last_error_at: at('11:30:00'),
        }),
        row('d3', { down_since: at('08:00:00'), up_since: at('07:00:00') }),
        row('other', { connector: 'elsewhere', bound: 9 }),
      ],
      [route('r1', ['op', 'x']), route('r2', ['x']), route('r3', ['op'])],
    );
    expect(view).toMatchObject({
      name: 'op',
      url: 'smpp://sys:***@smsc.example:2775?window=5',
      binds: 3,
      bind: 'transceiver',
      desiredState: 'started',
      routes: ['r1', 'r3'],
      state: 'up',
      sessions: 3,
      windowInUse: 4,
      waiting: 5,
      rate: 15.4,
      lastError: 'ESME_RTHROTTLED',
      lastErrorAt: '2026-01-01T11:30:00.000Z',
      upSince: '2026-01-01T10:00:00.000Z',
      downSince: null,
    });
    expect(view.holders.map((h) => h.holder)).toEqual(['d1', 'd2', 'd3']);
    expect(view.holders[1]).toEqual({
      connector: 'op',
      holder: 'd2',
      bound: 1,
      windowInUse: 1,
      waiting: 1,
      rate: 5.1,
      lastError: 'ESME_RTHROTTLED',
      lastErrorAt: '2026-01-01T11:30:00.000Z',
      upSince: '2026-01-01T11:00:00.000Z',
      downSince: null,
      reportedAt: '2026-01-01T12:00:00.000Z',
    });
  });

  it('is down since its last holder went down, and down with no report at all', () => {
    const down = connectorView(
      connector(),
      [row('d1', { down_since: at('10:00:00') }), row('d2', { down_since: at('10:05:00') })],
      [],
    );
    expect(down).toMatchObject({
      state: 'down',
      sessions: 0,
      upSince: null,
      downSince: '2026-01-01T10:05:00.000Z',
    });
    expect(connectorView(connector(), [], [])).toMatchObject({
      state: 'down',
      sessions: 0,
      rate: 0,
      lastError: null,
      downSince: null,
      holders: [],
      routes: [],
    });
  });

  it('is stopped when the operator stopped it, whatever its holders say', () => {
    const view = connectorView(
      connector({ desired_state: 'stopped' }),
      [row('d1', { bound: 1 })],
      [],
    );
    expect(view).toMatchObject({ state: 'stopped', desiredState: 'stopped', sessions: 1 });
  });
});

describe('a connector URL as shown', () => {
  it.each([
    ['smpp://sys:S3cret@h:2775?window=5', 'smpp://sys:***@h:2775?window=5'],
    ['smpps://sys:S3cret@h?tls_insecure=true', 'smpps://sys:***@h?tls_insecure=true'],
    ['smpp://sys@h', 'smpp://sys@h'],
    ['https://u:S3cret@up.example/gw?window=2', 'https://u:***@up.example/gw?window=2'],
    [
      'http://up.example/gw?password=S3cret&secret=S3cret',
      'http://up.example/gw?password=***&secret=***',
    ],
    ['not a url S3cret', '***'],
  ])('%s', (url, shown) => {
    expect(maskConnectorUrl(url)).toBe(shown);
    expect(maskConnectorUrl(url)).not.toContain('S3cret');
  });
});
