import { Router } from 'express';
import {
  AdminStatsQuerySchema,
  STATS_DEFAULTS,
  STATS_TOO_MANY_ROWS,
  statsAnswer,
  statsRange,
  type StatsResult,
} from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput, type Db } from '@smsgw/kit';
import { findAccountByUsername, readStatsReport } from '@smsgw/store';
import { requireScope } from './admin-scopes';

/**
 * Under the admin router: the statistics of every account, or of one, by hour or day
 * (docs/operators.md § Statistics), read from the hourly rollup, never from the messages.
 */
export function createStatsRoutes(db: Db, searchMaxDays: number): Router {
  const router = Router();
  router.get(
    '/stats',
    requireScope('messages:read'),
    asyncRoute(async (req, res) => {
      const q = parseInput(AdminStatsQuerySchema, req.query);
      const now = new Date();
      const range = statsRange(q, now, searchMaxDays);
      if ('field' in range) throw HttpError.invalid(range.field, range.text);
      let accountId: string | undefined;
      if (q.account !== undefined) {
        const account = await findAccountByUsername(db, q.account);
        if (!account) throw HttpError.notFound(`No account ${q.account}`);
        accountId = account.id;
      }
      const filter = { ...q, ...range, accountId };
      const report = await readStatsReport(db, filter, STATS_DEFAULTS.maxRows, now);
      if (!report) throw HttpError.invalid('period', STATS_TOO_MANY_ROWS);
      const body: StatsResult = statsAnswer({
        ...filter,
        rows: report.rows,
        totals: report.totals,
        ...report.freshness,
      });
      res.json(body);
    }),
  );
  return router;
}
