import {
  DEFAULT_CONNECTOR,
  RouteFiltersSchema,
  compileRoutePattern,
  type RouteFilters,
  type RouteKind,
} from '@smsgw/contracts';
import type { MtRouteRow } from '@smsgw/store';
import { inTimeWindow } from './time-window';

/** What routing needs to know of a message. */
export interface RoutedMessage {
  /** Destination, digits only. */
  to: string;
  accountUsername: string;
  /** The sender the message goes out with; null lets the SMSC choose. */
  from: string | null;
  tags?: readonly (string | number)[] | undefined;
  /** The sending account, for the price list that prices it (docs/billing.md); absent: none. */
  accountId?: string | undefined;
  /** The account's customer group, for routes that serve groups; null or absent: none. */
  accountGroup?: string | null | undefined;
}

/**
 * Where a message goes, decided at acceptance and kept on the message. A table hands out the same
 * object for every message of the same route and connector, so callers may group by identity and
 * must not change it.
 */
export interface RouteDecision {
  /** The route's name; null when the gateway has no routes and everything goes to `default`. */
  readonly route: string | null;
  /**
   * The connectors it may go through, in order: one, a failover route's list, or a weighted route's
   * drawn connector followed by its others.
   */
  readonly connectors: readonly string[];
  /** Price per message part; null keeps the account's rate. */
  readonly price: string | null;
  /** The price list version the price comes from; absent or null: the route's price or the rate. */
  readonly priceVersion?: string | null;
}

const TO_DEFAULT: RouteDecision = Object.freeze({
  route: null,
  connectors: Object.freeze([DEFAULT_CONNECTOR]),
  price: null,
});

export interface CompiledRoute {
  name: string;
  position: number;
  kind: RouteKind;
  connectors: string[];
  /** Cumulative weights of a weighted route's connectors, for one draw per message. */
  cumulative: number[];
  /** What the route decides: one decision, or one per drawn connector of a weighted route. */
  decisions: RouteDecision[];
  rerouteOn: ReadonlySet<string>;
  price: string | null;
  filters: RouteFilters;
  /** Whether the whole destination matches the route's pattern (RE2: linear time). */
  pattern: ((destination: string) => boolean) | undefined;
  accounts: ReadonlySet<string> | undefined;
  groups: ReadonlySet<string> | undefined;
  senders: ReadonlySet<string> | undefined;
  tags: ReadonlySet<string> | undefined;
}

/** Destination prefixes are at most this long (E.164 numbers have 15 digits). */
const MAX_PREFIX = 15;

function compile(row: MtRouteRow): CompiledRoute {
  // Rows were validated by the admin API; parsing again only guards against hand-edited rows.
  const filters = RouteFiltersSchema.parse(row.filters);
  let total = 0;
  const cumulative = row.targets.map((t) => (total += t.weight ?? 1));
  const connectors = row.targets.map((t) => t.connector);
  const decision = (list: string[]): RouteDecision =>
    Object.freeze({ route: row.name, connectors: Object.freeze(list), price: row.price });
  return {
    name: row.name,
    position: row.position,
    kind: row.kind,
    connectors,
    cumulative,
    // A weighted route's draw comes first and the others follow in the route's order: a message
    // whose drawn connector is stopped, down or refuses it fails over to them as on a failover route.
    decisions:
      row.kind === 'weighted'
        ? connectors.map((c, i) => decision([c, ...connectors.filter((_, j) => j !== i)]))
        : [decision(connectors)],
    rerouteOn: new Set(row.reroute_on),
    price: row.price,
    filters,
    pattern: filters.pattern === undefined ? undefined : compileRoutePattern(filters.pattern),
    accounts: filters.accounts && new Set(filters.accounts),
    groups: filters.groups && new Set(filters.groups),
    senders: filters.senders && new Set(filters.senders),
    tags: filters.tags && new Set(filters.tags),
  };
}

/**
 * The MT routes, compiled so that a message finds its route without walking them all: routes
 * with destination prefixes are indexed by prefix, and a destination looks up each of its own
 * prefixes (at most 15), so a table of thousands of prefix routes costs a message a few map
 * lookups. The first route by position whose filters all match takes the message.
 */
