import type { InboundMessageRow, MoRouteRow } from '@smsgw/store';

/**
 * The first route whose filters all match the message, or undefined. A route takes messages of
 * its own connector only, unless it says any connector may bring them: what an upstream claims as
 * `to` then cannot reach the routes of the numbers another connector serves.
 */
export function matchMoRoute(
  routes: readonly MoRouteRow[],
  message: Pick<InboundMessageRow, 'to_addr' | 'keyword' | 'connector'>,
): MoRouteRow | undefined {
  return routes.find(
    (r) =>
      (r.any_connector || r.connector === message.connector) &&
      (r.to_number === null ||
        (r.to_exact ? message.to_addr === r.to_number : message.to_addr.startsWith(r.to_number))) &&
      (r.keyword === null || r.keyword.toUpperCase() === (message.keyword ?? '')),
  );
}
