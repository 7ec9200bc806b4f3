import {
  FINAL_STATES,
  UNKNOWN_OUTCOME_ERROR,
  UNSENT_STATES,
  type MessageOutcome,
} from '@smsgw/contracts';
import type { Queryable } from '@smsgw/kit';
import { sqlList } from './sql-list';

/**
 * The search of messages and the reads that tell one message's story (docs/operators.md). Every
 * search reads an id range: ids are time-ordered, so a time range is one, and Postgres opens only
 * the partitions it covers. Statements here also read `accounts` (the account's name),
 * `credit_ledger` (a message's debit and refund), `callback_attempts` (its callbacks) and
 * `smpp_deliveries` (its receipt for an SMPP customer), named in each one's module.
 */

/** A destination filter: exact digits, or a prefix. */
export type DestinationMatch = { exact: string } | { prefix: string };

export interface MessageSearch {
  /** The lowest id of the range (the floor of its start) and the first id past it. */
  fromId: string;
  untilId: string;
  /** The page's start: ids below this one (the `next` of the page before). */
  beforeId?: string | undefined;
  accountId?: string | undefined;
  to?: DestinationMatch | undefined;
  from?: string | undefined;
  /** Message states; `unknown` stands for a failure whose outcome is unknown. */
  states?: readonly string[] | undefined;
  batchId?: string | undefined;
  /** A connector the message was offered to (its trail). */
  connector?: string | undefined;
  route?: string | undefined;
  entry?: string | undefined;
  id?: string | undefined;
  limit: number;
}

export interface MessageSearchRow {
  id: string;
  username: string;
  state: string;
  outcome: MessageOutcome;
  to_addr: string;
  from_addr: string | null;
  content: string | null;
  batch_id: string | null;
  entry: string | null;
  segments: number;
  coding: number;
  cost: string;
  error: string | null;
  smsc_id: string | null;
  route: string | null;
  connector: string | null;
  created_at: Date;
  submitted_at: Date | null;
  updated_at: Date;
}

/** What is known of a message's fate, as messages.ts messageStatus says it. */
const OUTCOME = `CASE WHEN m.state = 'failed' AND m.error = '${UNKNOWN_OUTCOME_ERROR}' THEN 'unknown'
                      WHEN m.state IN (${sqlList(FINAL_STATES)}) THEN 'known'
                      ELSE 'pending' END`;

const SUMMARY_COLUMNS = `m.id, a.username, m.state, ${OUTCOME} AS outcome, m.to_addr, m.from_addr, m.content,
       m.batch_id, m.entry, m.segments, m.coding, m.cost::text AS cost, m.error, m.smsc_id, m.route,
       m.connector, m.created_at, m.submitted_at, m.updated_at`;

/**
 * The next character after a digit string's last one, in byte order: `to_addr` in [p, p⁺) is a
 * prefix match the text_pattern_ops index walks, where a LIKE with a parameter may not be planned
 * as a range.
 */
function prefixEnd(prefix: string): string {
  return prefix === ''
    ? '\u{10FFFF}'
    : `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`;
}

/** Messages matching every filter given, newest first, at most `limit`. */
export async function searchMessages(
  db: Queryable,
  search: MessageSearch,
): Promise<MessageSearchRow[]> {
  if (!Number.isInteger(search.limit) || search.limit < 1 || search.limit > 1000)
    throw new RangeError(`bad row limit ${search.limit}`);
  const params: unknown[] = [search.fromId, search.untilId];
  const where = ['m.id >= $1::uuid', 'm.id < $2::uuid'];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (search.beforeId !== undefined) where.push(`m.id < ${param(search.beforeId)}::uuid`);
  if (search.id !== undefined) where.push(`m.id = ${param(search.id)}::uuid`);
  if (search.accountId !== undefined) where.push(`m.account_id = ${param(search.accountId)}::uuid`);
  if (search.to !== undefined) {
    if ('exact' in search.to) where.push(`m.to_addr = ${param(search.to.exact)}`);
    else
      where.push(
        `m.to_addr ~>=~ ${param(search.to.prefix)} AND m.to_addr ~<~ ${param(prefixEnd(search.to.prefix))}`,
      );
  }
  if (search.from !== undefined) where.push(`m.from_addr = ${param(search.from)}`);
  if (search.batchId !== undefined) where.push(`m.batch_id = ${param(search.batchId)}::uuid`);
  if (search.connector !== undefined)
    where.push(`${param(search.connector)} = ANY(m.connector_trail)`);
  if (search.route !== undefined) where.push(`m.route = ${param(search.route)}`);
  if (search.entry !== undefined) where.push(`m.entry = ${param(search.entry)}`);
  if (search.states !== undefined && search.states.length > 0) {
    const plain = search.states.filter((s) => s !== 'unknown');
    const either: string[] = [];
    if (plain.length > 0) either.push(`m.state = ANY(${param(plain)}::text[])`);
    if (search.states.includes('unknown'))
      either.push(`(m.state = 'failed' AND m.error = '${UNKNOWN_OUTCOME_ERROR}')`);
    where.push(`(${either.join(' OR ')})`);
  }
  const select = (extra: string[]): string =>
    `SELECT ${SUMMARY_COLUMNS}
       FROM messages m JOIN accounts a ON a.id = m.account_id
      WHERE ${[...where, ...extra].join(' AND ')}
      ORDER BY m.id DESC
      LIMIT ${search.limit}`;
  if (search.accountId === undefined && search.to === undefined) {
    return (await db.query<MessageSearchRow>(select([]), params)).rows;
  }
  // The indexes by account and by destination hold only the messages that have left the unsent
  // states (migration 037): those are read through them, the unsent ones off messages_unsent.
  const branches = unsentBranches(search.states).map((unsent) =>
    select([unsent ? 'm.unsent' : 'NOT m.unsent']),
  );
  const sql =
    branches.length === 1
      ? branches[0]
      : `${branches.map((b) => `(${b})`).join(' UNION ALL ')} ORDER BY id DESC LIMIT ${search.limit}`;
  // Planned for each call: a prepared plan is generic in the account, and the generic plan of a
  // large account's newest page read its whole range (0.5 s where the account's own plan takes 2 ms).
  return (await db.query<MessageSearchRow>(sql, params, { planEachCall: true })).rows;
}

