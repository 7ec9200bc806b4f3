import {
  DEFAULT_CONNECTOR,
  FAILED_STATES,
  UNKNOWN_OUTCOME_ERROR,
  OPEN_BATCH_STATES,
  SENT_STATES,
  STALL_REASONS,
  UNSENT_STATES,
  WAITING_STATES,
  type BatchState,
  type OpenBatchState,
  type ReportWish,
  type StallReason,
} from '@smsgw/contracts';
import type { Queryable } from '@smsgw/kit';
import { sqlList } from './sql-list';

/**
 * Statements on `batches` and `batch_entries`. A batch is accepted whole, held until due, and
 * expanded into messages in chunks with a cursor, so a restarted scheduler continues where it
 * stopped. Several statements here also touch `messages`, `accounts`, `credit_ledger` and
 * `job_outbox` (named in each one's comment); outcome-outbox.ts resultEventsInsert reads a
 * batch's URLs, and messages.ts requeueMessage a batch's state (under a share lock).
 */

const OPEN = sqlList(OPEN_BATCH_STATES);

// ---- acceptance and status (api-gateway) ----

/** One batch_entries row: a message of the request, with a slice of its recipients. */
export interface BatchEntryInput {
  seq: number;
  from_addr: string | null;
  content: string | null;
  hex_content: string | null;
  coding: number;
  segments: number;
  params: Record<string, unknown>;
  /** The report wish of its messages (null: none), copied to each message by the expansion. */
  report: ReportWish | null;
  recipients: readonly string[];
  /** The route decision of every recipient of the entry (docs/routing.md). */
  route: string | null;
  connectors: readonly string[];
  /** Price per part; null: the account's rate. */
  price: string | null;
  /** The price list version the price comes from; null: the route's price or the rate. */
  price_version: string | null;
}

export interface NewBatch {
  id: string;
  accountId: string;
  /** Σ segments over every recipient. */
  segments: number;
  recipients: number;
  callbackUrl: string | null;
  errbackUrl: string | null;
  scheduledAt: Date | null;
  entries: readonly BatchEntryInput[];
  /** Recipients left out because they opted out (counted in the batch's status). */
  optedOut: number;
}

/**
 * One statement: debits Σ (route price or rate) × segments over every recipient and the quota
 * (accounts), records the batch, its entries (with their recipient lists, not expanded) and the
 * ledger row (credit_ledger). Nothing is written when short; the batch's cost then.
 */
export async function acceptBatch(db: Queryable, batch: NewBatch): Promise<string | undefined> {
  const { rows } = await db.query<{ cost: string }>(
    `WITH input AS (
         SELECT e.* FROM jsonb_to_recordset($8::jsonb) AS e(seq int, from_addr text, content text, hex_content text,
                                                            coding smallint, segments int, params jsonb, recipients jsonb,
                                                            route text, connectors text[], price numeric, report jsonb,
                                                            price_version bigint)
       ), priced AS (
         SELECT i.*, COALESCE(i.price, a.rate) * i.segments AS unit_cost, jsonb_array_length(i.recipients) AS n
           FROM input i, accounts a WHERE a.id = $2
       ), total AS (
         SELECT COALESCE(sum(unit_cost * n), 0) AS cost FROM priced
       ), debit AS (
         UPDATE accounts
            SET balance = balance - total.cost,
                sms_count = sms_count - $3::bigint,
                updated_at = now()
           FROM total
          WHERE id = $2
            AND (balance IS NULL OR balance - total.cost >= -credit_limit)
            AND (sms_count IS NULL OR sms_count >= $3::bigint)
          RETURNING accounts.id, total.cost AS cost, default_from
       ), batch AS (
         INSERT INTO batches (id, account_id, state, callback_url, errback_url, scheduled_at, total, cost, segments, opted_out)
         SELECT $1, debit.id, CASE WHEN $6::timestamptz IS NULL THEN 'running' ELSE 'scheduled' END, $4, $5, $6, $7, debit.cost, $3, $9
           FROM debit
         RETURNING id, account_id, cost, segments
       ), entries AS (
         INSERT INTO batch_entries (batch_id, seq, from_addr, content, hex_content, coding, segments, unit_cost, params, recipients, size,
                                    route, connectors, report_mask, report_url, report_method, report_style, price_version)
         SELECT batch.id, p.seq, COALESCE(p.from_addr, debit.default_from), p.content, p.hex_content, p.coding, p.segments,
                p.unit_cost, p.params, ARRAY(SELECT jsonb_array_elements_text(p.recipients)), p.n, p.route, p.connectors,
                COALESCE((p.report->>'mask')::smallint, 0), p.report->>'url', p.report->>'method', p.report->>'style',
                p.price_version
           FROM batch, debit, priced p
       ), ledger AS (
         INSERT INTO credit_ledger (account_id, amount, sms_count, reason, batch_id)
         SELECT account_id, -cost, -segments, 'debit', id FROM batch
       )
       SELECT cost::text AS cost FROM batch`,
    [
      batch.id,
      batch.accountId,
      batch.segments,
      batch.callbackUrl,
      batch.errbackUrl,
      batch.scheduledAt,
      batch.recipients,
      JSON.stringify(batch.entries),
      batch.optedOut,
    ],
  );
  return rows[0]?.cost;
}

