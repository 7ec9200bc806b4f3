import { Router, type Response } from 'express';
import { StatsQuerySchema, type StatsResult } from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput, type Db } from '@smsgw/kit';
import { statsReport } from '@smsgw/message-log';

export interface StatsRoutesDeps {
  db: Db;
  accountId: (res: Response) => string;
  /** Route and connector names may be grouped and filtered by (SHOW_ROUTES_TO_CUSTOMERS). */
  showRoutes: boolean;
  /** SEARCH_MAX_DAYS. */
  searchMaxDays: number;
}

/**
 * GET /secure/stats: the account's own statistics by hour or day (docs/operators.md §
 * Statistics), read from the hourly rollup. Mounted behind the /secure authentication.
 */
export function createStatsRoutes(deps: StatsRoutesDeps): Router {
  const router = Router();
  router.get(
    '/secure/stats',
    asyncRoute(async (req, res) => {
      const q = parseInput(StatsQuerySchema, req.query);
      if (!deps.showRoutes) {
        if (q.group === 'connector' || q.group === 'route')
          throw HttpError.invalid('group', 'expected country or state');
        for (const field of ['connector', 'route'] as const)
          if (q[field] !== undefined)
            throw HttpError.invalid(field, 'this gateway does not show routes to customers');
      }
      const body: StatsResult = await statsReport(
        deps.db,
        q,
        deps.accountId(res),
        deps.searchMaxDays,
        'customer',
      );
      res.json(body);
    }),
  );
  return router;
}
