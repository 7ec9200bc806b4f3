import {
  DEFAULT_CONNECTOR,
  FINAL_STATES,
  FAILED_STATES,
  UNKNOWN_OUTCOME_ERROR,
  WAITING_STATES,
  type MessageOutcome,
  type MessageResultEvent,
  type MessageState,
  type ReportWish,
} from '@smsgw/contracts';
import { timeIdFloor, type Queryable } from '@smsgw/kit';
import { messagePartitionTable } from './message-partitions';
import {
  deliveryReportsInsert,
  receiptEvent,
  resultEventsInsert,
  wishedReport,
} from './outcome-outbox';
import { sqlList } from './sql-list';

/**
 * Statements on `messages` and `message_parts`. Every change of a message's state is a conditional
 * UPDATE on the state it expects, which is what makes a redelivered job harmless.
 * Statements elsewhere that also touch `messages`: batches.ts expandBatchChunk (writes a chunk's
 * messages), cancelBatch (cancels the waiting ones), batchStatus (counts by state) and inState
 * (counts or finds a batch's messages in given states, for takeDueBatch,
 * completeFinishedBatches and STALLED_BATCHES), watchBatchProgress (counts each open batch's unsent
 * messages); accounts.ts callbackSecretsOfMessages (the signing secrets of a
 * message's account); message-partitions.ts addMessagePartition, dropMessagePartition and
 * clearDefaultMessagePartitions (the partitions of both tables, docs/retention.md);
 * smpp-deliveries.ts insertSmppReceipts (reads the messages the receipts for an SMPP customer are for);
 * message-search.ts searchMessages, messageStory and messageStoryParts (the operators' view);
 * cdrs.ts archiveCdrs, readCdrChunk, liveFrom and PART_ROWS (the CDRs of messages in a final state, and
 * their parts).
 * message-stats.ts countStatsSlice, countPendingStats and firstMessageHour (the statistics' count).
 * synthetic-history.ts insertSyntheticMessages, insertSyntheticRefunds, syntheticExtent and
 * destinationsAfter (`pnpm bench search`'s history).
 */

const WAITING = sqlList(WAITING_STATES);

/** A row limit goes into the statement's text, so it must be a positive integer. */
function checkedLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`bad row limit ${limit}`);
  return limit;
}

/**
 * A column compared so that the planner estimates the rows it keeps without its statistics, which
 * lag behind: after a batch, the last ANALYZE may have seen a few messages in a state where there
 * are thousands. The group statements find their rows by id; trusting such an estimate, Postgres
 * planned scans instead of probes by id.
 */
const notIndexed = (column: string): string => `COALESCE(${column}, '')`;

/**
 * Repeats a join's ids as a condition on `m.id`: Postgres then opens only the partitions those ids
 * fall in (docs/retention.md), where a join alone makes it open and probe every partition.
 */
const PRUNED_BY_IDS = 'm.id = ANY($1::uuid[])';

/**
 * Where a group statement finds its messages ($1: their ids). Given the partition that holds
 * them all (its suffix, message-partitions.ts), it names that table and keeps its plan, which saves
 * planning at each call; without one it reads `messages`, planned at each call so that Postgres
 * opens only the partitions the ids fall in (a cached plan would open every partition).
 */
function groupTarget(partition: string | null): {
  table: string;
  pruned: string;
  options: { planEachCall: boolean };
} {
  if (partition === null)
    return { table: 'messages', pruned: PRUNED_BY_IDS, options: { planEachCall: true } };
  return {
    table: messagePartitionTable(partition),
    pruned: 'true',
    options: { planEachCall: false },
  };
}

/**
 * When a `submitting` message was claimed. Rows claimed before migration 010 by a dispatcher
 * that did not yet write submit_started_at have only updated_at, which was set by that claim.
 */
const SUBMIT_STARTED = 'COALESCE(submit_started_at, updated_at)';

// ---- acceptance (api-gateway) ----

/** The columns of the messages acceptMessages takes, one array per column, in the same order. */
export interface NewMessageColumns {
  id: readonly string[];
  accountId: readonly string[];
  batchId: readonly (string | null)[];
  to: readonly string[];
  from: readonly (string | null)[];
  content: readonly (string | null)[];
  hexContent: readonly (string | null)[];
  coding: readonly number[];
  segments: readonly number[];
  /** Each message's params as JSON text. */
  params: readonly string[];
  /** Its report wish (contracts' ReportWish), decided at acceptance: 0 and nulls for none. */
  reportMask: readonly number[];
  reportUrl: readonly (string | null)[];
  reportMethod: readonly (string | null)[];
  reportStyle: readonly (string | null)[];
  /** The MT route that took it (null: the gateway has no routes). */
  route: readonly (string | null)[];
  /** The connectors it may go through, in order, joined by commas. */
  connectors: readonly string[];
  /** The route's price per part; null: the account's rate. */
  price: readonly (string | null)[];
  /** The way each came in (contracts' MessageEntry). */
  entry: readonly string[];
  /** The price list version its price comes from; null: the route's price or the rate. */
  priceVersion: readonly (string | null)[];
}

/** One row per message whose account exists; `fits`: accepted. */
export interface AcceptedMessageRow {
  id: string;
  fits: boolean;
  short_of_credit: boolean;
  cost: string;
  sender: string | null;
  outbox_id: string | null;
}