export interface BatchStatusRow {
  id: string;
  state: BatchState;
  scheduled_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
  total: number;
  expanded: number;
  opted_out: number;
  /** Counts of the batch's messages (not of recipients still to expand), as int8 text. */
  queued: string;
  sent: string;
  delivered: string;
  failed: string;
  cancelled: string;
  /** Failed with an unknown outcome (SUBMIT_OUTCOME_UNKNOWN): charged, never sent again. */
  unknown: string;
}

/** The batch, when it belongs to the account, with its messages counted by outcome. */
export async function batchStatus(
  db: Queryable,
  accountId: string,
  batchId: string,
): Promise<BatchStatusRow | undefined> {
  const { rows } = await db.query<BatchStatusRow>(
    `SELECT b.id, b.state, b.scheduled_at, b.created_at, b.completed_at, b.total, b.expanded, b.opted_out,
              count(*) FILTER (WHERE m.state IN (${sqlList(UNSENT_STATES)})) AS queued,
              count(*) FILTER (WHERE m.state IN (${sqlList(SENT_STATES)})) AS sent,
              count(*) FILTER (WHERE m.state = 'delivered') AS delivered,
              count(*) FILTER (WHERE m.state IN (${sqlList(FAILED_STATES)})) AS failed,
              count(*) FILTER (WHERE m.state = 'cancelled') AS cancelled,
              count(*) FILTER (WHERE m.state = 'failed' AND m.error = '${UNKNOWN_OUTCOME_ERROR}') AS unknown
         FROM batches b LEFT JOIN messages m ON m.batch_id = b.id
        WHERE b.id = $1 AND b.account_id = $2
        GROUP BY b.id`,
    [batchId, accountId],
  );
  return rows[0];
}

export interface BatchListRow {
  id: string;
  username: string;
  state: BatchState;
  total: number;
  expanded: number;
  segments: string;
  cost: string;
  scheduled_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
  /** created_at in µs since the epoch, exact: the page cursor with the id. */
  created_us: string;
}

export interface BatchSearch {
  since: Date;
  until: Date;
  accountId?: string | undefined;
  state?: BatchState | undefined;
  /** The last batch of the page before: its created_us and id. */
  before?: { createdUs: string; id: string } | undefined;
  limit: number;
}

/** Batches created in [since, until), newest first (the admin API's and the customer's list). */
export async function searchBatches(db: Queryable, search: BatchSearch): Promise<BatchListRow[]> {
  if (!Number.isInteger(search.limit) || search.limit < 1 || search.limit > 1000)
    throw new RangeError(`bad row limit ${search.limit}`);
  const { rows } = await db.query<BatchListRow>(
    `SELECT b.id, a.username, b.state, b.total, b.expanded, b.segments::text AS segments, b.cost::text AS cost,
            b.scheduled_at, b.created_at, b.completed_at,
            (extract(epoch FROM b.created_at) * 1000000)::bigint::text AS created_us
       FROM batches b JOIN accounts a ON a.id = b.account_id
      WHERE b.created_at >= $1 AND b.created_at < $2
        AND ($3::uuid IS NULL OR b.account_id = $3::uuid)
        AND ($4::text IS NULL OR b.state = $4::text)
        AND ($5::bigint IS NULL OR ((extract(epoch FROM b.created_at) * 1000000)::bigint, b.id) < ($5::bigint, $6::uuid))
      ORDER BY b.created_at DESC, b.id DESC
      LIMIT ${search.limit}`,
    [
      search.since,
      search.until,
      search.accountId ?? null,
      search.state ?? null,
      search.before?.createdUs ?? null,
      search.before?.id ?? null,
    ],
  );
  return rows;
}

