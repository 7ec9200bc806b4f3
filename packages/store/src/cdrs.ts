import { FINAL_STATES } from '@smsgw/contracts';
import { timeIdFloor, type Queryable } from '@smsgw/kit';
import { refundJoin, refundedAmountJoined } from './messages';
import { sqlList } from './sql-list';

/**
 * Statements on `cdrs` and `calling_codes` (docs/operators.md § CDRs): the billing record of each
 * message in a final state, read from `messages` while its period's partitions are there and from
 * `cdrs` once they are dropped. A period is in one of the two, never both, so the union of the two
 * in id order has no duplicate.
 * A message's country is its destination's calling code, joined from `calling_codes` on its first
 * one, two and three digits (at most one matches: the codes are prefix-free), which the planner
 * probes once per distinct prefix; smsgw_calling_code (migration 036) names it where one call
 * serves.
 */

const FINAL = sqlList(FINAL_STATES);

/** The state, number, status and error of one part of a multi-part message (message_parts). */
export interface CdrPart {
  seq: number;
  smsc_id: string;
  state: string;
  stat: string | null;
  err: string | null;
}

/** One message's CDR as stored; money as numeric text. */
export interface CdrRow {
  id: string;
  username: string;
  entry: string | null;
  from_addr: string | null;
  to_addr: string;
  country_code: string;
  segments: number;
  coding: number;
  charged: string;
  refunded: string;
  /** The price list version that priced it; null when its route's price or its account's rate did. */
  price_version: string | null;
  /** What it cost us through the connector that took it, and that cost list's version; null: not known. */
  supplier_cost: string | null;
  cost_version: string | null;
  route: string | null;
  connector: string | null;
  smsc_id: string | null;
  batch_id: string | null;
  /** Times as UTC ISO 8601 text with milliseconds, as the export writes them. */
  accepted_at: string;
  submitted_at: string | null;
  done_at: string;
  state: string;
  error: string | null;
  /** Its parts in order when it was sent in several and they are asked for; null otherwise. */
  part_rows: CdrPart[] | null;
}

const PART_ROWS = `(SELECT jsonb_agg(jsonb_build_object('seq', p.seq, 'smsc_id', p.smsc_id, 'state', p.state,
                                                     'stat', p.stat, 'err', p.err) ORDER BY p.seq)
                      FROM message_parts p WHERE p.message_id = m.id)`;

/**
 * The CDR columns of a message `m` of `messages` as joined by liveFrom, but its parts. Its done
 * time is its last change (updated_at), which nothing changes once its state is final. Functions,
 * not constants: message-partitions.ts, which messages.ts loads, loads this module too.
 */
const liveColumns = (
  time: (column: string) => string = (c) => c,
  version: (column: string) => string = (c) => c,
): string => `m.id, COALESCE(a.username, m.account_id::text) AS username, m.entry, m.from_addr, m.to_addr,
  COALESCE(c1.code, c2.code, c3.code, '') AS country_code, m.segments, m.coding, m.cost AS charged,
  (${refundedAmountJoined('m', 'r')})::numeric(20, 6) AS refunded,
  ${version('m.price_version')} AS price_version, m.supplier_cost, ${version('m.cost_version')} AS cost_version, m.route, m.connector, m.smsc_id, m.batch_id,
  ${time('m.created_at')} AS accepted_at, ${time('m.submitted_at')} AS submitted_at,
  ${time('m.updated_at')} AS done_at, m.state, m.error`;

/** Messages `m` with their account `a`, refund row `r` and calling code (c1, c2 or c3). */
const liveFrom = (): string => `messages m LEFT JOIN accounts a ON a.id = m.account_id
        ${refundJoin('m', 'r')}
        LEFT JOIN calling_codes c1 ON c1.code = left(m.to_addr, 1)
        LEFT JOIN calling_codes c2 ON c2.code = left(m.to_addr, 2)
        LEFT JOIN calling_codes c3 ON c3.code = left(m.to_addr, 3)`;

/** The columns of `cdrs` a CdrRow has, in its order. */
const ARCHIVED =
  `id username entry from_addr to_addr country_code segments coding charged refunded price_version
  supplier_cost cost_version route connector smsc_id batch_id accepted_at submitted_at done_at state error`.split(
    /\s+/,
  );

const ARCHIVED_COLUMNS = ARCHIVED.join(', ');

const TIMES = new Set<string>(['accepted_at', 'submitted_at', 'done_at']);

/**
 * A time as the export writes it (UTC ISO 8601, milliseconds), formatted by the database, so that
 * the process writing the export neither parses nor formats a Date per time: that was a quarter of
 * its CPU per row (docs/decisions.md § CDRs).
 */
