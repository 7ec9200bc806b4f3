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
