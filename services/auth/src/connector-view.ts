import type { ConnectorStatus, ConnectorView, MtRouteView } from '@smsgw/contracts';
import type { ConnectorRow, ConnectorStatusRow, MtRouteRow } from '@smsgw/store';
import { insecureTransportWarning, transportSecurity } from '@smsgw/smsc';
import { maskConnectorUrl } from './connector-url-mask';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const earliest = (dates: Date[]): Date | null =>
  dates.length > 0 ? new Date(Math.min(...dates.map((d) => d.getTime()))) : null;
const latest = (dates: Date[]): Date | null =>
  dates.length > 0 ? new Date(Math.max(...dates.map((d) => d.getTime()))) : null;

function holderView(s: ConnectorStatusRow): ConnectorStatus {
  return {
    connector: s.connector,
    holder: s.holder,
    bound: s.bound,
    windowInUse: s.window_in_use,
    waiting: s.waiting,
    rate: s.rate,
    lastError: s.last_error,
    lastErrorAt: iso(s.last_error_at),
    upSince: iso(s.up_since),
    downSince: iso(s.down_since),
    reportedAt: s.reported_at.toISOString(),
  };
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
};

/**
 * A connector as the admin API shows it: its URL without secrets, the routes that use it, and the
 * fresh status rows of every dispatcher holding its sessions summed into one state. `status` and
 * `routes` may hold other connectors' rows; only this one's count.
 */
export function connectorView(
  c: ConnectorRow,
  status: ConnectorStatusRow[],
  routes: MtRouteRow[],
): ConnectorView {
  const own = status.filter((s) => s.connector === c.name);
  const sum = (pick: (s: ConnectorStatusRow) => number) => own.reduce((n, s) => n + pick(s), 0);
  const sessions = sum((s) => s.bound);
  const lastError = own
    .filter((s) => s.last_error !== null)
    .sort((a, b) => (b.last_error_at?.getTime() ?? 0) - (a.last_error_at?.getTime() ?? 0))[0];
  // Up since the first holder still bound came up; down since the last one went down.
  const upSince = earliest(own.flatMap((s) => (s.bound > 0 && s.up_since ? [s.up_since] : [])));
  const downSince = latest(own.flatMap((s) => (s.down_since ? [s.down_since] : [])));
  const transport = transportSecurity(c.url) ?? 'plain';
  return {
    name: c.name,
    url: maskConnectorUrl(c.url),
    binds: c.binds,
    bind: c.bind_mode,
    desiredState: c.desired_state,
    routes: routes.filter((r) => r.targets.some((t) => t.connector === c.name)).map((r) => r.name),
    state: c.desired_state === 'stopped' ? 'stopped' : sessions > 0 ? 'up' : 'down',
    transport,
    insecure: insecureTransportWarning(transport, hostOf(c.url)) !== undefined,
    sessions,
    windowInUse: sum((s) => s.window_in_use),
    waiting: sum((s) => s.waiting),
    rate: Math.round(sum((s) => s.rate) * 10) / 10,
    lastError: lastError?.last_error ?? null,
    lastErrorAt: iso(lastError?.last_error_at ?? null),
    upSince: sessions > 0 ? iso(upSince) : null,
    downSince: sessions === 0 ? iso(downSince) : null,
    holders: own.map(holderView),
  };
}

/** An MT route as the admin API shows it: the price as an exact decimal string. */
export function routeView(r: MtRouteRow): MtRouteView {
  return {
    name: r.name,
    position: r.position,
    kind: r.kind,
    connectors: r.targets,
    filters: r.filters,
    reroute_on: r.reroute_on,
    price: r.price,
  };
}
