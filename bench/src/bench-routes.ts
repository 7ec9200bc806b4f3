import { PgDb } from '@smsgw/kit';
import { putMtRoute } from '@smsgw/store';
import { prefixRoutes, seeded } from './routing';

/** BENCH_ROUTES: prefix routes the send and batch deployments get (0 or unset: none). */
export function benchRouteCount(): number {
  return Number(process.env['BENCH_ROUTES'] ?? 0);
}

/**
 * Writes `count` prefix routes, all to the default connector, and a default route, into a
 * deployment's database: every message then pays the full routing decision (its prefixes looked
 * up, then the default route), as a gateway with a real routing table does.
 */
export async function installBenchRoutes(databaseUrl: string, count: number): Promise<void> {
  if (count <= 0) return;
  const db = new PgDb({ connectionString: databaseUrl, max: 1 });
  try {
    for (const row of prefixRoutes(count, seeded(42)))
      await putMtRoute(db, {
        ...row,
        targets: [{ connector: 'default' }],
        kind: 'static',
      });
  } finally {
    await db.close();
  }
}
