import { timeIdFloor, type Db, type Queryable, type Transaction } from '@smsgw/kit';
import { archiveCdrs } from './cdrs';

/**
 * Statements on the partitions of `messages`, `message_parts` and `callback_attempts` and on
 * `message_partitions` (migration 022, docs/retention.md). The three tables are partitioned alike
 * by message id: one period is one partition of each, added and dropped together.
 */

/**
 * Percent of each page of `messages` filled by inserts: the rest takes the row versions of the
 * claim and the receipt, written as HOT updates only when they fit on the row's page (migration
 * 023, which sets the same on the partitions it finds).
 */
export const MESSAGES_FILLFACTOR = 50;

const PARTITIONED = [
  { table: 'messages', key: 'id', storage: ` WITH (fillfactor = ${MESSAGES_FILLFACTOR})` },
  { table: 'message_parts', key: 'message_id', storage: '' },
  { table: 'callback_attempts', key: 'message_id', storage: '' },
] as const;

/** The columns rows can be inserted into (all but generated ones), for moving rows between tables. */
async function insertableColumns(tx: Queryable, table: string): Promise<string> {
  const { rows } = await tx.query<{ columns: string }>(
    `SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) AS columns FROM pg_attribute
      WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''`,
    [table],
  );
  return rows[0].columns;
}

/** Taken by whoever changes partitions, so that two schedulers never add or drop the same one. */
const PARTITIONS_LOCK_KEY = 0x736d7370;

export interface MessagePartition {
  suffix: string;
  from_at: Date;
  to_at: Date;
}

const SUFFIX = /^p\d{8}$/;

function suffixOf(from: Date): string {
  return `p${from.toISOString().slice(0, 10).replace(/-/g, '')}`;
}

function checkedSuffix(suffix: string): string {
  if (!SUFFIX.test(suffix)) throw new Error(`not a message partition suffix: ${suffix}`);
  return suffix;
}

/** The partition of `messages` of the period with this suffix. */
export function messagePartitionTable(suffix: string): string {
  return `messages_${checkedSuffix(suffix)}`;
}

const LOCK_ATTEMPTS = 20;
const LOCK_RETRY_MS = 250;

/**
 * Runs partition DDL in one transaction. The DDL needs exclusive locks on tables every statement
 * on messages touches; it waits at most 200 ms for each, below Postgres's deadlock check, so the
 * gateway's own transactions never wait long behind it or die in a deadlock with it: the
 * transaction gives up and is tried again a little later.
 */
async function partitionChange<T>(db: Db, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        await tx.query(`SET LOCAL lock_timeout = '200ms'`);
        await tx.query('SELECT pg_advisory_xact_lock($1)', [PARTITIONS_LOCK_KEY]);
        return fn(tx);
      });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code !== '55P03' || attempt >= LOCK_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, LOCK_RETRY_MS));
    }
  }
}

const DEFAULTS = PARTITIONED.map((p) => `${p.table}_default`).join(', ');

export async function listMessagePartitions(db: Queryable): Promise<MessagePartition[]> {
  const { rows } = await db.query<MessagePartition>(
    'SELECT suffix, from_at, to_at FROM message_partitions ORDER BY from_at',
  );
  return rows;
}

/**
 * Adds the period [from, to) (whole UTC days) to each table. Rows of the period already in a
 * default partition (written while no partition was ready) are moved into the new one first, as
 * Postgres refuses a partition whose rows sit in the default. Answers false when the period was
 * there already.
 */
export async function addMessagePartition(db: Db, from: Date, to: Date): Promise<boolean> {
  const suffix = suffixOf(from);
  const lo = timeIdFloor(from);
  const hi = timeIdFloor(to);
  return partitionChange(db, async (tx) => {
    const { rowCount } = await tx.query('SELECT 1 FROM message_partitions WHERE from_at = $1', [
      from,
    ]);
    if (rowCount > 0) return false;
    await tx.query(`LOCK TABLE ${DEFAULTS} IN ACCESS EXCLUSIVE MODE`);
    for (const { table, key, storage } of PARTITIONED) {
      const part = `${table}_${suffix}`;
      await tx.query(
        `CREATE TABLE ${part} (LIKE ${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED)${storage}`,
      );
      const columns = await insertableColumns(tx, table);
      await tx.query(
        `WITH moved AS (DELETE FROM ${table}_default WHERE ${key} >= $1::uuid AND ${key} < $2::uuid RETURNING ${columns})
         INSERT INTO ${part} (${columns}) SELECT * FROM moved`,
        [lo, hi],
      );
      await tx.query(
        `ALTER TABLE ${table} ATTACH PARTITION ${part} FOR VALUES FROM ('${lo}') TO ('${hi}')`,
      );
    }
    await tx.query('INSERT INTO message_partitions (suffix, from_at, to_at) VALUES ($1, $2, $3)', [
      suffix,
      from,
      to,
    ]);
    return true;
  });
}

