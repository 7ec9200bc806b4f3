import type { Db } from '@smsgw/kit';

export type OpenBatchState = 'scheduled' | 'running';

/** Batches not finished yet, by state (the batches_open index covers the query). */
export async function countOpenBatches(db: Db): Promise<Record<OpenBatchState, number>> {
  const { rows } = await db.query<{ state: OpenBatchState; n: number }>(
    `SELECT state, count(*)::int AS n FROM batches WHERE state IN ('scheduled', 'running') GROUP BY state`,
  );
  const counts: Record<OpenBatchState, number> = { scheduled: 0, running: 0 };
  for (const row of rows) counts[row.state] = row.n;
  return counts;
}
