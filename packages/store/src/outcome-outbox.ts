import { REPORT_EVENTS, type MessageDlrEvent } from '@smsgw/contracts';
import type { Queryable } from '@smsgw/kit';

/**
 * Statements on `outcome_outbox`: each outcome event (message.result, message.dlr) is written in
 * the statement or transaction of the state change it reports (migration 005), and deleted once
 * the callback-notifier has made its callback rows.
 * Compound statements elsewhere that write `outcome_outbox`: messages.ts markSubmitted and
 * failMessage, through resultEventsInsert below, and recordSinglePartReceipts, through
 * deliveryReportsInsert.
 */

/**
 * The report wish of a stored message (`m`, a `messages` row) as an event's JSON (contracts'
 * ReportWish) when it names `events` (a SQL expression of REPORT_EVENTS bits), else NULL: the
 * wish as acceptance decided it (decideReportWish), the one rule every writer of report events
 * uses, carried in the event so that the notifier sends what it gets without reading the message.
 */
export const wishedReport = (m: string, events: string): string =>
  `CASE WHEN (${m}.report_mask & ${events}) <> 0 THEN jsonb_build_object('mask', ${m}.report_mask, 'url', ${m}.report_url, 'method', ${m}.report_method, 'style', ${m}.report_style) END`;

/** The REPORT_EVENTS bit of a receipt that completed a message (`m`, in its new state). */
export const receiptEvent = (m: string): string =>
  `CASE WHEN ${m}.state = 'delivered' THEN ${REPORT_EVENTS.delivered} ELSE ${REPORT_EVENTS.notDelivered} END`;

/**
 * An `INSERT … RETURNING message_id, payload` of the message.result event of the messages in
 * `rows` (a CTE or table of `messages` columns with the report wish's, as `m`), for those someone
 * waits for: a report of the outcome's event (its REPORT_EVENTS bit in the wish), or their
 * batch's callback. Used as a CTE of the statement that changes their state. The batch's test is
 * migration 005's smsgw_wants_result written out: Postgres cannot inline a function holding a subquery, and
 * calling it per message, with a lookup of the batch each, made the statement dearer than reading
 * the batches once per batch of the group (figures in docs/decisions.md § Measurements behind the code).
 */
export const resultEventsInsert = (
  rows: string,
  outcome: 'submitted' | 'failed',
  smscId: string,
  error: string,
  connector: string,
): string => {
  const events = outcome === 'submitted' ? REPORT_EVENTS.smscAccepted : REPORT_EVENTS.smscRefused;
  return `
  INSERT INTO outcome_outbox (message_id, topic, payload)
  SELECT m.id, 'message.result', jsonb_build_object(
           'messageId', m.id, 'accountId', m.account_id, 'batchId', m.batch_id, 'to', m.to_addr, 'outcome', '${outcome}',
           'smscId', ${smscId}, 'error', ${error}, 'connector', ${connector}, 'at', now(),
           'report', ${wishedReport('m', String(events))})
    FROM ${rows} m
   WHERE (m.report_mask & ${events}) <> 0
      OR m.batch_id IN (SELECT b.id FROM batches b
                         WHERE b.id IN (SELECT DISTINCT r.batch_id FROM ${rows} r WHERE r.batch_id IS NOT NULL)
                           AND (b.callback_url IS NOT NULL OR b.errback_url IS NOT NULL))
  ON CONFLICT DO NOTHING
  RETURNING message_id, payload`;
};

/**
 * An `INSERT` of the message.dlr events of the rows of `rows` (a CTE of completed messages with
 * `id`, `report`, their wish as wishedReport gives it, and `event`, the event as JSON text without
 * its message id and wish) whose client wished one, to be used as a CTE of the statement that
 * records their receipts.
 */
export const deliveryReportsInsert = (rows: string): string => `
  INSERT INTO outcome_outbox (message_id, topic, payload)
  SELECT d.id, 'message.dlr', d.event::jsonb || jsonb_build_object('messageId', d.id, 'report', d.report)
    FROM ${rows} d
   WHERE d.report IS NOT NULL
  ON CONFLICT DO NOTHING`;

/** Delivery reports, in the transaction that records the state they report. */
export async function insertDeliveryReports(
  tx: Queryable,
  reports: readonly MessageDlrEvent[],
): Promise<void> {
  await tx.query(
    `INSERT INTO outcome_outbox (message_id, topic, payload)
           SELECT (r->>'messageId')::uuid, 'message.dlr', r FROM jsonb_array_elements($1::jsonb) AS r
           ON CONFLICT DO NOTHING`,
    [JSON.stringify(reports)],
  );
}

/** The rows of events whose callback rows are made. */
export async function deleteOutcomeRows(
  db: Queryable,
  rows: readonly { messageId: string; topic: string }[],
): Promise<void> {
  await db.query(
    `DELETE FROM outcome_outbox o USING unnest($1::uuid[], $2::text[]) AS d(message_id, topic)
          WHERE o.message_id = d.message_id AND o.topic = d.topic`,
    [rows.map((r) => r.messageId), rows.map((r) => r.topic)],
  );
}

/** How many rows takeStaleOutcomeRows takes at most. */
export const OUTCOME_ROWS_PER_ROUND = 500;

/**
 * Rows written more than `staleMs` ago whose event was not handled, leased for `staleMs` so that
 * another notifier does not take them too; a notifier that dies with them leaves them to be taken
 * again when the lease ends.
 */
export async function takeStaleOutcomeRows(
  db: Queryable,
  staleMs: number,
): Promise<{ message_id: string; topic: string; payload: unknown }[]> {
  const { rows } = await db.query<{ message_id: string; topic: string; payload: unknown }>(
    `UPDATE outcome_outbox o SET lease_until = now() + make_interval(secs => $1::float8 / 1000)
           FROM (SELECT message_id, topic FROM outcome_outbox
                  WHERE created_at < now() - make_interval(secs => $1::float8 / 1000)
                    AND (lease_until IS NULL OR lease_until < now())
                  ORDER BY created_at LIMIT ${OUTCOME_ROWS_PER_ROUND} FOR UPDATE SKIP LOCKED) due
          WHERE o.message_id = due.message_id AND o.topic = due.topic
          RETURNING o.message_id, o.topic, o.payload`,
    [staleMs],
  );
  return rows;
}