/**
 * Accepts a group of messages in one statement (one round trip, one commit), as if they had come
 * one after another in the given order: per account, each message is charged when the balance and
 * quota left by the earlier ones of the group still cover it (rate × segments; segments); the
 * others are refused and change nothing. The accounts are locked in id order, so concurrent groups
 * (other gateway replicas) cannot deadlock, and the walk below sees their latest balances.
 * The message row, its ledger row and the debit commit together. Messages are written `queued`
 * with one job_outbox row naming them all; the outbox rows of earlier statements whose jobs the
 * broker confirmed since are deleted in the same statement ($11).
 */
const ACCEPT_MESSAGES_SQL = `
WITH RECURSIVE input AS (
  SELECT i.*, row_number() OVER (PARTITION BY i.account_id ORDER BY i.n) AS k
    FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::int[], $10::text[],
                $12::text[], $13::text[], $14::numeric[], $15::smallint[], $16::text[], $17::text[], $18::text[], $19::text[],
                $20::bigint[])
         WITH ORDINALITY AS i(id, account_id, batch_id, to_addr, from_addr, content, hex_content, coding, segments, params,
                              route, connectors, price, report_mask, report_url, report_method, report_style, entry,
                              price_version, n)
), account AS (
  SELECT a.id, a.balance, a.sms_count, a.rate, a.default_from, a.credit_limit
    FROM accounts a
   WHERE a.id IN (SELECT account_id FROM input)
   ORDER BY a.id
     FOR UPDATE
), priced AS (
  SELECT i.*, COALESCE(i.price, a.rate) * i.segments AS cost, COALESCE(i.from_addr, a.default_from) AS sender
    FROM input i JOIN account a ON a.id = i.account_id
), walk (account_id, k, id, fits, short_of_credit, balance, sms_count, floor) AS (
  SELECT a.id, 0::bigint, NULL::uuid, NULL::boolean, NULL::boolean, a.balance::numeric, a.sms_count, -a.credit_limit
    FROM account a
  UNION ALL
  SELECT p.account_id, p.k, p.id, f.fits, f.short_of_credit,
         CASE WHEN f.fits THEN w.balance - p.cost ELSE w.balance END,
         CASE WHEN f.fits THEN w.sms_count - p.segments ELSE w.sms_count END,
         w.floor
    FROM walk w
    JOIN priced p ON p.account_id = w.account_id AND p.k = w.k + 1,
         LATERAL (SELECT w.balance IS NOT NULL AND w.balance - p.cost < w.floor AS short_of_credit,
                         (w.balance IS NULL OR w.balance - p.cost >= w.floor) AND (w.sms_count IS NULL OR w.sms_count >= p.segments) AS fits) f
), accepted AS (
  SELECT p.* FROM walk w JOIN priced p ON p.id = w.id WHERE w.fits
), debit AS (
  UPDATE accounts a
     SET balance = a.balance - t.cost, sms_count = a.sms_count - t.segments, updated_at = now()
    FROM (SELECT account_id, sum(cost) AS cost, sum(segments) AS segments FROM accepted GROUP BY account_id) t
   WHERE a.id = t.account_id
), message AS (
  INSERT INTO messages (id, account_id, batch_id, state, to_addr, from_addr, content, hex_content, coding, segments, cost, params,
                        route, connectors, connector_trail, report_mask, report_url, report_method, report_style, entry,
                        price_version)
  SELECT id, account_id, batch_id, 'queued', to_addr, sender, content, hex_content, coding, segments, cost, params::jsonb,
         route, string_to_array(connectors, ','), (string_to_array(connectors, ','))[1:1],
         report_mask, report_url, report_method, report_style, entry, price_version
    FROM accepted ORDER BY n
  RETURNING id, account_id, batch_id, cost, segments
), ledger AS (
  INSERT INTO credit_ledger (account_id, amount, sms_count, reason, message_id, batch_id)
  SELECT account_id, -cost, -segments, 'debit', id, batch_id FROM message
), outbox AS (
  INSERT INTO job_outbox (message_ids) SELECT array_agg(id) FROM message HAVING count(*) > 0 RETURNING id
), cleared AS (
  DELETE FROM job_outbox WHERE id = ANY($11::bigint[])
)
SELECT w.id, w.fits, w.short_of_credit, p.cost::text AS cost, p.sender, (SELECT id::text FROM outbox) AS outbox_id
  FROM walk w JOIN priced p ON p.id = w.id`;

/**
 * Accepts messages of one or several accounts in one statement (ACCEPT_MESSAGES_SQL) and deletes
 * the job_outbox rows `clearedOutboxIds` (whose jobs are confirmed). A message whose account does
 * not exist has no row.
 */
export async function acceptMessages(
  db: Queryable,
  messages: NewMessageColumns,
  clearedOutboxIds: readonly string[],
): Promise<AcceptedMessageRow[]> {
  const { rows } = await db.query<AcceptedMessageRow>(ACCEPT_MESSAGES_SQL, [
    messages.id,
    messages.accountId,
    messages.batchId,
    messages.to,
    messages.from,
    messages.content,
    messages.hexContent,
    messages.coding,
    messages.segments,
    messages.params,
    clearedOutboxIds,
    messages.route,
    messages.connectors,
    messages.price,
    messages.reportMask,
    messages.reportUrl,
    messages.reportMethod,
    messages.reportStyle,
    messages.entry,
    messages.priceVersion,
  ]);
  return rows;
}

// ---- status (api-gateway, callback-notifier) ----

