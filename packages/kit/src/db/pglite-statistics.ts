import type { Logger } from '../logger';
import { PollingLoop } from '../polling-loop';
import type { Queryable } from './db';

/** A table is analyzed again once it has grown by this share since its last analysis … */
const GROWTH = 0.2;
/** … and by at least this many bytes (eight pages), so small tables are not analyzed over and over. */
const MIN_GROWTH_BYTES = 65_536;

/**
 * Stands in for autovacuum's ANALYZE, which PGlite does not run: without statistics the planner
 * keeps its guesses for empty tables, and under a steady `/secure/send` load embedded mode fell from
 * about 1,100 to 350 requests/s within three minutes (docs/decisions.md § Embedded mode). Each
 * round reads the tables' sizes, a catalog query, and analyzes those grown by a fifth since their
 * last analysis, as autovacuum's scale factor would; it goes through the Db like any statement, so
 * never inside someone's transaction.
 */
export class PgliteStatistics {
  /** Each table's size in bytes when this process last analyzed it. */
  private readonly analyzedAt = new Map<string, number>();
  private readonly loop: PollingLoop;

  constructor(
    private readonly db: Queryable & { exec(sql: string): Promise<void> },
    logger: Logger,
  ) {
    this.loop = new PollingLoop(
      async () => {
        await this.round();
      },
      logger,
      'analyzing the embedded database',
    );
  }

  start(everyMs: number): void {
    this.loop.start(everyMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Analyzes the tables that are due; answers their names. */
  async round(): Promise<string[]> {
    const { rows } = await this.db.query<{ name: string; bytes: string }>(
      `SELECT format('%I', c.relname) AS name, pg_relation_size(c.oid)::text AS bytes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
    );
    const due = rows.filter((r) => {
      const bytes = Number(r.bytes);
      const last = this.analyzedAt.get(r.name);
      if (last === undefined) return bytes > 0;
      return bytes >= last * (1 + GROWTH) && bytes - last >= MIN_GROWTH_BYTES;
    });
    for (const table of due) {
      await this.db.exec(`ANALYZE ${table.name}`);
      this.analyzedAt.set(table.name, Number(table.bytes));
    }
    return due.map((t) => t.name);
  }
}
