import { PollingLoop, type Logger, type Queryable } from '@smsgw/kit';
import { listMtRoutes, mtRoutesVersion } from '@smsgw/store';
import { RouteTable, type RouteDecision, type RoutedMessage } from './route-table';

export class RoutesNotLoadedError extends Error {
  override name = 'RoutesNotLoadedError';
}

export interface MtRouterOptions {
  /** How often the routes' version is read; a change reloads the table (docs/routing.md). */
  refreshMs: number;
}

/**
 * The one place that decides where a message goes: the current RouteTable, read from Postgres at
 * start and reloaded within `refreshMs` of a change made through the admin API, on every gateway
 * and dispatcher, without a restart.
 */
export class MtRouter {
  private table = new RouteTable([]);
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

  /** The route that takes the message; undefined when none does. Throws before the first read. */
  decide(message: RoutedMessage, at?: Date): RouteDecision | undefined {
    if (!this.loaded) throw new RoutesNotLoadedError('the MT routes have not been read yet');
    return this.table.decide(message, at);
  }

  /** The SMPP statuses of the route that pass its messages to the next connector. */
  reroutesOn(route: string | null, status: string): boolean {
    return route !== null && (this.table.route(route)?.rerouteOn.has(status) ?? false);
  }

  get current(): RouteTable {
    return this.table;
  }
}
