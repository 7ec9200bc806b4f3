import { Router, type Response } from 'express';
import { SendRequestSchema, type Principal } from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput } from '@smsgw/kit';
import type { MtRouter } from '@smsgw/routing';
import { planMessage, routeOrRefuse, type MessageStore } from '@smsgw/acceptance';

/** What Jasmin's REST ping answers ("a static Jasmin/PONG value in data"). */
export const JASMIN_PONG = { data: 'Jasmin/PONG' } as const;

export interface JasminRestRoutesDeps {
  store: MessageStore;
  router: MtRouter;
  maxParts: number;
}

/**
 * The read-only services of Jasmin's REST interface that the gateway's own routes do not cover:
 * `GET /ping`, `GET /secure/ping` (the same, with credentials checked) and `GET /secure/rate` with
 * the message in the query and Jasmin's answer (`submit_sm_count`, `unit_rate`). Mounted after the
 * `/secure` guards, which authenticate the two under it.
 */
export function createJasminRestRoutes(deps: JasminRestRoutesDeps): Router {
  const router = Router();
  const principal = (res: Response): Principal => res.locals['principal'] as Principal;

  router.get('/ping', (_req, res) => {
    res.json(JASMIN_PONG);
  });
  router.get('/secure/ping', (_req, res) => {
    res.json(JASMIN_PONG);
  });

  router.get(
    '/secure/rate',
    asyncRoute(async (req, res) => {
      // Jasmin's rate.py: "Content is optional, defaults to empty content string"; a message
      // without content is one part in the default coding.
      const query = req.query as Record<string, unknown>;
      const bare = query['content'] === undefined && query['hex-content'] === undefined;
      const request = parseInput(SendRequestSchema, bare ? { ...query, content: ' ' } : query);
      const plan = planMessage(request, deps.maxParts);
      const { accountId, username } = principal(res);
      const routing = routeOrRefuse(deps.router, {
        to: request.to,
        accountUsername: username,
        accountId,
        from: request.from ?? null,
        tags: request.tags,
      });
      const price = await deps.store.price(accountId, plan.segments, routing.price);
      if (!price) throw HttpError.unauthorized('Account no longer exists');
      // Jasmin answers numbers here (json.dumps of its bill), unlike the balance's strings.
      res.json({ data: { submit_sm_count: plan.segments, unit_rate: Number(price.rate) } });
    }),
  );
  return router;
}