/** The batch's state, its row locked until the end of the transaction `tx`. */
export async function lockBatch(
  tx: Queryable,
  accountId: string,
  batchId: string,
): Promise<BatchState | undefined> {
  const { rows } = await tx.query<{ state: BatchState }>(
    'SELECT state FROM batches WHERE id = $1 AND account_id = $2 FOR UPDATE',
    [batchId, accountId],
  );
  return rows[0]?.state;
}

/** Locks a batch of any account (an operator's cancel): its state and account, or undefined. */
export async function lockBatchById(
  tx: Queryable,
  batchId: string,
): Promise<{ state: BatchState; account_id: string } | undefined> {
  const { rows } = await tx.query<{ state: BatchState; account_id: string }>(
    'SELECT state, account_id FROM batches WHERE id = $1 FOR UPDATE',
    [batchId],
  );
  return rows[0];
}

/**
 * One statement: cancels the batch and its messages still waiting (messages), and refunds them
 * and the recipients not expanded yet to the account (accounts, with its credit_ledger row).
 * Answers the amount refunded.
 */
export async function cancelBatch(tx: Queryable, batchId: string): Promise<string | undefined> {
  const { rows } = await tx.query<{ amount: string }>(
    `WITH b AS (
           UPDATE batches SET state = 'cancelled', completed_at = now(), updated_at = now()
            WHERE id = $1
           RETURNING id, account_id, next_entry, next_offset
         ), cancelled AS (
           UPDATE messages m SET state = 'cancelled', error = 'batch cancelled', updated_at = now()
             FROM b WHERE m.batch_id = b.id AND m.unsent AND m.state IN (${sqlList(WAITING_STATES)})
           RETURNING m.cost, m.segments
         ), unexpanded AS (
           SELECT COALESCE(sum(e.unit_cost * left_over), 0) AS cost, COALESCE(sum(e.segments * left_over), 0) AS segments
             FROM b JOIN LATERAL (
               SELECT unit_cost, segments,
                      cardinality(recipients) - CASE WHEN seq = b.next_entry THEN b.next_offset ELSE 0 END AS left_over
                 FROM batch_entries WHERE batch_id = b.id AND seq >= b.next_entry
             ) e ON true
         ), total AS (
           SELECT (SELECT COALESCE(sum(cost), 0) FROM cancelled) + (SELECT cost FROM unexpanded) AS amount,
                  (SELECT COALESCE(sum(segments), 0) FROM cancelled) + (SELECT segments FROM unexpanded) AS segments
         ), account AS (
           UPDATE accounts a SET balance = a.balance + t.amount, sms_count = a.sms_count + t.segments, updated_at = now()
             FROM b, total t WHERE a.id = b.account_id
           RETURNING a.id
         ), ledger AS (
           INSERT INTO credit_ledger (account_id, amount, sms_count, reason, batch_id)
           SELECT b.account_id, t.amount, t.segments, 'refund', b.id FROM b, total t WHERE t.amount > 0 OR t.segments > 0
         )
         SELECT amount::text AS amount FROM total`,
    [batchId],
  );
  return rows[0]?.amount;
}

// ---- callbacks (callback-notifier) ----

/** The URLs of a batch; a batch's URLs never change, so callers may cache them. */
export async function batchCallbackUrls(
  db: Queryable,
  batchId: string,
): Promise<{ callback_url: string | null; errback_url: string | null } | undefined> {
  const { rows } = await db.query<{
    callback_url: string | null;
    errback_url: string | null;
  }>('SELECT callback_url, errback_url FROM batches WHERE id = $1', [batchId]);
  return rows[0];
}

