import { UNKNOWN_OUTCOME_ERROR } from '@smsgw/contracts';
import type { Queryable } from '@smsgw/kit';

/**
 * A large synthetic message history written by the database itself (INSERT … SELECT over
 * generate_series), for `pnpm bench search`: accounts, their messages over weeks of periods, and
 * a few refunds. Nothing of the gateway calls these; they write `accounts`, `messages` and
 * `credit_ledger`, named in each one's module.
 */

/** The destination's country calling codes the history draws from, the first most often. */
export const SYNTHETIC_CALLING_CODES = ['41', '49', '33', '44', '1', '234', '91', '55'] as const;

/** The accounts' usernames: `<prefix>0001` … (the first ones send the most). */
export function syntheticUsername(prefix: string, n: number): string {
  return `${prefix}${String(n).padStart(4, '0')}`;
}

/** Accounts `<prefix>0001` … `<prefix><count>`, without balance; answers how many were new. */
export async function insertSyntheticAccounts(
  db: Queryable,
  prefix: string,
  count: number,
): Promise<number> {
  const { rowCount } = await db.query(
    `INSERT INTO accounts (username, password_hash, rate)
     SELECT $1 || lpad(g::text, 4, '0'), 'x', 0.05 FROM generate_series(1, $2::int) g
     ON CONFLICT (username) DO NOTHING`,
    [prefix, count],
  );
  return rowCount;
}

export interface SyntheticMessages {
  accountPrefix: string;
  accounts: number;
  /** The history's accepted times run evenly from `fromMs` to `toMs` over `total` messages. */
  fromMs: number;
  toMs: number;
  total: number;
  /** This statement writes messages `first` … `first + count - 1` (from 0). */
  first: number;
  count: number;
  /** Distinct destinations of the whole history. */
  destinations: number;
}

/**
 * Writes a slice of the history. Each message's id is a UUIDv7 of its accepted time (as
 * smsgw_time_id() makes them, from a given time). The account is skewed (the cube of a uniform
 * draw: the first account sends a tenth, the last a few per ten thousand); the destination one of
 * `destinations` numbers over the calling codes; states mostly delivered, the rest undelivered,
 * failed (a tenth of them with an unknown outcome), expired and rejected, and in the last hour
 * some still submitted.
 */