export class RouteTable {
  private readonly routes: CompiledRoute[];
  /**
   * Routes whose stored filters the admin API would refuse today (a pattern RE2 cannot run, a
   * route with tags open to every account without saying so): they take no message.
   */
  readonly unusable: { name: string; reason: string }[] = [];
  private readonly byPrefix = new Map<string, number[]>();
  /** Routes without prefixes: every message is a candidate for them. */
  private readonly unprefixed: number[] = [];
  private readonly byName = new Map<string, CompiledRoute>();
  /** The lengths the prefixes have, longest last: a destination looks up only those. */
  private readonly prefixLengths: number[];
  /** Whether a route serves customer groups: only then does a message need its account's group. */
  readonly filtersByGroup: boolean;

  constructor(
    rows: readonly MtRouteRow[],
    private readonly random: () => number = Math.random,
  ) {
    this.routes = [];
    for (const row of [...rows].sort((a, b) => a.position - b.position)) {
      try {
        this.routes.push(compile(row));
      } catch (err) {
        this.unusable.push({ name: row.name, reason: (err as Error).message });
      }
    }
    this.filtersByGroup = this.routes.some((r) => r.groups !== undefined);
    this.routes.forEach((route, i) => {
      this.byName.set(route.name, route);
      const prefixes = route.filters.prefixes;
      if (!prefixes) {
        this.unprefixed.push(i);
        return;
      }
      for (const prefix of new Set(prefixes)) {
        const list = this.byPrefix.get(prefix);
        if (list) list.push(i);
        else this.byPrefix.set(prefix, [i]);
      }
    });
    this.prefixLengths = [...new Set([...this.byPrefix.keys()].map((p) => p.length))].sort(
      (a, b) => a - b,
    );
  }

  /**
   * The lowest price a route this account may use sets, or null when none sets one: a cheap route
   * kept for one account says nothing of what another account's messages cost.
   */
  lowestPriceFor(username: string): string | null {
    let lowest: string | null = null;
    for (const r of this.routes)
      if (
        r.price !== null &&
        (!r.accounts || r.accounts.has(username)) &&
        (lowest === null || Number(r.price) < Number(lowest))
      )
        lowest = r.price;
    return lowest;
  }

  /** How many routes name this connector. */
  routesUsing(connector: string): number {
    return this.routes.filter((r) => r.connectors.includes(connector)).length;
  }

  get size(): number {
    return this.routes.length;
  }

  route(name: string): CompiledRoute | undefined {
    return this.byName.get(name);
  }

  /** The route that takes the message, or undefined when none does (the message is refused). */
  decide(message: RoutedMessage, at: Date = new Date()): RouteDecision | undefined {
    if (this.routes.length === 0) return TO_DEFAULT;
    const route = this.match(message, at);
    if (!route) return undefined;
    return this.decisionOf(route);
  }

  /**
   * The route that would take the message, undrawn (a weighted route with all its connectors):
   * what "which route would this number take?" answers. Undefined when none would.
   */
  routeFor(message: RoutedMessage, at: Date = new Date()): CompiledRoute | undefined {
    return this.match(message, at);
  }

  private match(message: RoutedMessage, at: Date): CompiledRoute | undefined {
    let best = Number.POSITIVE_INFINITY;
    const consider = (candidates: readonly number[] | undefined): void => {
      if (!candidates) return;
      for (const i of candidates) {
        if (i >= best) break;
        if (this.matches(this.routes[i], message, at)) best = i;
      }
    };
    const to = message.to;
    for (const length of this.prefixLengths) {
      if (length > to.length || length > MAX_PREFIX) break;
      consider(this.byPrefix.get(to.slice(0, length)));
    }
    consider(this.unprefixed);
    return best === Number.POSITIVE_INFINITY ? undefined : this.routes[best];
  }

  /** Every filter but the prefixes, which the index has checked. */
  private matches(route: CompiledRoute, message: RoutedMessage, at: Date): boolean {
    if (route.pattern && !route.pattern(message.to)) return false;
    if (route.accounts && !route.accounts.has(message.accountUsername)) return false;
    if (route.groups && (!message.accountGroup || !route.groups.has(message.accountGroup)))
      return false;
    if (route.senders && (message.from === null || !route.senders.has(message.from))) return false;
    if (route.tags) {
      const tags = route.tags;
      if (!message.tags?.some((t) => tags.has(String(t)))) return false;
    }
    if (route.filters.window && !inTimeWindow(route.filters.window, at)) return false;
    return true;
  }

  private decisionOf(route: CompiledRoute): RouteDecision {
    if (route.kind !== 'weighted') return route.decisions[0];
    const draw = this.random() * route.cumulative[route.cumulative.length - 1];
    const i = route.cumulative.findIndex((c) => draw < c);
    return route.decisions[i === -1 ? route.decisions.length - 1 : i];
  }
}