// ---- expansion (batch-scheduler) ----

/**
 * Batch `b`'s messages in these states, all unsent (not at the SMSC yet): the index on
 * (batch_id, unsent) then reads only the batch's unsent messages, which backpressure keeps few.
 */
function inState(form: 'count' | 'exists', states: readonly string[]): string {
  const rows = `FROM messages m WHERE m.batch_id = b.id AND m.unsent AND m.state IN (${sqlList(states)})`;
  return form === 'count' ? `(SELECT count(*) ${rows})` : `EXISTS (SELECT 1 ${rows})`;
}

export interface DueBatchRow {
  id: string;
  account_id: string;
  next_entry: number;
  next_offset: number;
  total: number;
  expanded: number;
}

/**
 * The open batch due first that has recipients left and fewer than `maxWaiting` messages waiting
 * for a dispatcher (backpressure), locked until the end of the transaction `tx`; batches another
 * scheduler holds, and batches of a disabled account (held until it is enabled), are passed over.
 */
export async function takeDueBatch(
  tx: Queryable,
  maxWaiting: number,
): Promise<DueBatchRow | undefined> {
  const { rows } = await tx.query<DueBatchRow>(
    `SELECT b.id, b.account_id, b.next_entry, b.next_offset, b.total, b.expanded
           FROM batches b
          WHERE b.state IN (${OPEN}) AND b.expanded < b.total
            AND (b.scheduled_at IS NULL OR b.scheduled_at <= now())
            AND ${inState('count', WAITING_STATES)} < $1
            AND NOT EXISTS (SELECT 1 FROM accounts acc WHERE acc.id = b.account_id AND acc.disabled_at IS NOT NULL)
          ORDER BY COALESCE(b.scheduled_at, b.created_at)
          LIMIT 1
          FOR UPDATE OF b SKIP LOCKED`,
    [maxWaiting],
  );
  return rows[0];
}

/**
 * The entry rows a chunk reaches into, from the cursor's row on (`upto`: recipients from the
 * cursor's row through this one), each with the recipients the chunk takes from it: together
 * exactly $4 (the chunk size), or what is left. Parameters: $1 batch, $2 and $3 the cursor.
 */
const ENTRY_SLICES = `
  SELECT seq, from_addr, content, hex_content, coding, segments, unit_cost, params, size, route, connectors,
         report_mask, report_url, report_method, report_style, price_version,
         recipients[(CASE WHEN seq = $2 THEN $3 ELSE 0 END) + 1 :
                    (CASE WHEN seq = $2 THEN $3 ELSE 0 END) + LEAST($4, $3 + $4 - (upto - size))] AS slice
    FROM (SELECT seq, from_addr, content, hex_content, coding, segments, unit_cost, params, recipients, size, route, connectors,
                 report_mask, report_url, report_method, report_style, price_version,
                 sum(size) OVER (ORDER BY seq) AS upto
            FROM (SELECT e.seq, e.from_addr, e.content, e.hex_content, e.coding, e.segments, e.unit_cost, e.params, e.recipients,
                         e.route, e.connectors, e.report_mask, e.report_url, e.report_method, e.report_style,
                         e.price_version, COALESCE(e.size, cardinality(e.recipients)) AS size
                    FROM batch_entries e
                   WHERE e.batch_id = $1 AND e.seq >= $2
                   ORDER BY e.seq
                   LIMIT $4) rows_from_cursor) counted
   WHERE upto - size < $3 + $4`;

/** One entry row a chunk took recipients from; the chunk's ids are on every row. */
export interface ChunkRow {
  seq: number;
  size: number;
  taken: number;
  ids: string[] | null;
  segments: number[] | null;
  /** The connector whose queue takes each message's job, parallel to ids. */
  connectors: string[] | null;
  outbox_id: string | null;
}

/**
 * One statement: writes the next `chunkSize` recipients of the batch from its cursor as `queued`
 * messages (messages), with one job_outbox row naming them. The messages are made inside
 * Postgres, from the recipient arrays it already holds: no recipient, text or parameter travels to
 * the scheduler and back. Answers, per entry row, how many recipients were taken, for the cursor.
 */
