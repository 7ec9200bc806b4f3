import type { ErrorItem } from '@smsgw/contracts';
import { HttpError } from '@smsgw/kit';
import type { MtRouter, RouteDecision } from '@smsgw/routing';
import { routeOrRefuse } from './message-routing';
import type { BatchPlan, PlannedEntry } from './batch-plan';

/** Unroutable recipients listed in the 400; the count says how many there were in all. */
const MAX_LISTED = 100;

/**
 * Gives every recipient of the batch its route, as a single send gets one, and splits each entry
 * into one entry per route decision (route, connectors, price): the batch is charged the sum of
 * its recipients' route prices, and each expanded message keeps its route. A recipient no route
 * takes refuses the whole batch, before anything is charged.
 */
export function routeBatch(router: MtRouter, accountUsername: string, plan: BatchPlan): void {
  const routed: PlannedEntry[] = [];
  const refused: ErrorItem[] = [];
  let unroutable = 0;
  plan.entries.forEach((entry, index) => {
    // Decisions are shared per route and connector (RouteTable), so they group by identity.
    const byDecision = new Map<RouteDecision, string[]>();
    const tags = entry.params['tags'] as (string | number)[] | undefined;
    for (const to of entry.recipients) {
      let routing: RouteDecision;
      try {
        routing = routeOrRefuse(router, { to, accountUsername, from: entry.from, tags });
      } catch (err) {
        if (!(err instanceof HttpError) || err.code !== 'NO_ROUTE') throw err;
        if (++unroutable <= MAX_LISTED)
          refused.push({ index, field: 'to', message: `no route takes messages to ${to}` });
        continue;
      }
      const group = byDecision.get(routing);
      if (group) group.push(to);
      else byDecision.set(routing, [to]);
    }
    for (const [routing, recipients] of byDecision) routed.push({ ...entry, recipients, routing });
  });
  if (unroutable > 0)
    throw new HttpError(
      'NO_ROUTE',
      `No route takes ${unroutable} recipient${unroutable === 1 ? '' : 's'} of the batch; nothing was sent`,
      { errors: refused },
    );
  plan.entries = routed;
}
