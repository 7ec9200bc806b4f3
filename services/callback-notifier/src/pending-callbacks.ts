import type { Db } from '@smsgw/kit';

/** Callback requests not yet answered for good, by kind (the callback_attempts_due index covers it). */
export async function countPendingCallbacks(db: Db): Promise<Map<string, number>> {
  const { rows } = await db.query<{ kind: string; n: number }>(
    `SELECT kind, count(*)::int AS n FROM callback_attempts WHERE state = 'pending' GROUP BY kind`,
  );
  return new Map(rows.map((r) => [r.kind, r.n]));
}