export async function insertSyntheticMessages(
  db: Queryable,
  s: SyntheticMessages,
): Promise<number> {
  const { rowCount } = await db.query(
    `WITH acc AS (
       SELECT array_agg(id ORDER BY username) AS ids FROM accounts
        WHERE username LIKE $1 || '%' AND length(username) = length($1) + 4
     ), codes AS (SELECT $8::text[] AS cc),
     draw AS (
       SELECT g, ($2::float8 + (g::float8 * ($3::float8 - $2::float8) / $4::float8))::bigint AS ms,
              random() AS a, (random() * $7::int)::int AS d, random() AS r, random() AS seg,
              random() AS x
         FROM generate_series($5::bigint, $5::bigint + $6::bigint - 1) g
     ), shaped AS (
       SELECT g, ms, acc.ids[1 + floor($9::int * a * a * a)::int] AS account_id,
              codes.cc[1 + (d % array_length(codes.cc, 1))] || (600000000 + d)::text AS to_addr,
              CASE WHEN ms > $3::float8 - 3600000 AND r < 0.2 THEN 'submitted'
                   WHEN r < 0.88 THEN 'delivered' WHEN r < 0.94 THEN 'undelivered'
                   WHEN r < 0.97 THEN 'failed' WHEN r < 0.99 THEN 'expired' ELSE 'rejected' END AS state,
              CASE WHEN seg < 0.8 THEN 1 WHEN seg < 0.95 THEN 2 ELSE 3 END AS segments,
              (ARRAY['smsc-a', 'smsc-b', 'smsc-c'])[1 + (g % 3)::int] AS connector,
              (ARRAY['default', 'premium', 'bulk'])[1 + (d % 3)] AS route,
              (ARRAY['rest', 'rest', 'rest', 'smpp', 'jasmin-http', 'kannel-sendsms'])[1 + (g % 6)::int] AS entry,
              (ARRAY['Bank', 'Shop', 'Taxi', 'Clinic', '41791234567', 'Alerts'])[1 + (d % 6)] AS from_addr,
              x
         FROM draw, acc, codes
     )
     INSERT INTO messages (id, account_id, state, to_addr, from_addr, content, coding, segments, cost,
                           smsc_id, attempts, error, created_at, submitted_at, updated_at, route,
                           connectors, connector, connector_trail, entry)
     SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                     PLACING substring(int8send(ms) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid,
            account_id, state, to_addr, from_addr,
            'Your code is ' || lpad((g % 1000000)::text, 6, '0') || '. It expires in ten minutes.',
            0, segments, segments * 0.05,
            CASE WHEN state <> 'rejected' THEN 's' || g::text END, 1,
            CASE WHEN state = 'failed' AND x < 0.1 THEN '${UNKNOWN_OUTCOME_ERROR}'
                 WHEN state = 'failed' THEN 'SMSC error 0x00000045'
                 WHEN state = 'rejected' THEN 'no route' END,
            to_timestamp(ms / 1000.0), to_timestamp(ms / 1000.0) + interval '200 milliseconds',
            to_timestamp(ms / 1000.0) + (2 + x * 28) * interval '1 second',
            route, ARRAY[connector], connector, ARRAY[connector], entry
       FROM shaped`,
    [
      s.accountPrefix,
      s.fromMs,
      s.toMs,
      s.total,
      s.first,
      s.count,
      s.destinations,
      [...SYNTHETIC_CALLING_CODES],
      s.accounts,
    ],
  );
  return rowCount;
}

/**
 * Refunds (credit_ledger rows of reason refund) for a share of the failed, expired and rejected
 * messages, so that what the CDRs and the statistics say was refunded reads some.
 */
export async function insertSyntheticRefunds(db: Queryable, share: number): Promise<number> {
  const { rowCount } = await db.query(
    `INSERT INTO credit_ledger (account_id, amount, reason, message_id, created_at)
     SELECT m.account_id, m.cost, 'refund', m.id, m.updated_at FROM messages m
      WHERE m.state IN ('failed', 'expired', 'rejected') AND random() < $1::float8
     ON CONFLICT DO NOTHING`,
    [share],
  );
  return rowCount;
}

export interface SyntheticExtent {
  messages: number;
  accounts: number;
  /** The oldest and the newest message id. */
  first: string | null;
  last: string | null;
}

/** How large the history is, to tell whether a database already holds the one asked for. */
export async function syntheticExtent(db: Queryable, prefix: string): Promise<SyntheticExtent> {
  const { rows } = await db.query<{
    messages: string;
    first: string | null;
    last: string | null;
  }>(
    `SELECT (SELECT count(*) FROM messages)::text AS messages,
            (SELECT id FROM messages ORDER BY id LIMIT 1)::text AS first,
            (SELECT id FROM messages ORDER BY id DESC LIMIT 1)::text AS last`,
  );
  const accounts = await db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM accounts WHERE username LIKE $1 || '%'`,
    [prefix],
  );
  return {
    messages: Number(rows[0].messages),
    accounts: Number(accounts.rows[0].n),
    first: rows[0].first,
    last: rows[0].last,
  };
}

/** The destination of the first message at or after each of these ids: real ones to search for. */
export async function destinationsAfter(db: Queryable, ids: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ to_addr: string | null }>(
    `SELECT (SELECT m.to_addr FROM messages m WHERE m.id >= x ORDER BY m.id LIMIT 1) AS to_addr
       FROM unnest($1::uuid[]) x`,
    [ids],
  );
  return rows.flatMap((r) => (r.to_addr === null ? [] : [r.to_addr]));
}