export async function expandBatchChunk(
  tx: Queryable,
  batch: Pick<DueBatchRow, 'id' | 'account_id' | 'next_entry' | 'next_offset'>,
  chunkSize: number,
): Promise<ChunkRow[]> {
  const { rows } = await tx.query<ChunkRow>(
    `WITH picked AS (
           ${ENTRY_SLICES}
         ), made AS (
           INSERT INTO messages (id, account_id, batch_id, state, to_addr, from_addr, content, hex_content, coding, segments, cost, params,
                                 route, connectors, connector_trail, report_mask, report_url, report_method, report_style, entry,
                                 price_version)
           SELECT smsgw_time_id(), $5, $1, 'queued', t.to_addr, p.from_addr, p.content, p.hex_content, p.coding, p.segments, p.unit_cost, p.params,
                  p.route, p.connectors, COALESCE(p.connectors[1:1], '{}'),
                  p.report_mask, p.report_url, p.report_method, p.report_style, 'batch', p.price_version
             FROM picked p CROSS JOIN LATERAL unnest(p.slice) AS t(to_addr)
           RETURNING id, segments, COALESCE(connector_trail[1], '${DEFAULT_CONNECTOR}') AS connector
         ), outbox AS (
           INSERT INTO job_outbox (message_ids) SELECT array_agg(id) FROM made HAVING count(*) > 0 RETURNING id
         ), made_list AS (
           SELECT array_agg(id::text) AS ids, array_agg(segments) AS segments, array_agg(connector) AS connectors,
                  (SELECT id::text FROM outbox) AS outbox_id FROM made
         )
         SELECT p.seq, p.size, cardinality(p.slice) AS taken, l.ids, l.segments, l.connectors, l.outbox_id
           FROM picked p CROSS JOIN made_list l
          ORDER BY p.seq`,
    [batch.id, batch.next_entry, batch.next_offset, chunkSize, batch.account_id],
  );
  return rows;
}

/**
 * Moves the batch's cursor past a chunk; the batch is running from its first chunk on, and has
 * moved now (progressed_at, for the stall watch).
 */
export async function advanceBatchCursor(
  tx: Queryable,
  batchId: string,
  cursor: { nextEntry: number; nextOffset: number; expanded: number },
): Promise<void> {
  await tx.query(
    `UPDATE batches SET state = 'running', next_entry = $2, next_offset = $3, expanded = $4, updated_at = now(),
                        progressed_at = now()
      WHERE id = $1`,
    [batchId, cursor.nextEntry, cursor.nextOffset, cursor.expanded],
  );
}

/** Completes the running batches fully expanded whose every message left the unsent states. */
export async function completeFinishedBatches(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE batches b SET state = 'completed', completed_at = now(), updated_at = now()
        WHERE b.state = 'running' AND b.expanded >= b.total
          AND NOT (${inState('exists', UNSENT_STATES)})
        RETURNING b.id`,
  );
  return rows.map((r) => r.id);
}

/** Batches not finished yet, by state (the batches_open index covers the query). */
export async function countOpenBatches(db: Queryable): Promise<Record<OpenBatchState, number>> {
  const { rows } = await db.query<{ state: OpenBatchState; n: number }>(
    `SELECT state, count(*)::int AS n FROM batches WHERE state IN (${OPEN}) GROUP BY state`,
  );
  const counts: Record<OpenBatchState, number> = { scheduled: 0, running: 0 };
  for (const row of rows) counts[row.state] = row.n;
  return counts;
}

/**
 * Retention (docs/retention.md): removes up to `limit` finished batches created before `cutoff`,
 * their entries with them; answers how many went.
 */
export async function deleteFinishedBatchesBefore(
  db: Queryable,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM batches WHERE id IN (
       SELECT id FROM batches WHERE created_at < $1 AND state IN ('completed', 'cancelled') ORDER BY created_at LIMIT $2)`,
    [cutoff, limit],
  );
  return rowCount;
}

// ---- stall watch (batch-scheduler, admin API) ----

