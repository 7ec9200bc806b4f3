import { PgDb } from '@smsgw/kit';

/** The indexes of the message search, migrations 036 and 037 (docs/operators.md § Search). */
const SEARCH_INDEXES = ['messages_account_id', 'messages_to_id'];

/**
 * `BENCH_SEARCH_INDEXES=off`: the send path measured without the search's indexes, the baseline
 * their cost is compared with (docs/performance.md § Operators' view). Dropping a partitioned
 * index drops it on every partition, present and future.
 */
export function searchIndexesOff(): boolean {
  return process.env['BENCH_SEARCH_INDEXES'] === 'off';
}

/**
 * `BENCH_SEARCH_INDEXES=compare` (`pnpm bench kannel`): a second deployment of ours without the
 * indexes, its segments alternating with the others' in the same run.
 */
export function compareSearchIndexes(): boolean {
  return process.env['BENCH_SEARCH_INDEXES'] === 'compare';
}

export async function dropSearchIndexes(databaseUrl: string): Promise<void> {
  const db = new PgDb({ connectionString: databaseUrl, max: 1 });
  try {
    for (const name of SEARCH_INDEXES) await db.query(`DROP INDEX IF EXISTS ${name}`);
  } finally {
    await db.close();
  }
}