export interface MessageStatusRow {
  id: string;
  state: MessageState;
  to_addr: string;
  from_addr: string | null;
  batch_id: string | null;
  smsc_id: string | null;
  segments: number;
  coding: number;
  cost: string;
  attempts: number;
  error: string | null;
  outcome: MessageOutcome;
  charged: boolean;
  callback_error: string | null;
  route: string | null;
  connector: string | null;
  connector_trail: string[];
  created_at: Date;
  submitted_at: Date | null;
  updated_at: Date;
}

/**
 * Whether the cost of message `m` (an alias of `messages`) stands. A refund of one message has its
 * ledger row; a batch's cancel refunds its waiting messages with one row for the batch, so a
 * cancelled message counts as refunded unless the SMSC may hold some of it (an unanswered submit,
 * or an accepted part), which requeueMessage keeps charged. The one rule for every reader of money:
 * messageStatus, the statistics' roll and the CDRs.
 */
export function costStands(m: string): string {
  return costStandsGiven(
    m,
    `NOT EXISTS (SELECT 1 FROM credit_ledger l WHERE l.message_id = ${m}.id AND l.reason = 'refund')`,
  );
}

/** costStands, with `unrefunded` saying that the message has no refund row of its own. */
function costStandsGiven(m: string, unrefunded: string): string {
  return `(${unrefunded}
            AND (${m}.state <> 'cancelled' OR ${m}.unanswered_submits > 0
                 OR EXISTS (SELECT 1 FROM message_parts p WHERE p.message_id = ${m}.id)))`;
}

/** What was given back of message `m`'s cost: all of it, or nothing (costStands). */
export function refundedAmount(m: string): string {
  return `(CASE WHEN ${costStands(m)} THEN 0::numeric ELSE ${m}.cost END)`;
}

/**
 * refundedAmount of message `m` joined to its refund row `r` (LEFT JOIN credit_ledger r ON
 * r.message_id = m.id AND r.reason = 'refund': at most one, by the ledger's unique index), for a
 * statement over many messages, which probes or merges the index instead of hashing every refund.
 */
export function refundedAmountJoined(m: string, r: string): string {
  return `(CASE WHEN ${costStandsGiven(m, `${r}.message_id IS NULL`)} THEN 0::numeric ELSE ${m}.cost END)`;
}

/** The LEFT JOIN refundedAmountJoined reads, of refund row `r` to message `m`. */
export function refundJoin(m: string, r: string): string {
  return `LEFT JOIN credit_ledger ${r} ON ${r}.message_id = ${m}.id AND ${r}.reason = 'refund'`;
}

/**
 * The message, when it belongs to the account, with what is known of its outcome and whether its
 * cost stands (costStands).
 */
