import { HttpError, type Db, type Logger } from '@smsgw/kit';
import { acceptanceDefaults } from './defaults';
import {
  MtRouter,
  NoPriceError,
  PriceBook,
  PricesNotLoadedError,
  RoutesNotLoadedError,
  type RouteDecision,
  type RoutedMessage,
} from '@smsgw/routing';

/**
 * The route a message takes and its price, decided at acceptance (docs/billing.md § Which price
 * applies); a message no route takes, or that the account's list does not price, is refused
 * before anything is charged.
 */
export function routeOrRefuse(router: MtRouter, message: RoutedMessage): RouteDecision {
  let decision: RouteDecision | undefined;
  try {
    decision = router.decide(message);
  } catch (err) {
    if (err instanceof RoutesNotLoadedError)
      throw new HttpError('SERVICE_UNAVAILABLE', 'Routes are not loaded yet; try again');
    if (err instanceof PricesNotLoadedError)
      throw new HttpError('SERVICE_UNAVAILABLE', 'Price lists are not loaded yet; try again');
    // Refused before anything is charged, as a message no route takes.
    if (err instanceof NoPriceError) throw new HttpError('NO_PRICE', err.message, { field: 'to' });
    throw err;
  }
  if (!decision)
    throw new HttpError('NO_ROUTE', `No route takes messages to ${message.to}`, { field: 'to' });
  return decision;
}

/**
 * A message's status without its route and connector names: which operator links and prices an
 * operator has are its own business, shown to customers only where SHOW_ROUTES_TO_CUSTOMERS says.
 */
export function withoutRouting<
  T extends { route?: unknown; connector?: unknown; connectorTrail?: unknown },
>(status: T): Omit<T, 'route' | 'connector' | 'connectorTrail'> {
  const { route: _route, connector: _connector, connectorTrail: _trail, ...rest } = status;
  return rest;
}

/**
 * The router of a process that accepts messages: the MT routes and the price lists, both read at
 * start and reloaded when they change. `stop` ends both reloads.
 */
export function createAcceptanceRouter(
  db: Db,
  logger: Logger,
): { router: MtRouter; stop: () => Promise<void> } {
  const prices = new PriceBook(db, logger, { refreshMs: acceptanceDefaults.pricesRefreshMs });
  const router = new MtRouter(db, logger, {
    refreshMs: acceptanceDefaults.routesRefreshMs,
    prices,
  });
  prices.start();
  router.start();
  return {
    router,
    stop: async () => {
      await router.stop();
      await prices.stop();
    },
  };
}
