import { Router } from 'express';
import {
  STALL_REASON_TEXT,
  StalledBatchesQuerySchema,
  type StalledBatch,
  type StalledBatches,
} from '@smsgw/contracts';
import { asyncRoute, parseInput, type Db } from '@smsgw/kit';
import { stalledBatches, type StalledBatchRow } from '@smsgw/store';
import { requireScope } from './admin-scopes';

function stalledView(r: StalledBatchRow): StalledBatch {
  return {
    batchId: r.id,
    accountId: r.account_id,
    state: r.state,
    total: r.total,
    expanded: r.expanded,
    waiting: r.waiting,
    submitting: r.submitting,
    since: r.since.toISOString(),
    stalledSeconds: Math.floor(r.stalled_seconds),
    reason: r.reason,
    detail: STALL_REASON_TEXT[r.reason],
  };
}

/**
 * Under the admin router: the batches that stopped moving, with the reason, read from Postgres
 * (docs/reliability.md § A stalled batch). Read here rather than from the batch-scheduler, so the
 * list answers also while no scheduler runs, which is one of the reasons it shows.
 */
export function createBatchAdminRoutes(db: Db): Router {
  const router = Router();
  router.get(
    '/batches/stalled',
    requireScope('batches:read'),
    asyncRoute(async (req, res) => {
      const q = parseInput(StalledBatchesQuerySchema, req.query);
      const rows = await stalledBatches(db, q.after, q.limit);
      const body: StalledBatches = { data: { after: q.after, batches: rows.map(stalledView) } };
      res.json(body);
    }),
  );
  return router;
}