const isoUtc = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const VERSIONS = new Set<string>(['price_version', 'cost_version']);

/** The archive's columns as a CdrRow has them: the times as isoUtc text, versions as text. */
const ARCHIVED_ROW = ARCHIVED.map((c) =>
  TIMES.has(c) ? `${isoUtc(c)} AS ${c}` : VERSIONS.has(c) ? `${c}::text AS ${c}` : c,
).join(', ');

/**
 * Copies the CDRs of the messages of ids [lo, hi) (one period about to be dropped) into `cdrs`,
 * in the transaction that drops the period, so billing outlives the messages' content, which is
 * never copied. Every message of the period is copied: one not final yet (sent, its receipt never
 * come) ends with the drop, and was charged, so its CDR keeps the state it had. Answers how many
 * were copied.
 */
export async function archiveCdrs(tx: Queryable, lo: string, hi: string): Promise<number> {
  const { rowCount } = await tx.query(
    `INSERT INTO cdrs (${ARCHIVED_COLUMNS}, account_id, part_rows)
     SELECT ${liveColumns()}, m.account_id, ${PART_ROWS}
       FROM ${liveFrom()}
      WHERE m.id >= $1::uuid AND m.id < $2::uuid
     ON CONFLICT (id) DO NOTHING`,
    [lo, hi],
    { planEachCall: true },
  );
  return rowCount;
}

export interface CdrChunkQuery {
  /** Ids at or above (the floor of the range's start). */
  lo: string;
  /** Ids below (the floor of its end). */
  hi: string;
  /** Ids above: the last of the chunk before; the nil UUID for the first. */
  after: string;
  accountId?: string | undefined;
  /** With each multi-part message's parts (part_rows). */
  parts: boolean;
  limit: number;
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * One chunk of CDRs in id order, from live messages and from the archive, after `after`. Each
 * source reads by its primary key (or by (account_id, id) for one account: a message in a final
 * state is never unsent, which the index's predicate asks for), at most `limit` rows.
 */
export async function readCdrChunk(db: Queryable, q: CdrChunkQuery): Promise<CdrRow[]> {
  if (!Number.isInteger(q.limit) || q.limit < 1) throw new RangeError(`bad row limit ${q.limit}`);
  const byAccount = q.accountId !== undefined;
  const { rows } = await db.query<CdrRow>(
    `(SELECT ${liveColumns(isoUtc, (c) => `${c}::text`)}, ${q.parts ? PART_ROWS : 'NULL::jsonb'} AS part_rows
        FROM ${liveFrom()}
       WHERE m.id >= $1::uuid AND m.id < $2::uuid AND m.id > $3::uuid AND m.state IN (${FINAL})
             ${byAccount ? 'AND NOT m.unsent AND m.account_id = $4::uuid' : ''}
       ORDER BY m.id LIMIT ${q.limit})
     UNION ALL
     (SELECT ${ARCHIVED_ROW}, ${q.parts ? 'part_rows' : 'NULL::jsonb AS part_rows'}
        FROM cdrs c
       WHERE c.id >= $1::uuid AND c.id < $2::uuid AND c.id > $3::uuid
             ${byAccount ? 'AND c.account_id = $4::uuid' : ''}
       ORDER BY c.id LIMIT ${q.limit})
     ORDER BY id LIMIT ${q.limit}`,
    byAccount ? [q.lo, q.hi, q.after, q.accountId] : [q.lo, q.hi, q.after],
    { planEachCall: true },
  );
  return rows;
}

/**
 * The CDRs of messages accepted in [since, until), optionally of one account, in id order, read
 * `chunk` rows per statement so that memory stays flat whatever the range holds.
 */
export async function* readCdrs(
  db: Queryable,
  range: { since: Date; until: Date; accountId?: string | undefined; parts: boolean },
  chunk = 5_000,
): AsyncGenerator<CdrRow> {
  const lo = timeIdFloor(range.since);
  const hi = timeIdFloor(range.until);
  let after = NIL_UUID;
  for (;;) {
    const rows = await readCdrChunk(db, {
      lo,
      hi,
      after,
      accountId: range.accountId,
      parts: range.parts,
      limit: chunk,
    });
    for (const row of rows) yield row;
    if (rows.length < chunk) return;
    after = rows[rows.length - 1].id;
  }
}

/** Deletes up to `limit` CDRs of messages accepted before `cutoff` (CDR_RETENTION_DAYS). */
export async function deleteCdrsBefore(
  db: Queryable,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM cdrs WHERE id IN (SELECT id FROM cdrs WHERE id < $1::uuid ORDER BY id LIMIT $2)`,
    [timeIdFloor(cutoff), limit],
  );
  return rowCount;
}