/**
 * Drops one period from each table. Answers how many messages it held, or undefined when another
 * scheduler dropped it first. They are counted before the change, so a retry of it (its locks not
 * granted in time) does not scan the partition again. The CDRs of its messages in a final state are
 * copied into `cdrs` first, in the same transaction (cdrs.ts archiveCdrs), so billing outlives it.
 */
export async function dropMessagePartition(db: Db, suffix: string): Promise<number | undefined> {
  const checked = checkedSuffix(suffix);
  const listed = await db.query('SELECT 1 FROM message_partitions WHERE suffix = $1', [checked]);
  if (listed.rowCount === 0) return undefined;
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM messages_${checked}`,
  );
  return partitionChange(db, async (tx) => {
    const deleted = await tx.query<{ from_at: Date; to_at: Date }>(
      'DELETE FROM message_partitions WHERE suffix = $1 RETURNING from_at, to_at',
      [checked],
    );
    const period = deleted.rows[0];
    if (period === undefined) return undefined;
    await archiveCdrs(tx, timeIdFloor(period.from_at), timeIdFloor(period.to_at));
    for (const { table } of PARTITIONED) {
      await tx.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      await tx.query(`DROP TABLE ${table}_${checked}`);
    }
    return rows[0]?.n ?? 0;
  });
}

/**
 * The default partitions hold rows written before partitioning and rows moved nowhere yet. Once
 * none of their messages or callbacks is as recent as `cutoff`, they are replaced by empty ones,
 * which costs one scan instead of a delete per row. The scan runs before the change, without its
 * locks; a row can only have come in since if no partition covers now, which the change checks.
 * Answers how many messages went (0: kept).
 */
export async function clearDefaultMessagePartitions(db: Db, cutoff: Date): Promise<number> {
  const { rows } = await db.query<{ n: number; recent: boolean }>(
    `SELECT (SELECT count(*)::int FROM messages_default) AS n,
            EXISTS (SELECT 1 FROM messages_default WHERE created_at >= $1)
              OR EXISTS (SELECT 1 FROM callback_attempts_default WHERE created_at >= $1) AS recent`,
    [cutoff],
  );
  const { n, recent } = rows[0] ?? { n: 0, recent: true };
  if (n === 0 || recent) return 0;
  return partitionChange(db, async (tx) => {
    const covered = await tx.query(
      'SELECT 1 FROM message_partitions WHERE from_at <= now() AND to_at > now()',
    );
    if (covered.rowCount === 0) return 0;
    for (const { table, storage } of PARTITIONED) {
      await tx.query(`ALTER TABLE ${table} DETACH PARTITION ${table}_default`);
      await tx.query(`DROP TABLE ${table}_default`);
      await tx.query(`CREATE TABLE ${table}_default PARTITION OF ${table} DEFAULT${storage}`);
    }
    return n;
  });
}

/**
 * The partitions of `messages` and `message_parts` whose statistics lag their size: never
 * analyzed and at least `minBytes` large, or twice as large as when last analyzed. Until a fresh
 * partition is analyzed, the planner reads it whole for statements that find messages by SMSC
 * id; autovacuum would analyze it within a minute or so, and never where it is off. Sizes, not
 * the statistics collector's counts, say how much it grew, so the answer is the same on PGlite.
 */
export async function messagePartitionsDueForAnalyze(
  db: Queryable,
  minBytes: number,
): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE i.inhparent IN ('messages'::regclass, 'message_parts'::regclass)
        AND c.relkind = 'r'
        AND pg_relation_size(c.oid) >= GREATEST($1::bigint,
              2 * c.relpages::bigint * current_setting('block_size')::bigint)
      ORDER BY c.relname`,
    [minBytes],
  );
  return rows.map((r) => r.name);
}

/** ANALYZE of one partition `messagePartitionsDueForAnalyze` named (quoted as it answered). */
export async function analyzeMessagePartition(db: Queryable, name: string): Promise<void> {
  if (!/^"?[a-z_][a-z0-9_]*"?\."?(messages|message_parts)_(p\d{8}|default)"?$/.test(name))
    throw new Error(`not a message partition: ${name}`);
  await db.query(`ANALYZE ${name}`);
}
