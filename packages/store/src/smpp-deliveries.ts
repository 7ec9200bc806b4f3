import type { Queryable } from '@smsgw/kit';

/**
 * Statements on `smpp_deliveries` (migration 032): receipts and inbound messages waiting for an
 * account's SMPP sessions. insertSmppReceipts also reads `messages` (the message the receipt is
 * for), named in messages.ts. message-search.ts messageStorySmppReceipt reads a message's waiting
 * receipt for its story.
 */

export interface SmppDeliveryRow {
  id: string;
  account_id: string;
  kind: 'receipt' | 'inbound';
  source_id: string;
  pdu: Record<string, unknown>;
  created_at: Date;
  attempts: number;
}

/** What the receipt says, as the dispatcher recorded it (a message.dlr event). */
export interface SmppReceiptReport {
  messageId: string;
  stat: string;
  err: string | null;
  doneDate: string;
  text: string;
}

/**
 * Keeps the receipts of messages their customer submitted over SMPP asking for one (their report
 * wish's style `smpp`, decided at acceptance), with what the deliver_sm needs of each message;
 * nothing for any other message. Once per message: a report handled twice changes nothing. One
 * statement for the group; returns how many were kept.
 */
export async function insertSmppReceipts(
  db: Queryable,
  reports: readonly SmppReceiptReport[],
): Promise<number> {
  const { rowCount } = await db.query(
    `INSERT INTO smpp_deliveries (account_id, kind, source_id, pdu)
     SELECT m.account_id, 'receipt', m.id,
            jsonb_build_object('stat', r.stat, 'err', r.err, 'doneDate', r.done_date, 'text', r.text,
                               'to', m.to_addr, 'from', m.from_addr, 'submitted', m.created_at,
                               'content', m.content, 'hexContent', m.hex_content, 'coding', m.coding)
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[])
              AS r (id, stat, err, done_date, text)
       JOIN messages m ON m.id = r.id
      WHERE m.report_style = 'smpp'
     ON CONFLICT (kind, source_id) DO NOTHING`,
    [
      reports.map((r) => r.messageId),
      reports.map((r) => r.stat),
      reports.map((r) => r.err),
      reports.map((r) => r.doneDate),
      reports.map((r) => r.text),
    ],
  );
  return rowCount ?? 0;
}

/** An inbound message an MO route gives to the account's SMPP sessions (in the routing's transaction). */
export async function insertSmppInbound(
  db: Queryable,
  inbound: {
    id: string;
    accountId: string;
    from: string;
    to: string;
    coding: number;
    content: string | null;
    hexContent: string | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO smpp_deliveries (account_id, kind, source_id, pdu)
     VALUES ($1, 'inbound', $2, $3::jsonb) ON CONFLICT (kind, source_id) DO NOTHING`,
    [
      inbound.accountId,
      inbound.id,
      JSON.stringify({
        from: inbound.from,
        to: inbound.to,
        coding: inbound.coding,
        content: inbound.content,
        hexContent: inbound.hexContent,
      }),
    ],
  );
}

/**
 * Takes up to `limit` deliveries due for the accounts, leased for `leaseMs` (a deliver_sm not
 * answered by then is sent again); rows another replica is taking are skipped.
 */
export async function takeSmppDeliveries(
  db: Queryable,
  accountIds: readonly string[],
  leaseMs: number,
  limit: number,
): Promise<SmppDeliveryRow[]> {
  const { rows } = await db.query<SmppDeliveryRow>(
    `UPDATE smpp_deliveries d
        SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
      WHERE d.id IN (SELECT id FROM smpp_deliveries
                      WHERE account_id = ANY($1::uuid[]) AND next_attempt_at <= now()
                      ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
      RETURNING d.id, d.account_id, d.kind, d.source_id, d.pdu, d.created_at, d.attempts`,
    [accountIds, leaseMs, limit],
  );
  return rows;
}

/** The customer answered ESME_ROK to each: those deliveries are done. */
export async function deleteSmppDeliveries(db: Queryable, ids: readonly string[]): Promise<void> {
  await db.query('DELETE FROM smpp_deliveries WHERE id = ANY($1::bigint[])', [ids]);
}

/** The session it went out on closed before answering: due again at once, on another session. */
export async function releaseSmppDelivery(db: Queryable, id: string): Promise<void> {
  await db.query('UPDATE smpp_deliveries SET next_attempt_at = now() WHERE id = $1', [id]);
}

/** Drops what waited longer than the operator keeps it; returns how many. */
export async function expireSmppDeliveries(db: Queryable, hours: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM smpp_deliveries WHERE created_at < now() - make_interval(hours => $1)`,
    [hours],
  );
  return rowCount ?? 0;
}

/** How many wait, by kind, and the age of the oldest in seconds (for the metrics and the alert). */
export async function smppDeliveriesWaiting(
  db: Queryable,
): Promise<{ kind: string; count: number; oldest_seconds: number }[]> {
  const { rows } = await db.query<{ kind: string; count: string; oldest_seconds: string }>(
    `SELECT kind, count(*) AS count,
            COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0) AS oldest_seconds
       FROM smpp_deliveries GROUP BY kind`,
  );
  return rows.map((r) => ({
    kind: r.kind,
    count: Number(r.count),
    oldest_seconds: Number(r.oldest_seconds),
  }));
}

/** What waits for one account's SMPP sessions. */
export interface SmppWaitingRow {
  username: string;
  receipts: number;
  inbound: number;
  oldest_at: Date;
  /** The most times one of them was sent without an answer. */
  max_attempts: number;
  /** Over every account, not only those listed. */
  all_receipts: number;
  all_inbound: number;
}

/**
 * The accounts with receipts or inbound messages waiting for their SMPP sessions, those waiting
 * longest first. Also reads `accounts` (the username), named in accounts.ts.
 */
export async function smppWaitingByAccount(
  db: Queryable,
  limit: number,
): Promise<SmppWaitingRow[]> {
  const { rows } = await db.query<SmppWaitingRow>(
    `SELECT a.username, w.receipts, w.inbound, w.oldest_at, w.max_attempts,
            (sum(w.receipts) OVER ())::int AS all_receipts, (sum(w.inbound) OVER ())::int AS all_inbound
       FROM (SELECT account_id,
                    count(*) FILTER (WHERE kind = 'receipt')::int AS receipts,
                    count(*) FILTER (WHERE kind = 'inbound')::int AS inbound,
                    min(created_at) AS oldest_at, max(attempts)::int AS max_attempts
               FROM smpp_deliveries GROUP BY account_id) w
       JOIN accounts a ON a.id = w.account_id
      ORDER BY w.oldest_at, a.username LIMIT $1`,
    [limit],
  );
  return rows;
}
