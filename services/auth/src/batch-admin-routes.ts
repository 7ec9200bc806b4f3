import { Router } from 'express';
import {
  FINISHED_BATCH_STATES,
  STALL_REASON_TEXT,
  StalledBatchesQuerySchema,
  UUID_PATTERN,
  formatDecimal,
  type StalledBatch,
  type StalledBatches,
} from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput, type Db } from '@smsgw/kit';
import { cancelBatch, lockBatchById, stalledBatches, type StalledBatchRow } from '@smsgw/store';
import type { AdminAudit } from './admin-audit';
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
 * (docs/reliability.md § A stalled batch), and an operator's cancel of a batch. Read here rather than from the batch-scheduler, so the
 * list answers also while no scheduler runs, which is one of the reasons it shows.
 */
export function createBatchAdminRoutes(db: Db, audit: AdminAudit): Router {
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

  // An operator cancels a batch of any account, as its customer would: what is not submitted yet
  // is cancelled and refunded, in the same statement the customer's cancel runs.
  router.delete(
    '/batches/:id',
    requireScope('accounts:write'),
    asyncRoute(async (req, res) => {
      const id = String(req.params['id']);
      if (!UUID_PATTERN.test(id)) throw HttpError.notFound(`No batch ${id}`);
      const refunded = await db.transaction(async (tx) => {
        const batch = await lockBatchById(tx, id);
        if (!batch) throw HttpError.notFound(`No batch ${id}`);
        if (FINISHED_BATCH_STATES.some((finished) => finished === batch.state))
          throw new HttpError('CONFLICT', 'The batch is already completed or cancelled');
        const amount = formatDecimal((await cancelBatch(tx, id)) ?? '0');
        await audit.hook(req, res, 200, { refunded: amount })(tx);
        return amount;
      });
      res.json({ data: { batchId: id, state: 'cancelled', refunded } });
    }),
  );
  return router;
}