export async function messageStatus(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<MessageStatusRow | undefined> {
  const { rows } = await db.query<MessageStatusRow>(
    `SELECT m.id, m.state, m.to_addr, m.from_addr, m.batch_id, m.smsc_id, m.segments, m.coding, m.cost::text AS cost,
              m.attempts, m.error, m.route, m.connector, m.connector_trail,
              m.callback_error, m.created_at, m.submitted_at, m.updated_at,
              CASE WHEN m.state = 'failed' AND m.error = '${UNKNOWN_OUTCOME_ERROR}' THEN 'unknown'
                   WHEN m.state IN (${sqlList(FINAL_STATES)}) THEN 'known'
                   ELSE 'pending' END AS outcome,
              ${costStands('m')} AS charged
         FROM messages m WHERE m.id = $1 AND m.account_id = $2`,
    [id, accountId],
  );
  return rows[0];
}

/**
 * The message's report wish, for a report event written before the wish was carried in events
 * (migration 034); undefined when it wishes none.
 */
export async function messageReportWish(
  db: Queryable,
  messageId: string,
): Promise<ReportWish | undefined> {
  const { rows } = await db.query<ReportWish>(
    `SELECT report_mask AS mask, report_url AS url, report_method AS method, report_style AS style
       FROM messages WHERE id = $1 AND report_mask <> 0`,
    [messageId],
  );
  return rows[0];
}

/** What a Kannel report template may name of its message (the account's name is its service). */
export interface MessageReportFacts {
  to_addr: string;
  from_addr: string | null;
  username: string;
}

/** Each message's numbers and its account's name, by message id (a join on `accounts`). */
export async function messageReportFacts(
  db: Queryable,
  messageIds: readonly string[],
): Promise<Map<string, MessageReportFacts>> {
  if (messageIds.length === 0) return new Map();
  const { rows } = await db.query<MessageReportFacts & { id: string }>(
    `SELECT m.id, m.to_addr, m.from_addr, a.username
       FROM messages m JOIN accounts a ON a.id = m.account_id WHERE m.id = ANY($1::uuid[])`,
    [messageIds],
  );
  return new Map(rows.map(({ id, ...facts }) => [id, facts]));
}

/**
 * Records on the message why its customer callbacks were given up. Its updated_at stays as it is:
 * it is when the message reached its state, the done time of its CDR (cdrs.ts).
 */
export async function setCallbackError(
  tx: Queryable,
  messageId: string,
  callbackError: string,
): Promise<void> {
  await tx.query(`UPDATE messages SET callback_error = $2 WHERE id = $1`, [
    messageId,
    callbackError,
  ]);
}

// ---- submission (dispatcher) ----

export interface ClaimedMessageRow {
  id: string;
  account_id: string;
  batch_id: string | null;
  to_addr: string;
  from_addr: string | null;
  content: string | null;
  hex_content: string | null;
  coding: number;
  segments: number;
  params: Record<string, unknown>;
  attempts: number;
  /**
   * Of a message of several parts sent before: the SMSC id of each part it accepted then, by part
   * number (from 1); those parts are not sent again.
   */
  accepted_parts: Record<string, string> | null;
  /** Earlier attempts whose submit_sm went unanswered and were sent again. */
  unanswered_submits: number;
  route: string | null;
  /** Its route's connectors in order (null: from before routing, the default connector). */
  connectors: string[] | null;
  connector_trail: string[];
}

/**
 * Moves the waiting ones of these messages to `submitting` and counts the attempt; answers the
 * messages it moved (the others were not claimable). Meant for a transaction the caller commits
 * once the messages' submit_sm are written.
 */
export async function claimMessages(
  tx: Queryable,
  ids: readonly string[],
  connector: string,
  partition: string | null = null,
): Promise<ClaimedMessageRow[]> {
  const target = groupTarget(partition);
  const { rows } = await tx.query<ClaimedMessageRow>(
    `UPDATE ${target.table} m SET state = 'submitting', attempts = m.attempts + 1, updated_at = now(), submit_started_at = now()
             FROM unnest($1::uuid[]) AS i(id)
            WHERE m.id = i.id AND ${target.pruned} AND ${notIndexed('m.state')} IN (${WAITING})
              AND ${CURRENT_CONNECTOR.replace(/connector_trail/g, 'm.connector_trail')} = $2
            RETURNING m.id, m.account_id, m.batch_id, m.to_addr, m.from_addr, m.content, m.hex_content, m.coding, m.segments, m.params, m.attempts,
                      CASE WHEN m.segments > 1 AND m.attempts > 1
                           THEN (SELECT jsonb_object_agg(p.seq, p.smsc_id) FROM message_parts p WHERE p.message_id = m.id) END AS accepted_parts,
                      m.unanswered_submits, m.route, m.connectors, m.connector_trail`,
    [ids, connector],
    target.options,
  );
  return rows;
}

/** The message's state and, for a `submitting` one, how long ago it was claimed. */
export async function messageSubmitState(
  db: Queryable,
  id: string,
): Promise<{ state: MessageState; age_ms: number } | undefined> {
  const { rows } = await db.query<{ state: MessageState; age_ms: number }>(
    `SELECT state, (EXTRACT(EPOCH FROM (now() - ${SUBMIT_STARTED})) * 1000)::float8 AS age_ms FROM messages WHERE id = $1`,
    [id],
  );
  return rows[0];
}

/** A message the SMSC accepted: every part's SMSC id, in part order. */
export interface SubmittedMessage {
  id: string;
  smscIds: readonly string[];
  /** What a part costs through the connector that took it, and the cost list version; none known: undefined. */
  cost?: { price: string; versionId: string } | undefined;
}

/**
 * Records the SMSC's answers of a group in one statement: each message's first id, and for a
 * message of several parts every part's id, for receipt matching; what it cost us (per part times
 * its parts, docs/billing.md § Costs and margins); and the message.result events
 * someone waits for. A message of one part is matched by its own smsc_id: a part row for it
 * would be most of this statement's cost. Answers the messages that moved (a redelivered job's
 * did not), each with its result event (null when nobody waits for one).
 */
export async function markSubmitted(
  db: Queryable,
  messages: readonly SubmittedMessage[],
  connector: string,
  partition: string | null = null,
): Promise<{ id: string; payload: MessageResultEvent | null }[]> {
  const target = groupTarget(partition);
  const parts = messages
    .filter((m) => m.smscIds.length > 1)
    .flatMap((m) => m.smscIds.map((smscId, i) => ({ id: m.id, seq: i + 1, smscId })));
  const { rows } = await db.query<{ id: string; payload: MessageResultEvent | null }>(
    `WITH submitted AS (
         UPDATE ${target.table} m SET state = 'submitted', smsc_id = i.smsc_id, submitted_at = now(), updated_at = now(), error = NULL,
                               connector = $6, supplier_cost = i.unit_cost * m.segments, cost_version = i.cost_version
           FROM unnest($1::uuid[], $2::text[], $7::numeric[], $8::bigint[]) AS i(id, smsc_id, unit_cost, cost_version)
          WHERE m.id = i.id AND ${target.pruned} AND ${notIndexed('m.state')} = 'submitting'
         RETURNING m.id, m.account_id, m.batch_id, m.to_addr, m.smsc_id, m.report_mask, m.report_url, m.report_method, m.report_style
       ), parts AS (
         INSERT INTO message_parts (message_id, seq, smsc_id)
         SELECT p.id, p.seq, p.smsc_id
           FROM unnest($3::uuid[], $4::smallint[], $5::text[]) AS p(id, seq, smsc_id)
           JOIN submitted s ON s.id = p.id
         ON CONFLICT (message_id, seq) DO NOTHING
       ), outbox AS (${resultEventsInsert('submitted', 'submitted', 'm.smsc_id', 'NULL', '$6::text')}
       )
       SELECT s.id, o.payload FROM submitted s LEFT JOIN outbox o ON o.message_id = s.id`,
    [
      messages.map((m) => m.id),
      messages.map((m) => m.smscIds[0] ?? ''),
      parts.map((p) => p.id),
      parts.map((p) => p.seq),
      parts.map((p) => p.smscId),
      connector,
      messages.map((m) => m.cost?.price ?? null),
      messages.map((m) => m.cost?.versionId ?? null),
    ],
    target.options,
  );
  return rows;
}

/** What a requeue keeps of the attempt: the parts the SMSC accepted, and whether one went unanswered. */
export interface RequeuedAttempt {
  /** Part numbers (from 1) the SMSC accepted, with their SMSC ids. */
  acceptedSeqs: readonly number[];
  acceptedSmscIds: readonly string[];
  unanswered: boolean;
}

/**
 * A transient SMSC error: back to the queue for a later attempt, keeping the ids of the parts the
 * SMSC accepted (only the others go again). A message whose batch was cancelled meanwhile is not
 * revived: it is cancelled, and refunded as the cancel refunds the others unless the SMSC may hold
 * some of it. The batch row is read under a share lock, so a cancel (which locks it first) either
 * committed before and is seen here, or waits and then finds the message queued.
 * Answers the state the message went to (none when it was not `submitting`).
 */
export async function requeueMessage(
  db: Queryable,
  id: string,
  error: string,
  attempt: RequeuedAttempt = { acceptedSeqs: [], acceptedSmscIds: [], unanswered: false },
): Promise<'queued' | 'cancelled' | undefined> {
  const { rows } = await db.query<{ state: 'queued' | 'cancelled' }>(
    `WITH batch AS (
         SELECT b.id FROM messages m JOIN batches b ON b.id = m.batch_id
          WHERE m.id = $1 AND b.state = 'cancelled' FOR SHARE OF b
       ), parts AS (
         INSERT INTO message_parts (message_id, seq, smsc_id)
         SELECT $1, p.seq, p.smsc_id FROM unnest($3::smallint[], $4::text[]) AS p(seq, smsc_id)
          WHERE EXISTS (SELECT 1 FROM messages WHERE id = $1 AND state = 'submitting')
         ON CONFLICT (message_id, seq) DO NOTHING
       ), moved AS (
         UPDATE messages m
            SET state = CASE WHEN EXISTS (SELECT 1 FROM batch) THEN 'cancelled' ELSE 'queued' END,
                error = CASE WHEN EXISTS (SELECT 1 FROM batch) THEN 'batch cancelled' ELSE $2 END,
                unanswered_submits = m.unanswered_submits + CASE WHEN $5::boolean THEN 1 ELSE 0 END,
                updated_at = now()
          WHERE m.id = $1 AND m.state = 'submitting'
          RETURNING m.id, m.account_id, m.batch_id, m.cost, m.segments, m.state, m.unanswered_submits
       ), refundable AS (
         SELECT * FROM moved
          WHERE state = 'cancelled' AND unanswered_submits = 0 AND cardinality($3::smallint[]) = 0
            AND NOT EXISTS (SELECT 1 FROM message_parts p WHERE p.message_id = moved.id)
       ), refunded AS (
         UPDATE accounts a SET balance = a.balance + r.cost, sms_count = a.sms_count + r.segments, updated_at = now()
           FROM refundable r WHERE a.id = r.account_id
       ), ledger AS (
         INSERT INTO credit_ledger (account_id, amount, sms_count, reason, message_id, batch_id)
         SELECT account_id, cost, segments, 'refund', id, batch_id FROM refundable
       )
       SELECT state FROM moved`,
    [id, error, attempt.acceptedSeqs, attempt.acceptedSmscIds, attempt.unanswered],
  );
  return rows[0]?.state;
}

/**
 * Cancels one of the account's messages that has not left for the SMSC (waiting, never submitted,
 * no part accepted) and refunds its cost and segments with its ledger row, in one statement, as
 * a batch's cancel does for its waiting messages (cancel_sm over SMPP). A message being submitted
 * or that the SMSC may hold is not cancelled: its outcome is the SMSC's. Answers what happened.
 */
export async function cancelWaitingMessage(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<'cancelled' | 'too_late' | 'not_found'> {
  const { rows } = await db.query<{ cancelled: boolean }>(
    `WITH cancelled AS (
         UPDATE messages m SET state = 'cancelled', error = 'cancelled by the customer', updated_at = now()
          WHERE m.id = $1 AND m.account_id = $2 AND m.unsent AND m.state IN (${WAITING})
            AND m.unanswered_submits = 0
            AND NOT EXISTS (SELECT 1 FROM message_parts p WHERE p.message_id = m.id)
          RETURNING m.id, m.account_id, m.batch_id, m.cost, m.segments
       ), refunded AS (
         UPDATE accounts a SET balance = a.balance + c.cost, sms_count = a.sms_count + c.segments, updated_at = now()
           FROM cancelled c WHERE a.id = c.account_id
       ), ledger AS (
         INSERT INTO credit_ledger (account_id, amount, sms_count, reason, message_id, batch_id)
         SELECT account_id, cost, segments, 'refund', id, batch_id FROM cancelled
       )
       SELECT EXISTS (SELECT 1 FROM cancelled) AS cancelled
        WHERE EXISTS (SELECT 1 FROM cancelled)
           OR EXISTS (SELECT 1 FROM messages WHERE id = $1 AND account_id = $2)`,
    [id, accountId],
  );
  if (rows.length === 0) return 'not_found';
  return rows[0].cancelled ? 'cancelled' : 'too_late';
}

/**
 * Fails a `submitting` message; with refund, gives back its cost and segments in the same
 * statement and records the refund in the ledger (a unique index makes a second refund
 * impossible). Answers whether it failed the message, and its result event.
 */
export async function failMessage(
  db: Queryable,
  id: string,
  error: string,
  refund: boolean,
  connector: string,
): Promise<{ failed: boolean; event: MessageResultEvent | null }> {
  const { rows } = await db.query<{ id: string; payload: MessageResultEvent | null }>(
    `WITH failed AS (
         UPDATE messages SET state = 'failed', error = $2, updated_at = now()
          WHERE id = $1 AND state = 'submitting'
          RETURNING id, account_id, batch_id, cost, segments, to_addr, report_mask, report_url, report_method, report_style
       ), refunded AS (
         UPDATE accounts a SET balance = a.balance + f.cost, sms_count = a.sms_count + f.segments, updated_at = now()
           FROM failed f WHERE $3::boolean AND a.id = f.account_id
         RETURNING a.id
       ), ledger AS (
         INSERT INTO credit_ledger (account_id, amount, sms_count, reason, message_id, batch_id)
         SELECT account_id, cost, segments, 'refund', id, batch_id FROM failed WHERE $3::boolean
       ), outbox AS (${resultEventsInsert('failed', 'failed', 'NULL', '$2::text', '$4::text')}
       )
       SELECT f.id, o.payload FROM failed f LEFT JOIN outbox o ON o.message_id = f.id`,
    [id, error, refund, connector],
  );
  return { failed: rows.length === 1, event: rows[0]?.payload ?? null };
}

// ---- delivery receipts (dispatcher) ----

/** A receipt's columns: the part's SMSC id, the state it leads to, and the SMSC's stat and err. */
export interface ReceiptColumns {
  smscId: readonly string[];
  state: readonly MessageState[];
  stat: readonly string[];
  err: readonly (string | null)[];
}

/** A message a receipt completed. */
export interface CompletedMessageRow {
  id: string;
  state: MessageState;
  /** Its report wish when it names this receipt's event (null: no report is wished). */
  report: ReportWish | null;
  smsc_id: string;
  failure_stat: string | null;
}

/**
 * Two SMSCs may hand out the same id: a receipt matches only messages its own connector took
 * ($5). Messages submitted before connectors were recorded have none and match any.
 */
const SAME_CONNECTOR = '(m.connector = $5 OR m.connector IS NULL)';

/** Records receipts of parts still waiting for one; answers the parts matched. */
export async function recordPartReceipts(
  tx: Queryable,
  receipts: ReceiptColumns,
  connector: string,
): Promise<{ message_id: string; smsc_id: string }[]> {
  const { rows } = await tx.query<{ message_id: string; smsc_id: string }>(
    `UPDATE message_parts p SET state = i.state, stat = i.stat, err = i.err, updated_at = now()
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS i(smsc_id, state, stat, err)
          WHERE p.smsc_id = i.smsc_id AND p.state = 'submitted'
            AND EXISTS (SELECT 1 FROM messages m WHERE m.id = p.message_id AND ${SAME_CONNECTOR})
          RETURNING p.message_id, p.smsc_id`,
    [receipts.smscId, receipts.state, receipts.stat, receipts.err, connector],
  );
  return rows;
}

/**
 * Records the receipts of submitted messages of one part, each taking its receipt's state, and in
 * the same statement writes the delivery report of each one whose client wished it:
 * `reports[i]` is receipt i's report as JSON, without its message id and wish. One statement, committed on
 * its own: the receipts of single-part messages, nearly all of them, need no transaction.
 *
 * Its plan must not depend on statistics, which lag behind (a new period's partition has none; a
 * batch makes thousands of messages `submitted` between two ANALYZEs). So the messages are found
 * by the SMSC id index (`= ANY`), and the state and connector are compared with columns of the
 * receipts rather than constants: as conditions of the join, they leave Postgres's estimate of the
 * messages found at one per receipt, and it joins them by hashing instead of comparing every
 * message it found with every receipt (figures in docs/decisions.md § Measurements behind the code). The join compares an
 * expression of the SMSC id, which no index holds: given the column itself, Postgres may probe the
 * index once per receipt with both conditions, and then sorts the whole `ANY` array at every probe,
 * so a group's cost grows with the square of its size (docs/decisions.md § Postgres).
 */
export async function recordSinglePartReceipts(
  db: Queryable,
  receipts: ReceiptColumns,
  connector: string,
  reports: readonly string[],
): Promise<CompletedMessageRow[]> {
  const { rows } = await db.query<CompletedMessageRow>(
    `WITH done AS (
       UPDATE messages m SET state = i.state, error = CASE WHEN i.state = 'delivered' THEN NULL ELSE i.stat || ' err:' || i.err END, updated_at = now()
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $6::text[],
                     array_fill('submitted'::text, ARRAY[cardinality($1::text[])]), array_fill($5::text, ARRAY[cardinality($1::text[])]))
              AS i(smsc_id, state, stat, err, event, expected, connector)
        WHERE (m.smsc_id || '') = i.smsc_id AND m.smsc_id = ANY($1::text[])
          AND m.state = i.expected AND COALESCE(m.connector, i.connector) = i.connector
          AND NOT EXISTS (SELECT 1 FROM message_parts p WHERE p.message_id = m.id)
       RETURNING m.id, m.state, ${wishedReport('m', receiptEvent('m'))} AS report, m.smsc_id, m.error AS failure_stat, i.event
     ), reported AS (${deliveryReportsInsert('done')})
     SELECT id, state, report, smsc_id, failure_stat FROM done`,
    [receipts.smscId, receipts.state, receipts.stat, receipts.err, connector, reports],
  );
  return rows;
}

/**
 * Locks the messages' rows (in id order, so two transactions cannot deadlock) until the end of
 * the transaction `tx`.
 */
export async function lockMessages(tx: Queryable, ids: readonly string[]): Promise<void> {
  await tx.query(`SELECT id FROM messages WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, [
    ids,
  ]);
}

/**
 * Gives each of these submitted messages whose every part has a final receipt its aggregate
 * state: delivered only if every part was, else the first failing part's state.
 */
export async function completeMultipartMessages(
  tx: Queryable,
  ids: readonly string[],
): Promise<CompletedMessageRow[]> {
  const { rows } = await tx.query<CompletedMessageRow>(
    `WITH agg AS (
             SELECT message_id,
                    count(*) FILTER (WHERE state = 'submitted') AS open,
                    (array_agg(state ORDER BY seq) FILTER (WHERE state <> 'delivered' AND state <> 'submitted'))[1] AS first_failure,
                    (array_agg(stat || ' err:' || COALESCE(err, '') ORDER BY seq) FILTER (WHERE state <> 'delivered' AND state <> 'submitted'))[1] AS failure_stat
               FROM message_parts WHERE message_id = ANY($1::uuid[])
              GROUP BY message_id
           )
           UPDATE messages m SET state = COALESCE(agg.first_failure, 'delivered'), error = agg.failure_stat, updated_at = now()
             FROM agg
            WHERE m.id = agg.message_id AND ${PRUNED_BY_IDS} AND agg.open = 0 AND m.state = 'submitted'
           RETURNING m.id, m.state, ${wishedReport('m', receiptEvent('m'))} AS report, m.smsc_id, agg.failure_stat`,
    [ids],
  );
  return rows;
}

// ---- failover (dispatcher) ----

/**
 * Passes waiting messages whose current connector is `from` to the next connector of their route,
 * appending it to their trail; answers those that moved, with the connector their job now goes
 * to. Messages whose route has no connector after `from` stay where they are.
 */
export async function failOverWaiting(
  db: Queryable,
  ids: readonly string[],
  from: string,
): Promise<MessageJobRow[]> {
  const { rows } = await db.query<MessageJobRow>(
    `UPDATE messages m
        SET connector_trail = m.connector_trail || m.connectors[array_position(m.connectors, $2) + 1], updated_at = now()
      WHERE m.id = ANY($1::uuid[]) AND ${notIndexed('m.state')} IN (${WAITING})
        AND m.connector_trail[cardinality(m.connector_trail)] = $2
        AND array_position(m.connectors, $2) < cardinality(m.connectors)
      RETURNING m.id, m.account_id, m.segments, m.connector_trail[cardinality(m.connector_trail)] AS connector`,
    [ids, from],
  );
  return rows;
}

/**
 * A message the SMSC of `from` refused with a status its route passes on (reroute_on): back to
 * waiting, for the route's next connector, keeping its id and its charge. Answers the connector
 * it now goes to; undefined when it was no longer `submitting` or has no next connector.
 */
export async function failOverSubmitting(
  db: Queryable,
  id: string,
  from: string,
  error: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ connector: string }>(
    `UPDATE messages m
        SET state = 'queued', error = $3, updated_at = now(),
            connector_trail = m.connector_trail || m.connectors[array_position(m.connectors, $2) + 1]
      WHERE m.id = $1 AND m.state = 'submitting'
        AND array_position(m.connectors, $2) < cardinality(m.connectors)
      RETURNING m.connector_trail[cardinality(m.connector_trail)] AS connector`,
    [id, from, error],
  );
  return rows[0]?.connector;
}

/** How many messages wait for this connector (a connector with any cannot be removed). */
export async function countWaitingForConnector(db: Queryable, connector: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM messages WHERE unsent AND state IN (${WAITING}, 'submitting') AND ${CURRENT_CONNECTOR} = $1`,
    [connector],
  );
  return rows[0].n;
}

/**
 * Waiting messages whose current connector is this one (held while it was stopped), by id after
 * `after` (null: from the first), so a caller pages through them once.
 */
export async function waitingForConnector(
  db: Queryable,
  connector: string,
  after: string | null,
  limit: number,
): Promise<MessageJobRow[]> {
  const { rows } = await db.query<MessageJobRow>(
    `SELECT id, account_id, segments, ${CURRENT_CONNECTOR} AS connector FROM messages
      WHERE unsent AND state IN (${WAITING}) AND ${CURRENT_CONNECTOR} = $1 AND ($2::uuid IS NULL OR id > $2::uuid)
      ORDER BY id LIMIT $3`,
    [connector, after, limit],
  );
  return rows;
}

// ---- recovery (dispatcher) ----

/** What a job names: the message, its account and its segments. */
export interface MessageJobRow {
  id: string;
  account_id: string;
  segments: number;
  /** The connector whose queue takes its job: the last it was offered to (docs/routing.md). */
  connector: string;
}

/** A message's current connector: the last of its trail; messages from before routing: default. */
export const CURRENT_CONNECTOR = `COALESCE(connector_trail[cardinality(connector_trail)], '${DEFAULT_CONNECTOR}')`;

/** The messages job_outbox rows name that are still `queued`, by account and age. */
export async function queuedMessagesOfJobOutbox(
  tx: Queryable,
  outboxIds: readonly string[],
): Promise<MessageJobRow[]> {
  const { rows } = await tx.query<MessageJobRow>(
    `SELECT m.id, m.account_id, m.segments, ${CURRENT_CONNECTOR.replace(/connector_trail/g, 'm.connector_trail')} AS connector
             FROM messages m
            WHERE m.id IN (SELECT unnest(o.message_ids) FROM job_outbox o WHERE o.id = ANY($1::bigint[]))
              AND ${notIndexed('m.state')} = 'queued'
            ORDER BY m.account_id, m.created_at`,
    [outboxIds],
    { planEachCall: true },
  );
  return rows;
}

/**
 * Up to `limit` messages in the given waiting states, last changed and last swept before
 * `cutoff`, the first accepted first; marks them swept now, so another sweeper passes them over
 * until they are that old again. The unsent ones are all a sweep reads (index messages_unsent).
 */
export async function sweepWaitingMessages(
  db: Queryable,
  states: readonly (typeof WAITING_STATES)[number][],
  cutoff: Date,
  limit: number,
): Promise<MessageJobRow[]> {
  const { rows } = await db.query<MessageJobRow>(
    `UPDATE messages SET swept_at = now()
          WHERE id IN (SELECT id FROM messages WHERE unsent AND state IN (${sqlList(states)}) AND updated_at < $1
                          AND (swept_at IS NULL OR swept_at < $1)
                        ORDER BY id LIMIT ${checkedLimit(limit)} FOR UPDATE SKIP LOCKED)
          RETURNING id, account_id, segments, ${CURRENT_CONNECTOR} AS connector`,
    [cutoff],
  );
  return rows;
}

/**
 * Up to `limit` messages claimed for submission before `cutoff` and still `submitting`: their
 * dispatcher stopped before it recorded the SMSC's answer. They are not marked: the dispatcher's
 * conditional update makes a second job for one harmless.
 */
export async function staleSubmittingMessages(
  db: Queryable,
  cutoff: Date,
  limit: number,
): Promise<MessageJobRow[]> {
  const { rows } = await db.query<MessageJobRow>(
    `SELECT id, account_id, segments, ${CURRENT_CONNECTOR} AS connector FROM messages
          WHERE unsent AND state = 'submitting' AND ${SUBMIT_STARTED} < $1
          ORDER BY id LIMIT ${checkedLimit(limit)}`,
    [cutoff],
  );
  return rows;
}

/**
 * Seconds since the first accepted of the waiting messages was accepted (null when none waits).
 * Ids are in order of acceptance, so this reads the unsent ones from the first until a waiting one.
 */
export async function oldestWaitingAge(db: Queryable): Promise<number | null> {
  const { rows } = await db.query<{ age: number | null }>(
    `SELECT EXTRACT(EPOCH FROM now() - created_at)::float8 AS age FROM messages
      WHERE unsent AND state IN (${WAITING}) ORDER BY id LIMIT 1`,
  );
  return rows[0]?.age ?? null;
}

/**
 * Messages waiting past their limit (the batch-scheduler's overdue gauge): `queued` (or
 * `accepted`) unchanged for `waitingSeconds`, and `submitting` since `submittingSeconds` without
 * the SMSC's answer recorded. Reads the unsent ones only (index messages_unsent).
 */
export async function countOverdueMessages(
  db: Queryable,
  waitingSeconds: number,
  submittingSeconds: number,
): Promise<{ queued: number; submitting: number }> {
  const { rows } = await db.query<{ queued: number; submitting: number }>(
    `SELECT count(*) FILTER (WHERE state IN (${WAITING}) AND updated_at < now() - make_interval(secs => $1))::int AS queued,
            count(*) FILTER (WHERE state = 'submitting' AND ${SUBMIT_STARTED} < now() - make_interval(secs => $2))::int
              AS submitting
       FROM messages WHERE unsent`,
    [waitingSeconds, submittingSeconds],
  );
  return rows[0] ?? { queued: 0, submitting: 0 };
}

/** One minute's messages by what has become of them, as minuteCounts reads them. */
export interface MinuteCount {
  minute: Date;
  accepted: number;
  delivered: number;
  /** Refused, failed, expired or undelivered: ended without reaching the handset. */
  failed: number;
  /** Not ended: waiting, being submitted, or at the SMSC awaiting its receipt. */
  waiting: number;
  cancelled: number;
}

const NOT_DELIVERED = sqlList(['undelivered', 'expired', ...FAILED_STATES]);

/**
 * The messages accepted since `since`, by minute of acceptance and what has become of each; a
 * minute without messages has no row. Ids are in order of acceptance, so this reads the newest
 * partition's range from the floor of `since` on.
 */
export async function minuteCounts(db: Queryable, since: Date): Promise<MinuteCount[]> {
  const { rows } = await db.query<MinuteCount>(
    `SELECT date_trunc('minute', created_at) AS minute, count(*)::int AS accepted,
            count(*) FILTER (WHERE state = 'delivered')::int AS delivered,
            count(*) FILTER (WHERE state IN (${NOT_DELIVERED}))::int AS failed,
            count(*) FILTER (WHERE state <> ALL ($3::text[]))::int AS waiting,
            count(*) FILTER (WHERE state = 'cancelled')::int AS cancelled
       FROM messages WHERE id >= $1::uuid AND created_at >= $2
      GROUP BY 1 ORDER BY 1`,
    [timeIdFloor(since), since, FINAL_STATES],
  );
  return rows;
}
