import { HttpError } from '@smsgw/kit';
import {
  RoutesNotLoadedError,
  type MtRouter,
  type RouteDecision,
  type RoutedMessage,
} from '@smsgw/routing';

/**
 * The route a message takes, decided at acceptance so that it is charged its route's price; a
 * message no route takes is refused before anything is charged.
 */
export function routeOrRefuse(router: MtRouter, message: RoutedMessage): RouteDecision {
  let decision: RouteDecision | undefined;
  try {
    decision = router.decide(message);
  } catch (err) {
    if (err instanceof RoutesNotLoadedError)
      throw new HttpError('SERVICE_UNAVAILABLE', 'Routes are not loaded yet; try again');
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
