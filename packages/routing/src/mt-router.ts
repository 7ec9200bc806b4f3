import { PollingLoop, type Logger, type Queryable } from '@smsgw/kit';
import { listMtRoutes, mtRoutesVersion } from '@smsgw/store';
import type { PriceBook } from './price-book';
import { RouteTable, type RouteDecision, type RoutedMessage } from './route-table';

export class RoutesNotLoadedError extends Error {
  override name = 'RoutesNotLoadedError';
}

/** The account's price list lists no price for the destination, and has no default row. */
export class NoPriceError extends Error {
  override name = 'NoPriceError';
}

export interface MtRouterOptions {
  /** How often the routes' version is read; a change reloads the table (docs/routing.md). */
  refreshMs: number;
  /**
   * Where a process that accepts messages finds the price lists (docs/billing.md): a listed price
   * replaces the route's price in the decision. Dispatchers, which only reroute, have none.
   */
  prices?: PriceBook | undefined;
}

/**
 * The one place that decides where a message goes: the current RouteTable, read from Postgres at
 * start and reloaded within `refreshMs` of a change made through the admin API, on every gateway
 * and dispatcher, without a restart.
 */
export class MtRouter {
  private table = new RouteTable([]);
  /** Priced decisions by the table's decision they price; dropped with the table's decisions. */
  private priced = new WeakMap<RouteDecision, Map<string, RouteDecision>>();
  private version: string | undefined;
  /** Until the first read, no message is routed: an empty table would send all to `default`. */
  private loaded = false;
  private readonly loop: PollingLoop;

  constructor(
    private readonly db: Queryable,
    private readonly logger: Logger,
    private readonly options: MtRouterOptions,
  ) {
    this.loop = new PollingLoop(() => this.refresh(), logger, 'reloading the MT routes');
  }

  /** Reads the routes at once and then every refreshMs, retrying while the database is away. */
  start(): void {
    this.loop.start(this.options.refreshMs);
  }

  /** The routes were read at least once. */
  get ready(): boolean {
    return this.loaded;
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Reloads the table when the routes changed since the last read. */
  async refresh(): Promise<void> {
    const version = await mtRoutesVersion(this.db);
    if (version === this.version) return;
    const rows = await listMtRoutes(this.db);
    this.table = new RouteTable(rows);
    this.version = version;
    this.loaded = true;
    this.logger.info({ routes: rows.length }, 'MT routes loaded');
    for (const { name, reason } of this.table.unusable)
      this.logger.error(
        { route: name, reason },
        'MT route takes no message: fix it through the admin API',
      );
  }

  /**
   * The route that takes the message, priced by the account's list when it has one; undefined
   * when no route does. Throws before the first read, and NoPriceError when the account's list
   * has no price for the destination.
   */
  decide(message: RoutedMessage, at?: Date): RouteDecision | undefined {
    if (!this.loaded) throw new RoutesNotLoadedError('the MT routes have not been read yet');
    const prices = this.options.prices;
    const decision = this.table.decide(this.withGroup(message), at);
    if (!decision || !prices || message.accountId === undefined) return decision;
    const listed = prices.priceFor(message.accountId, message.to, at?.getTime());
    if (listed === undefined) return decision;
    if (listed === 'unlisted')
      throw new NoPriceError(`No price is listed for messages to ${message.to}`);
    return this.pricedDecision(decision, listed.price, listed.versionId);
  }

  /** The message with its account's group, when a route serves groups and the caller did not say. */
  private withGroup(message: RoutedMessage): RoutedMessage {
    const prices = this.options.prices;
    if (!this.table.filtersByGroup || message.accountGroup !== undefined) return message;
    if (!prices || message.accountId === undefined) return message;
    return { ...message, accountGroup: prices.groupOf(message.accountId) };
  }

  /**
   * The decision with a listed price, the same object for the same route, connectors and price,
   * as RouteTable hands out, so that callers may still group messages by identity.
   */
  private pricedDecision(decision: RouteDecision, price: string, versionId: string): RouteDecision {
    let byPrice = this.priced.get(decision);
    if (!byPrice) this.priced.set(decision, (byPrice = new Map<string, RouteDecision>()));
    const key = `${versionId}/${price}`;
    let priced = byPrice.get(key);
    if (!priced) {
      priced = Object.freeze({ ...decision, price, priceVersion: versionId });
      byPrice.set(key, priced);
    }
    return priced;
  }

  /**
   * The lowest price a message of this account can have: a route's or its price list's, the lower;
   * null when neither sets one (the account's rate applies).
   */
  lowestPriceFor(username: string, accountId: string): string | null {
    const route = this.table.lowestPriceFor(username);
    const listed = this.loaded ? this.options.prices?.lowestPriceFor(accountId) : undefined;
    if (listed === undefined) return route;
    return route === null || Number(listed) < Number(route) ? listed : route;
  }

  /** The SMPP statuses of the route that pass its messages to the next connector. */
  reroutesOn(route: string | null, status: string): boolean {
    return route !== null && (this.table.route(route)?.rerouteOn.has(status) ?? false);
  }

  get current(): RouteTable {
    return this.table;
  }
}
