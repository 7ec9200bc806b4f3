import type { InboundRecord } from '@smsgw/contracts';
import type { Queryable } from '@smsgw/kit';

/** Statements on `inbound_messages` (migration 016) and `inbound_parts` (migration 018). */

export interface InboundMessageRow {
  id: string;
  connector: string;
  from_addr: string;
  to_addr: string;
  coding: number;
  content: string | null;
  hex_content: string | null;
  parts_expected: number;
  parts_received: number;
  incomplete: boolean;
  state: 'received' | 'routed' | 'delivered' | 'failed' | 'unrouted';
  account_id: string | null;
  mo_route: string | null;
  keyword: string | null;
  received_at: Date;
}

const INBOUND_COLUMNS = `id, connector, from_addr, to_addr, coding, content, hex_content,
  parts_expected, parts_received, incomplete, state, account_id, mo_route, keyword, received_at`;

/** One inbound message by id. */
export async function findInboundMessage(
  db: Queryable,
  id: string,
): Promise<InboundMessageRow | undefined> {
  const { rows } = await db.query<InboundMessageRow>(
    `SELECT ${INBOUND_COLUMNS}
       FROM inbound_messages WHERE id = $1`,
    [id],
  );
  return rows[0];
}

/** What the receiving side records of a whole inbound message. */
export type NewInboundMessage = InboundRecord;

/** Records the message unless it is a repeat; true when it was recorded now. */
export async function recordInboundMessage(db: Queryable, m: NewInboundMessage): Promise<boolean> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO inbound_messages (id, connector, from_addr, to_addr, coding, content, hex_content,
                                   parts_expected, parts_received, incomplete, keyword, dedup_key)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12
      WHERE NOT EXISTS (SELECT 1 FROM inbound_messages WHERE dedup_key = $13)
     ON CONFLICT (dedup_key) DO NOTHING
     RETURNING id`,
    [
      m.id,
      m.connector,
      m.from,
      m.to,
      m.coding,
      m.content,
      m.hexContent,
      m.partsExpected,
      m.partsReceived,
      m.incomplete,
      m.keyword,
      m.dedupKey,
      m.previousDedupKey,
    ],
  );
  return rows.length === 1;
}

/** One part of a concatenated inbound message, as inbound_parts keeps it. */
export interface InboundPartRow {
  connector: string;
  from_addr: string;
  to_addr: string;
  ref: number;
  total: number;
  seq: number;
  coding: number;
  body: Buffer;
}

/**
 * Keeps a part (a repeat of one already kept changes nothing) and, when every part of its message
 * is there, takes them all out, in part order; else answers none. Inside the caller's transaction,
 * under a lock on the message so two dispatchers receiving its parts at once join it once.
 */
export async function addInboundPart(
  tx: Queryable,
  part: InboundPartRow,
): Promise<InboundPartRow[]> {
  const key = [part.connector, part.from_addr, part.to_addr, part.ref, part.total];
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [JSON.stringify(key)]);
  await tx.query(
    `INSERT INTO inbound_parts (connector, from_addr, to_addr, ref, total, seq, coding, body)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT DO NOTHING`,
    [...key, part.seq, part.coding, part.body],
  );
  const { rows } = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM inbound_parts
      WHERE connector = $1 AND from_addr = $2 AND to_addr = $3 AND ref = $4 AND total = $5`,
    key,
  );
  if (rows[0].n < part.total) return [];
  return takeInboundParts(tx, key);
}

async function takeInboundParts(
  tx: Queryable,
  key: readonly (string | number)[],
): Promise<InboundPartRow[]> {
  const { rows } = await tx.query<InboundPartRow>(
    `DELETE FROM inbound_parts
      WHERE connector = $1 AND from_addr = $2 AND to_addr = $3 AND ref = $4 AND total = $5
      RETURNING connector, from_addr, to_addr, ref, total, seq, coding, body`,
    key,
  );
  return rows.sort((a, b) => a.seq - b.seq);
}

/**
 * Takes out the parts of every message whose first part arrived before `olderThanMs` ago, grouped
 * per message in part order, to be delivered incomplete. One sweeper at a time (the others find
 * the lock taken and answer nothing).
 */