/**
 * Records that open, due batches moved (progressed_at): those whose expanded recipients or unsent
 * messages (messages) differ from what the last watch saw. Only an expansion raises the unsent
 * count, and it also raises `expanded`, so an unchanged pair means none of the batch's messages
 * left the unsent states. A batch seen for the first time keeps its mark. Rows another
 * transaction holds (an expansion, which sets the mark itself) are passed over. Answers how many
 * batches moved.
 */
export async function watchBatchProgress(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(
    `WITH seen AS (
         SELECT b.id, b.expanded,
                (SELECT count(*) FROM messages m WHERE m.batch_id = b.id AND m.unsent)::int AS unsent
           FROM batches b
          WHERE b.state IN (${OPEN}) AND (b.scheduled_at IS NULL OR b.scheduled_at <= now())
          FOR UPDATE OF b SKIP LOCKED
       )
       UPDATE batches b
          SET watched_expanded = s.expanded, watched_unsent = s.unsent,
              progressed_at = CASE WHEN b.watched_expanded IS NULL THEN b.progressed_at ELSE now() END
         FROM seen s
        WHERE b.id = s.id
          AND (b.watched_expanded IS DISTINCT FROM s.expanded OR b.watched_unsent IS DISTINCT FROM s.unsent)`,
  );
  return rowCount;
}

export interface StalledBatchRow {
  id: string;
  account_id: string;
  state: OpenBatchState;
  total: number;
  expanded: number;
  /** Its messages waiting for a dispatcher (accepted, queued), and those being submitted. */
  waiting: number;
  submitting: number;
  /** When it last moved, or became due if it never did. */
  since: Date;
  stalled_seconds: number;
  reason: StallReason;
}

/**
 * Open batches, due, of an enabled account (a disabled one's are held on purpose), that have not
 * moved for `seconds`. $1: the seconds. The reason is the first that holds: submits the SMSC does
 * not answer, messages no dispatcher takes, recipients not expanded, or nothing left but the
 * completion.
 */
const STALLED_BATCHES = `
  SELECT s.*,
         CASE WHEN s.submitting > 0 THEN 'submits_unanswered'
              WHEN s.waiting > 0 THEN 'messages_waiting'
              WHEN s.expanded < s.total THEN 'not_expanding'
              ELSE 'not_completed' END AS reason
    FROM (SELECT b.id, b.account_id, b.state, b.total, b.expanded,
                 ${inState('count', WAITING_STATES)}::int AS waiting,
                 ${inState('count', ['submitting'])}::int AS submitting,
                 GREATEST(b.progressed_at, COALESCE(b.scheduled_at, b.created_at)) AS since,
                 EXTRACT(EPOCH FROM now() - GREATEST(b.progressed_at, COALESCE(b.scheduled_at, b.created_at)))::float8
                   AS stalled_seconds
            FROM batches b
           WHERE b.state IN (${OPEN}) AND (b.scheduled_at IS NULL OR b.scheduled_at <= now())
             AND GREATEST(b.progressed_at, COALESCE(b.scheduled_at, b.created_at)) < now() - make_interval(secs => $1)
             AND NOT EXISTS (SELECT 1 FROM accounts acc WHERE acc.id = b.account_id AND acc.disabled_at IS NOT NULL)
         ) s`;

/** Up to `limit` stalled batches (STALLED_BATCHES), the longest stalled first. */
export async function stalledBatches(
  db: Queryable,
  seconds: number,
  limit: number,
): Promise<StalledBatchRow[]> {
  const { rows } = await db.query<StalledBatchRow>(
    `${STALLED_BATCHES} ORDER BY s.since, s.id LIMIT $2`,
    [seconds, limit],
  );
  return rows;
}

/** How many batches are stalled (STALLED_BATCHES), by reason. */
export async function countStalledBatches(
  db: Queryable,
  seconds: number,
): Promise<Record<StallReason, number>> {
  const { rows } = await db.query<{ reason: StallReason; n: number }>(
    `SELECT reason, count(*)::int AS n FROM (${STALLED_BATCHES}) stalled GROUP BY reason`,
    [seconds],
  );
  const counts = Object.fromEntries(STALL_REASONS.map((r) => [r, 0])) as Record<
    StallReason,
    number
  >;
  for (const row of rows) counts[row.reason] = row.n;
  return counts;
}
