import type { Db } from '@smsgw/kit';
import {
  HOUR_MS,
  addMessagePartition,
  countPendingStats,
  countStatsSlice,
  restartStats,
  insertSyntheticAccounts,
  insertSyntheticMessages,
  insertSyntheticRefunds,
  syntheticExtent,
} from '@smsgw/store';

const DAY_MS = 24 * HOUR_MS;
/** The history's span: two months, so a 30-day search reads several periods. */
export const HISTORY_DAYS = 60;
/** What the retention makes for a 60-day MESSAGE_RETENTION_DAYS (about seven periods). */
const PERIOD_DAYS = 9;
/** Messages written by one statement, so progress shows and no transaction grows huge. */
const CHUNK = 250_000;
/** A destination receives this many messages on average over the history. */
const MESSAGES_PER_DESTINATION = 40;
export const ACCOUNT_PREFIX = 'bench-';

export interface HistorySize {
  messages: number;
  accounts: number;
}

export interface History {
  /** The accepted time of the newest message: the benchmark's "now". */
  endMs: number;
  /** Seconds the data took to write (0: the database held it already). */
  generatedSeconds: number;
}

const idMs = (id: string): number => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

function progress(text: string): void {
  process.stderr.write(`search: ${text}\n`);
}

/** Whether `db` holds a history other than one of this size (then it is dropped and made anew). */
export async function holdsOtherHistory(db: Db, size: HistorySize): Promise<boolean> {
  const held = await syntheticExtent(db, ACCOUNT_PREFIX);
  return (
    held.messages + held.accounts > 0 &&
    (held.messages !== size.messages || held.accounts !== size.accounts)
  );
}

/**
 * Makes `db` (migrated, holding no other history) hold a history of this size, unless it holds
 * it already: the periods' partitions, the accounts, the messages in chunks, refunds for some of
 * the failures, then VACUUM ANALYZE. Answers where the history ends.
 */
export async function ensureHistory(db: Db, size: HistorySize): Promise<History> {
  const held = await syntheticExtent(db, ACCOUNT_PREFIX);
  if (held.messages === size.messages && held.accounts === size.accounts && held.last !== null)
    return { endMs: idMs(held.last), generatedSeconds: 0 };
  if (held.messages > 0) throw new Error(`the database holds another history: drop it first`);
  const started = Date.now();
  const toMs = started - 60_000;
  const fromMs = toMs - HISTORY_DAYS * DAY_MS;
  const firstDay = Math.floor(fromMs / DAY_MS) * DAY_MS;
  for (let at = firstDay; at < toMs + DAY_MS; at += PERIOD_DAYS * DAY_MS)
    await addMessagePartition(db, new Date(at), new Date(at + PERIOD_DAYS * DAY_MS));
  await insertSyntheticAccounts(db, ACCOUNT_PREFIX, size.accounts);
  const destinations = Math.max(1, Math.round(size.messages / MESSAGES_PER_DESTINATION));
  for (let first = 0; first < size.messages; first += CHUNK) {
    const count = Math.min(CHUNK, size.messages - first);
    await insertSyntheticMessages(db, {
      accountPrefix: ACCOUNT_PREFIX,
      accounts: size.accounts,
      fromMs,
      toMs,
      total: size.messages,
      first,
      count,
      destinations,
    });
    progress(`${first + count} of ${size.messages} messages written`);
  }
  await insertSyntheticRefunds(db, 0.2);
  // As autovacuum leaves a table some time after its load: hint bits set, statistics made.
  progress('VACUUM ANALYZE');
  await db.query('VACUUM (ANALYZE)');
  const held2 = await syntheticExtent(db, ACCOUNT_PREFIX);
  return {
    endMs: held2.last === null ? toMs : idMs(held2.last),
    generatedSeconds: Math.round((Date.now() - started) / 1000),
  };
}

export interface Rollup {
  hours: number;
  seconds: number;
  messagesPerSecond: number;
}

/**
 * The statistics' count of the whole history, slice by slice as the scheduler's rollup counts
 * them (countStatsSlice, an hour each), from no statistics at all: the backlog a gateway upgraded
 * onto a full database works off. Every hour settles (its pending messages are counted as they
 * are), so a later run finds the statistics kept.
 */
export async function rollWholeHistory(db: Db, endMs: number, messages: number): Promise<Rollup> {
  await restartStats(db);
  const until = new Date(endMs + 1);
  const floor = new Date(Math.floor((endMs - (HISTORY_DAYS + 1) * DAY_MS) / HOUR_MS) * HOUR_MS);
  const started = Date.now();
  let hours = 0;
  while (await countStatsSlice(db, { until, floor })) hours++;
  // Every hour settled, as though past the settle age: the messages still on their way as they are.
  await countPendingStats(db, { now: until, settleBefore: new Date(endMs + DAY_MS), wait: true });
  const seconds = (Date.now() - started) / 1000;
  await db.query('ANALYZE');
  return {
    hours,
    seconds: Math.round(seconds * 10) / 10,
    messagesPerSecond: Math.round(messages / seconds),
  };
}
