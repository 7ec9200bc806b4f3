import type { ErrorItem } from '@smsgw/contracts';
import { HttpError } from '@smsgw/kit';
import type { MtRouter, RouteDecision } from '@smsgw/routing';
import { routeOrRefuse } from '@smsgw/acceptance';
import type { BatchPlan, PlannedEntry } from './batch-plan';

/** Unroutable recipients listed in the 400; the count says how many there were in all. */
const MAX_LISTED = 100;
/** Recipients routed between two looks at the clock. */
const RECIPIENTS_PER_STEP = 256;
/** How long routing holds the event loop at most before giving it a turn. */
export const ROUTING_SLICE_MS = 10;

/**
 * Gives every recipient of the batch its route, as a single send gets one, and splits each entry
 * into one entry per route decision (route, connectors, price): the batch is charged the sum of
 * its recipients' route prices, and each expanded message keeps its route. A recipient no route
 * takes refuses the whole batch, before anything is charged. The event loop gets a turn whenever
 * routing has held it for `sliceMs`, so a batch of a million recipients tried against time-window
 * and pattern routes does not hold up other customers' requests (nor, in embedded mode, the SMPP
 * sessions) meanwhile.
 */
export async function routeBatchInSlices(
  router: MtRouter,
  account: { accountId: string; username: string },
  plan: BatchPlan,
  sliceMs = ROUTING_SLICE_MS,
): Promise<void> {
  const steps = routingSteps(router, account, plan);
  let sliceStart = performance.now();
  while (!steps.next().done) {
    if (performance.now() - sliceStart < sliceMs) continue;
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  }
}

/** The routing itself, stopping after every RECIPIENTS_PER_STEP recipients. */
function* routingSteps(
  router: MtRouter,
  { accountId, username: accountUsername }: { accountId: string; username: string },
  plan: BatchPlan,
): Generator<void, void> {
  const routed: PlannedEntry[] = [];
  const refused: ErrorItem[] = [];
  let unroutable = 0;
  let unpriced = 0;
  let sinceStep = 0;
  for (const [index, entry] of plan.entries.entries()) {
    // Decisions are shared per route and connector (RouteTable), so they group by identity.
    const byDecision = new Map<RouteDecision, string[]>();
    const tags = entry.params['tags'] as (string | number)[] | undefined;
    for (const to of entry.recipients) {
      if (++sinceStep === RECIPIENTS_PER_STEP) {
        sinceStep = 0;
        yield;
      }
      let routing: RouteDecision;
      try {
        routing = routeOrRefuse(router, { to, accountUsername, accountId, from: entry.from, tags });
      } catch (err) {
        if (!(err instanceof HttpError) || (err.code !== 'NO_ROUTE' && err.code !== 'NO_PRICE'))
          throw err;
        const listed = unroutable + unpriced < MAX_LISTED;
        if (err.code === 'NO_ROUTE') unroutable++;
        else unpriced++;
        if (listed)
          refused.push({
            index,
            field: 'to',
            message:
              err.code === 'NO_ROUTE'
                ? `no route takes messages to ${to}`
                : `no price is listed for messages to ${to}`,
          });
        continue;
      }
      const group = byDecision.get(routing);
      if (group) group.push(to);
      else byDecision.set(routing, [to]);
    }
    for (const [routing, recipients] of byDecision) routed.push({ ...entry, recipients, routing });
  }
  if (unroutable > 0)
    throw new HttpError(
      'NO_ROUTE',
      `No route takes ${unroutable} recipient${unroutable === 1 ? '' : 's'} of the batch; nothing was sent`,
      { errors: refused },
    );
  if (unpriced > 0)
    throw new HttpError(
      'NO_PRICE',
      `No price is listed for ${unpriced} recipient${unpriced === 1 ? '' : 's'} of the batch; nothing was sent`,
      { errors: refused },
    );
  plan.entries = routed;
}
