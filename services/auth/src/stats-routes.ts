import { Router } from 'express';
import { AdminStatsQuerySchema, LiveStatsQuerySchema, type StatsResult } from '@smsgw/contracts';
import { asyncRoute, parseInput, type Db } from '@smsgw/kit';
import { liveStats, statsReport } from '@smsgw/message-log';
import { accountIdByName } from './account-by-name';
import { requireScope } from './admin-scopes';

/**
 * Under the admin router: the statistics of every account, or of one, by hour or day
 * (docs/operators.md § Statistics), read from the hourly rollup, never from the messages; and the
 * last minutes by minute (§ Live), read from the messages of the newest partition.
 */
export function createStatsRoutes(db: Db, searchMaxDays: number): Router {
  const router = Router();
  router.get(
    '/stats',
    requireScope('messages:read'),
    asyncRoute(async (req, res) => {
      const q = parseInput(AdminStatsQuerySchema, req.query);
      const accountId = await accountIdByName(db, q.account);
      const { account: _account, ...query } = q;
      const body: StatsResult = await statsReport(db, query, accountId, searchMaxDays);
      res.json(body);
    }),
  );
  router.get(
    '/stats/live',
    requireScope('messages:read'),
    asyncRoute(async (req, res) => {
      const { minutes } = parseInput(LiveStatsQuerySchema, req.query);
      res.set('Cache-Control', 'no-store').json(await liveStats(db, minutes));
    }),
  );
  return router;
}
