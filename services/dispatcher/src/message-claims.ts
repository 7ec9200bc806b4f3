import type { Db } from '@smsgw/kit';
import type { MessageDlrEvent, MessageResultEvent, MessageState } from '@smsgw/contracts';
import type { DeliveryReceipt } from '@smsgw/smsc';

export interface GroupClaim {
  /** The messages this claim took, in no particular order; the others were not claimable. */
  messages: ClaimedMessage[];
  /** Commits the claim; safe to call more than once. */
  commit(): Promise<void>;
}

export interface ClaimedMessage {
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
}

export interface SubmittedMessage {
  id: string;
  /** Every part's SMSC id, in part order. */
  smscIds: readonly string[];
}

/** A delivery receipt with the message state it leads to. */
export type PartReceipt = Omit<DeliveryReceipt, 'state'> & { state: MessageState };

/**
 * The message.result event of the rows an UPDATE returned (as `m`), for those someone waits for,
 * written to the outbox in the same statement (migration 005). The test is migration 005's
 * smsgw_wants_result written out: Postgres cannot inline a function holding a subquery, and
 * calling it per message (~4 µs each, and a lookup of the batch each) made the answers' statement
 * 34.5 µs per message where written out, the batches read once per batch of the group, it is 23.
 */
const resultOutbox = (
  rows: string,
  outcome: string,
  smscId: string,
  error: string,
  connector: string,
): string => `
  INSERT INTO outcome_outbox (message_id, topic, payload)
  SELECT m.id, 'message.result', jsonb_build_object(
           'messageId', m.id, 'accountId', m.account_id, 'batchId', m.batch_id, 'to', m.to_addr, 'outcome', ${outcome},
           'smscId', ${smscId}, 'error', ${error}, 'connector', ${connector}, 'at', now())
    FROM ${rows} m
   WHERE (m.params->>'dlr' = 'yes' AND m.params->>'dlr_url' IS NOT NULL AND COALESCE(m.params->>'dlr_level', '1') IN ('1', '3'))
      OR m.batch_id IN (SELECT b.id FROM batches b
                         WHERE b.id IN (SELECT DISTINCT r.batch_id FROM ${rows} r WHERE r.batch_id IS NOT NULL)
                           AND (b.callback_url IS NOT NULL OR b.errback_url IS NOT NULL))
  ON CONFLICT DO NOTHING
  RETURNING message_id, payload`;

/**
 * A column compared so that no index on it can serve the comparison. The group statements find
 * their rows by id; given `state = 'submitting'`, Postgres may instead walk the index on state
 * (its statistics say few rows are `submitting`), where every message that was ever submitting
 * left an entry to step over: measured, that plan made the group statements several times dearer.
 */
export const notIndexed = (column: string): string => `COALESCE(${column}, '')`;

/**
 * The dispatcher's state transitions. Each is a conditional UPDATE on the expected state, which is
 * what makes a redelivered job harmless (DESIGN.md 4.5, promise 2).
 */
export class MessageClaims {
  constructor(
    private readonly db: Db,
    /** The connector's name, reported in result events and delivery reports. */
    private readonly connector: string,
  ) {}

  /**
   * Takes messages for submission inside a transaction left open: the caller commits it right
   * after their submit_sm are written (promise 2), so a crash before the writes leaves them queued
   * (and they are sent later) instead of `submitting` (and never sent). One statement for the group.
   */
  async begin(ids: readonly string[]): Promise<GroupClaim> {
    return new Promise<GroupClaim>((resolve, reject) => {
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const done = this.db.transaction(async (tx) => {
        const { rows } = await tx.query<ClaimedMessage>(
          `UPDATE messages m SET state = 'submitting', attempts = m.attempts + 1, updated_at = now()
             FROM unnest($1::uuid[]) AS i(id)
            WHERE m.id = i.id AND ${notIndexed('m.state')} IN ('accepted', 'queued')
            RETURNING m.id, m.account_id, m.batch_id, m.to_addr, m.from_addr, m.content, m.hex_content, m.coding, m.segments, m.params, m.attempts`,
          [ids],
          { planEachCall: true },
        );
        resolve({
          messages: rows,
          commit: () => {
            release();
            return done;
          },
        });
        if (rows.length > 0) await released;
      });
      done.catch(reject);
    });
  }

