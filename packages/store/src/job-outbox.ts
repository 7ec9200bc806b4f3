import type { Queryable } from '@smsgw/kit';

/**
 * Statements on `job_outbox`: one row names the messages a statement wrote `queued`, until the
 * broker has confirmed their jobs (migration 006).
 * Compound statements elsewhere that also write `job_outbox`: messages.ts ACCEPT_MESSAGES_SQL
 * (adds the group's row, deletes confirmed rows) and batches.ts expandBatchChunk (adds the
 * chunk's row). messages.ts queuedMessagesOfJobOutbox reads the messages its rows name.
 */

/** How many rows lockJobOutboxRowsBefore takes at most. */
export const JOB_OUTBOX_ROWS_PER_ROUND = 50;

/** Rows whose jobs the broker confirmed. */
export async function deleteJobOutboxRows(db: Queryable, ids: readonly string[]): Promise<void> {
  await db.query(`DELETE FROM job_outbox WHERE id = ANY($1::bigint[])`, [ids]);
}

/** One row whose jobs the broker confirmed. */
export async function deleteJobOutboxRow(db: Queryable, id: string): Promise<void> {
  await db.query(`DELETE FROM job_outbox WHERE id = $1`, [id]);
}

/** Every row written until now: the caller re-publishes every queued message itself. */
export async function deleteAllJobOutboxRows(db: Queryable): Promise<void> {
  await db.query(`DELETE FROM job_outbox WHERE created_at <= now()`);
}

/**
 * Up to JOB_OUTBOX_ROWS_PER_ROUND rows written before `cutoff`, locked until the end of the
 * transaction `tx`; rows another transaction holds are passed over.
 */
export async function lockJobOutboxRowsBefore(tx: Queryable, cutoff: Date): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id::text AS id FROM job_outbox WHERE created_at < $1 ORDER BY id LIMIT ${JOB_OUTBOX_ROWS_PER_ROUND} FOR UPDATE SKIP LOCKED`,
    [cutoff],
  );
  return rows.map((r) => r.id);
}
