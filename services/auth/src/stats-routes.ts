import { Router } from 'express';
import {
  AdminStatsQuerySchema,
  LiveStatsQuerySchema,
  type LiveStats,
  type StatsResult,
} from '@smsgw/contracts';
import { asyncRoute, parseInput, type Db } from '@smsgw/kit';
import { liveStats, statsReport } from '@smsgw/message-log';
import { accountIdByName } from './account-by-name';
import { requireScope } from './admin-scopes';

/** How long one reading of the last minutes answers every request for the same range. */
const LIVE_SHARED_MS = 4000;

/**
 * Under the admin router: the statistics of every account, or of one, by hour or day
 * (docs/operators.md § Statistics), read from the hourly rollup, never from the messages; and the
 * last minutes by minute (§ Live), read from the messages of the newest partition.
 */
export function createStatsRoutes(db: Db, searchMaxDays: number): Router {
  const router = Router();
  // Each reading scans the range's messages: consoles open at once share one per LIVE_SHARED_MS.
  const live = new Map<number, { at: number; answer: Promise<LiveStats> }>();
  const liveOf = (minutes: number): Promise<LiveStats> => {
    const now = Date.now();
    const kept = live.get(minutes);
    if (kept && now - kept.at < LIVE_SHARED_MS) return kept.answer;
    const answer = liveStats(db, minutes);
    live.set(minutes, { at: now, answer });
    answer.catch(() => live.delete(minutes));
    return answer;
  };
  router.get(
    '/stats',
    requireScope('messages:read'),
    asyncRoute(async (req, res) => {
      const q = parseInput(AdminStatsQuerySchema, req.query);
      const accountId = await accountIdByName(db, q.account);
      const { account: _account, ...query } = q;
      const body: StatsResult = await statsReport(db, query, accountId, searchMaxDays, 'operator');
      res.json(body);
    }),
  );
  router.get(
    '/stats/live',
    requireScope('messages:read'),
    asyncRoute(async (req, res) => {
      const { minutes } = parseInput(LiveStatsQuerySchema, req.query);
      res.set('Cache-Control', 'no-store').json(await liveOf(minutes));
    }),
  );
  return router;
}