  async current(id: string): Promise<{ state: MessageState; age_ms: number } | undefined> {
    const { rows } = await this.db.query<{ state: MessageState; age_ms: number }>(
      `SELECT state, (EXTRACT(EPOCH FROM (now() - updated_at)) * 1000)::float8 AS age_ms FROM messages WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  /**
   * Records the SMSC's answers of a group in one statement: each message's first id, and for a
   * message of several parts every part's id, for receipt matching. A message of one part is
   * matched by its own smsc_id: a part row for it would be most of this statement's cost.
   * Answers which messages moved (a redelivered job's did not).
   */
  async markSubmitted(
    messages: readonly SubmittedMessage[],
  ): Promise<Map<string, MessageResultEvent | null>> {
    if (messages.length === 0) return new Map();
    const parts = messages
      .filter((m) => m.smscIds.length > 1)
      .flatMap((m) => m.smscIds.map((smscId, i) => ({ id: m.id, seq: i + 1, smscId })));
    const { rows } = await this.db.query<{ id: string; payload: MessageResultEvent | null }>(
      `WITH submitted AS (
         UPDATE messages m SET state = 'submitted', smsc_id = i.smsc_id, submitted_at = now(), updated_at = now(), error = NULL
           FROM unnest($1::uuid[], $2::text[]) AS i(id, smsc_id)
          WHERE m.id = i.id AND ${notIndexed('m.state')} = 'submitting'
         RETURNING m.id, m.account_id, m.batch_id, m.to_addr, m.params, m.smsc_id
       ), parts AS (
         INSERT INTO message_parts (message_id, seq, smsc_id)
         SELECT p.id, p.seq, p.smsc_id
           FROM unnest($3::uuid[], $4::smallint[], $5::text[]) AS p(id, seq, smsc_id)
           JOIN submitted s ON s.id = p.id
       ), outbox AS (${resultOutbox('submitted', "'submitted'", 'm.smsc_id', 'NULL', '$6::text')}
       )
       SELECT s.id, o.payload FROM submitted s LEFT JOIN outbox o ON o.message_id = s.id`,
      [
        messages.map((m) => m.id),
        messages.map((m) => m.smscIds[0] ?? ''),
        parts.map((p) => p.id),
        parts.map((p) => p.seq),
        parts.map((p) => p.smscId),
        this.connector,
      ],
      { planEachCall: true },
    );
    return new Map(rows.map((r) => [r.id, r.payload]));
  }

  /** A transient SMSC error: back to the queue for a later attempt. */
  async requeue(id: string, error: string): Promise<void> {
    await this.db.query(
      `UPDATE messages SET state = 'queued', error = $2, updated_at = now() WHERE id = $1 AND state = 'submitting'`,
      [id, error],
    );
  }

  /**
   * Fails the message; with refund, gives back its cost and segments in the same statement and
   * records the refund in the ledger (a unique index makes a second refund impossible).
   */
  async fail(
    id: string,
    error: string,
    refund: boolean,
  ): Promise<{ failed: boolean; event: MessageResultEvent | null }> {
    const { rows } = await this.db.query<{ id: string; payload: MessageResultEvent | null }>(
      `WITH failed AS (
         UPDATE messages SET state = 'failed', error = $2, updated_at = now()
          WHERE id = $1 AND state = 'submitting'
          RETURNING id, account_id, batch_id, cost, segments, to_addr, params
       ), refunded AS (
         UPDATE accounts a SET balance = a.balance + f.cost, sms_count = a.sms_count + f.segments, updated_at = now()
           FROM failed f WHERE $3::boolean AND a.id = f.account_id
         RETURNING a.id
       ), ledger AS (
         INSERT INTO credit_ledger (account_id, amount, sms_count, reason, message_id, batch_id)
         SELECT account_id, cost, segments, 'refund', id, batch_id FROM failed WHERE $3::boolean
       ), outbox AS (${resultOutbox('failed', "'failed'", 'NULL', '$2::text', '$4::text')}
       )
       SELECT f.id, o.payload FROM failed f LEFT JOIN outbox o ON o.message_id = f.id`,
      [id, error, refund, this.connector],
    );
    return { failed: rows.length === 1, event: rows[0]?.payload ?? null };
  }

  /**
   * Records a group of receipts. A message of one part takes its receipt's state. A message of
   * several parts takes, once every part has a final receipt, the aggregate state: delivered only
   * if every part was, else the first failing part's state. The messages' rows are locked before
   * the aggregate is read, so parts of one message recorded by two dispatchers at once still
   * complete it. Answers, per receipt, its match (undefined: no submitted message or part has that
   * id yet); `final` is set on one receipt per completed message.
   */
  async recordReceipts(receipts: readonly PartReceipt[]): Promise<(ReceiptMatch | undefined)[]> {
    if (receipts.length === 0) return [];
    return this.db.transaction(async (tx) => {
      const parts = await tx.query<{ message_id: string; smsc_id: string }>(
        `UPDATE message_parts p SET state = i.state, stat = i.stat, err = i.err, updated_at = now()
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS i(smsc_id, state, stat, err)
          WHERE p.smsc_id = i.smsc_id AND p.state = 'submitted'
          RETURNING p.message_id, p.smsc_id`,
        [
          receipts.map((r) => r.smscId),
          receipts.map((r) => r.state),
          receipts.map((r) => r.stat),
          receipts.map((r) => r.err),
        ],
      );
      const messageOf = new Map(parts.rows.map((r) => [r.smsc_id, r.message_id]));
      const messageIds = [...new Set(messageOf.values())];
      const finals = new Map<
        string,
        { state: MessageState; dlr: boolean; smsc_id: string; failure_stat: string | null }
      >();
      const single = receipts.filter((r) => !messageOf.has(r.smscId));
      if (single.length > 0) {
        const singles = await tx.query<{
          id: string;
          state: MessageState;
          dlr: boolean;
          smsc_id: string;
          failure_stat: string | null;
        }>(
          `UPDATE messages m SET state = i.state, error = CASE WHEN i.state = 'delivered' THEN NULL ELSE i.stat || ' err:' || i.err END, updated_at = now()
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS i(smsc_id, state, stat, err)
            WHERE m.smsc_id = i.smsc_id AND m.state = 'submitted'
              AND NOT EXISTS (SELECT 1 FROM message_parts p WHERE p.message_id = m.id)
           RETURNING m.id, m.state, COALESCE(m.params->>'dlr' = 'yes', false) AS dlr, m.smsc_id, m.error AS failure_stat`,
          [
            single.map((r) => r.smscId),
            single.map((r) => r.state),
            single.map((r) => r.stat),
            single.map((r) => r.err),
          ],
        );
        for (const row of singles.rows) {
          messageOf.set(row.smsc_id, row.id);
          finals.set(row.id, row);
        }
      }
      if (messageIds.length > 0) {
        await tx.query(
          `SELECT id FROM messages WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
          [messageIds],
        );
        const completed = await tx.query<{
          id: string;
          state: MessageState;
          dlr: boolean;
          smsc_id: string;
          failure_stat: string | null;
        }>(
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
            WHERE m.id = agg.message_id AND agg.open = 0 AND m.state = 'submitted'
           RETURNING m.id, m.state, COALESCE(m.params->>'dlr' = 'yes', false) AS dlr, m.smsc_id, agg.failure_stat`,
          [messageIds],
        );
        for (const row of completed.rows) finals.set(row.id, row);
      }
      const matches = receipts.map((receipt): ReceiptMatch | undefined => {
        const messageId = messageOf.get(receipt.smscId);
        if (!messageId) return undefined;
        const final = finals.get(messageId);
        if (!final) return { messageId, final: undefined };
        finals.delete(messageId); // reported once, with the receipt that completed it
        return {
          messageId,
          final: final.state,
          ...(final.dlr && { report: this.deliveryReport(messageId, final, receipt) }),
        };
      });
      const reports = matches.flatMap((m) => (m?.report ? [m.report] : []));
      if (reports.length > 0) {
        // In the same transaction as the state: the report survives a crash before its publish.
        await tx.query(
          `INSERT INTO outcome_outbox (message_id, topic, payload)
           SELECT (r->>'messageId')::uuid, 'message.dlr', r FROM jsonb_array_elements($1::jsonb) AS r
           ON CONFLICT DO NOTHING`,
          [JSON.stringify(reports)],
        );
      }
      return matches;
    });
  }

  /** The message.dlr event of a completed message: the status of its first failing part, else this receipt's. */
  private deliveryReport(
    messageId: string,
    final: { smsc_id: string; failure_stat: string | null },
    receipt: PartReceipt,
  ): MessageDlrEvent {
    return {
      messageId,
      smscId: final.smsc_id || receipt.smscId,
      status: final.failure_stat ? final.failure_stat.split(' ')[0] : receipt.stat,
      err: receipt.err || null,
      connector: this.connector,
      sub: receipt.sub,
      dlvrd: receipt.dlvrd,
      submitDate: receipt.submitDate,
      doneDate: receipt.doneDate,
      text: receipt.text,
      at: new Date().toISOString(),
    };
  }
}

export interface ReceiptMatch {
  messageId: string;
  /** Set when this receipt completed the message. */
  final: MessageState | undefined;
  /** The delivery report to publish (the client asked for one; it is in the outbox already). */
  report?: MessageDlrEvent;
}
