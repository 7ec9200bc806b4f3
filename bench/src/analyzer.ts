import { createLogger, openDb } from '@smsgw/kit';

/**
 * Stands in for autovacuum when the server has it off (as the shared test server here does):
 * without ANALYZE a fresh database keeps the planner's guesses, and statements that look up
 * messages by SMSC id scan the whole table, which no production server with autovacuum on does
 * for long. ANALYZE of the run's database every BENCH_ANALYZE_SECONDS (10; 0: never), its CPU
 * counted with Postgres's. Answers what it does, for the figures.
 */
export async function startAnalyzer(
  databaseUrl: string,
): Promise<{ mode: string; stop(): Promise<void> }> {
  const seconds = Number(process.env['BENCH_ANALYZE_SECONDS'] ?? 10);
  const db = await openDb({ databaseUrl, dataDir: '', logger: createLogger('bench', 'silent') });
  const { rows } = await db.query<{ autovacuum: string }>('SHOW autovacuum');
  const autovacuum = rows[0]?.autovacuum ?? 'unknown';
  if (autovacuum === 'on' || seconds <= 0) {
    await db.close();
    return { mode: `autovacuum ${autovacuum}, no ANALYZE by the bench`, stop: async () => {} };
  }
  let running = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => db.query('ANALYZE').then(() => undefined));
  }, seconds * 1000);
  return {
    mode: `autovacuum ${autovacuum}: ANALYZE every ${seconds} s by the bench`,
    async stop() {
      clearInterval(timer);
      await running.catch(() => undefined);
      await db.close();
    },
  };
}