/** Which of the unsent and the sent messages a state filter can match: both without one. */
function unsentBranches(states: readonly string[] | undefined): boolean[] {
  if (states === undefined || states.length === 0) return [false, true];
  const unsent = (s: string): boolean => (UNSENT_STATES as readonly string[]).includes(s);
  return [false, true].filter((u) => states.some((s) => unsent(s) === u));
}

// ---- a message's story ----

export interface MessageStoryRow extends MessageSearchRow {
  account_id: string;
  attempts: number;
  hex_content: string | null;
  connectors: string[] | null;
  connector_trail: string[];
  unanswered_submits: number;
  submit_started_at: Date | null;
  callback_error: string | null;
  report_mask: number;
  report_url: string | null;
  report_style: string | null;
  /** The price list version that priced it, and that list's name; null: its route's price or rate. */
  price_version: string | null;
  price_list: string | null;
  /** What it cost us through the connector that took it, and that cost list's version; null: not known. */
  supplier_cost: string | null;
  cost_version: string | null;
}

/** One message, whoever's it is, with what its story is told from. */
export async function messageStory(
  db: Queryable,
  id: string,
): Promise<MessageStoryRow | undefined> {
  const { rows } = await db.query<MessageStoryRow>(
    `SELECT ${SUMMARY_COLUMNS}, m.account_id, m.attempts, m.hex_content, m.connectors, m.connector_trail,
            m.unanswered_submits, m.submit_started_at, m.callback_error, m.report_mask, m.report_url,
            m.report_style, m.price_version::text AS price_version,
            (SELECT l.name FROM price_list_versions v JOIN price_lists l ON l.id = v.list_id
              WHERE v.id = m.price_version) AS price_list,
            m.supplier_cost::text AS supplier_cost, m.cost_version::text AS cost_version
       FROM messages m JOIN accounts a ON a.id = m.account_id
      WHERE m.id = $1`,
    [id],
  );
  return rows[0];
}

export interface StoryPartRow {
  seq: number;
  smsc_id: string | null;
  state: string;
  stat: string | null;
  err: string | null;
  updated_at: Date;
}

/** The parts of a long message the SMSC accepted, each with its receipt once it came. */
export async function messageStoryParts(db: Queryable, id: string): Promise<StoryPartRow[]> {
  const { rows } = await db.query<StoryPartRow>(
    `SELECT seq, smsc_id, state, stat, err, updated_at FROM message_parts WHERE message_id = $1 ORDER BY seq`,
    [id],
  );
  return rows;
}

export interface StoryLedgerRow {
  reason: 'debit' | 'refund' | 'credit';
  amount: string;
  sms_count: string;
  /** Set for a batch's refund, which names the batch, not each message. */
  batch_wide: boolean;
  created_at: Date;
}

/**
 * The message's debit and refund; for a message of a batch, the batch's own rows too: a batch is
 * debited whole at acceptance, and its cancel refunds the waiting messages with one row.
 */
export async function messageStoryLedger(
  db: Queryable,
  id: string,
  batchId: string | null,
): Promise<StoryLedgerRow[]> {
  const { rows } = await db.query<StoryLedgerRow>(
    `SELECT reason, amount::text AS amount, sms_count::text AS sms_count, false AS batch_wide, created_at
       FROM credit_ledger WHERE message_id = $1
     UNION ALL
     SELECT reason, amount::text, sms_count::text, true, created_at
       FROM credit_ledger WHERE $2::uuid IS NOT NULL AND batch_id = $2::uuid AND message_id IS NULL
     ORDER BY created_at`,
    [id, batchId],
  );
  return rows;
}

export interface StoryCallbackRow {
  kind: string;
  url: string;
  method: string;
  state: string;
  attempts: number;
  last_outcome: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The requests to the customer's URLs for this message (callbacks and delivery reports). */
export async function messageStoryCallbacks(
  db: Queryable,
  id: string,
): Promise<StoryCallbackRow[]> {
  const { rows } = await db.query<StoryCallbackRow>(
    `SELECT kind, url, method, state, attempts, last_outcome, created_at, updated_at
       FROM callback_attempts WHERE message_id = $1 ORDER BY created_at, kind`,
    [id],
  );
  return rows;
}

export interface StorySmppDeliveryRow {
  attempts: number;
  created_at: Date;
  next_attempt_at: Date;
}

/** The receipt kept for the customer's SMPP sessions while it waits for one to take it. */
export async function messageStorySmppReceipt(
  db: Queryable,
  id: string,
): Promise<StorySmppDeliveryRow | undefined> {
  const { rows } = await db.query<StorySmppDeliveryRow>(
    `SELECT attempts, created_at, next_attempt_at FROM smpp_deliveries WHERE kind = 'receipt' AND source_id = $1`,
    [id],
  );
  return rows[0];
}