export async function takeExpiredInboundParts(
  tx: Queryable,
  olderThanMs: number,
): Promise<InboundPartRow[][]> {
  const { rows: lock } = await tx.query<{ ok: boolean }>(
    `SELECT pg_try_advisory_xact_lock(hashtext('smsgw inbound part sweep')) AS ok`,
  );
  if (!lock[0].ok) return [];
  const { rows } = await tx.query<InboundPartRow>(
    `DELETE FROM inbound_parts p
      USING (SELECT connector, from_addr, to_addr, ref, total FROM inbound_parts
              GROUP BY connector, from_addr, to_addr, ref, total
             HAVING min(received_at) < now() - make_interval(secs => $1::float8 / 1000)) old
      WHERE p.connector = old.connector AND p.from_addr = old.from_addr AND p.to_addr = old.to_addr
        AND p.ref = old.ref AND p.total = old.total
      RETURNING p.connector, p.from_addr, p.to_addr, p.ref, p.total, p.seq, p.coding, p.body`,
    [olderThanMs],
  );
  const groups = new Map<string, InboundPartRow[]>();
  for (const row of rows) {
    const key = [row.connector, row.from_addr, row.to_addr, row.ref, row.total].join('\u0000');
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return [...groups.values()].map((parts) => parts.sort((a, b) => a.seq - b.seq));
}

/**
 * Records where the message goes: the account a route gave it to (state routed), or none
 * (unrouted). Only from `received`, so a repeated event routes it once; true when it moved.
 */
export async function routeInboundMessage(
  tx: Queryable,
  id: string,
  to: { accountId: string; moRoute: string } | null,
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE inbound_messages SET state = $2, account_id = $3, mo_route = $4, updated_at = now()
      WHERE id = $1 AND state = 'received'`,
    [id, to ? 'routed' : 'unrouted', to?.accountId ?? null, to?.moRoute ?? null],
  );
  return rowCount === 1;
}

/**
 * Whether the account an inbound message was routed to is disabled now (a compound statement with
 * `accounts`); false for a message no account has.
 */
export async function isInboundAccountDisabled(db: Queryable, id: string): Promise<boolean> {
  const { rows } = await db.query<{ disabled: boolean }>(
    `SELECT a.disabled_at IS NOT NULL AS disabled
       FROM inbound_messages i JOIN accounts a ON a.id = i.account_id WHERE i.id = $1`,
    [id],
  );
  return rows[0]?.disabled ?? false;
}

/** The webhook took it (delivered) or was given up (failed). */
export async function setInboundDelivery(
  db: Queryable,
  id: string,
  state: 'delivered' | 'failed',
): Promise<void> {
  await db.query(
    `UPDATE inbound_messages SET state = $2, updated_at = now() WHERE id = $1 AND state = 'routed'`,
    [id, state],
  );
}

/** Messages still `received` after olderThanMs: their event was lost (the sweep routes them). */
export async function staleReceivedInbound(
  db: Queryable,
  olderThanMs: number,
  limit: number,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM inbound_messages
      WHERE state = 'received' AND received_at < now() - make_interval(secs => $1::float8 / 1000)
      ORDER BY received_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((r) => r.id);
}

export interface InboundQuery {
  limit: number;
  /** The cursor: messages received before this one (newest first). */
  before?: { receivedAt: Date; id: string };
  to?: string;
  from?: string;
  since?: Date;
  until?: Date;
}

/** The account's messages, newest first, with the filters that are set. */
export async function listInboundOfAccount(
  db: Queryable,
  accountId: string,
  q: InboundQuery,
): Promise<InboundMessageRow[]> {
  const { rows } = await db.query<InboundMessageRow>(
    `SELECT ${INBOUND_COLUMNS}
       FROM inbound_messages
      WHERE account_id = $1
        AND ($2::timestamptz IS NULL OR (received_at, id) < ($2::timestamptz, $3::uuid))
        AND ($4::text IS NULL OR to_addr = $4) AND ($5::text IS NULL OR from_addr = $5)
        AND ($6::timestamptz IS NULL OR received_at >= $6)
        AND ($7::timestamptz IS NULL OR received_at < $7)
      ORDER BY received_at DESC, id DESC LIMIT $8`,
    [
      accountId,
      q.before?.receivedAt ?? null,
      q.before?.id ?? null,
      q.to ?? null,
      q.from ?? null,
      q.since ?? null,
      q.until ?? null,
      q.limit,
    ],
  );
  return rows;
}

/** Messages no route took, newest first (the admin's view). */
export async function listUnroutedInbound(
  db: Queryable,
  limit: number,
): Promise<InboundMessageRow[]> {
  const { rows } = await db.query<InboundMessageRow>(
    `SELECT ${INBOUND_COLUMNS}
       FROM inbound_messages WHERE state = 'unrouted' ORDER BY received_at DESC LIMIT $1`,
    [limit],
  );
  return rows;
}

/**
 * Retention (docs/retention.md): removes up to `limit` inbound messages received before `cutoff`;
 * answers how many went.
 */
export async function deleteInboundBefore(
  db: Queryable,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM inbound_messages WHERE id IN (
       SELECT id FROM inbound_messages WHERE received_at < $1 ORDER BY received_at LIMIT $2)`,
    [cutoff, limit],
  );
  return rowCount;
}
