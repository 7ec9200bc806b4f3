import { AsyncLocalStorage } from 'node:async_hooks';
import vm from 'node:vm';
import type { Logger } from '../logger';
import type { Db, QueryResult, Transaction } from './db';
import { openInThreadEngine, type PgliteEngine } from './pglite-engine';
import { PgliteStatistics } from './pglite-statistics';
import { canRunPgliteInWorker, openWorkerEngine } from './pglite-thread';
import { PING_TIMEOUT_MS, withTimeout } from './timeout';

/**
 * A statement queued behind an open transaction from inside that transaction's callback waits
 * forever.
 */
const DEADLOCK_WARNING_MS = 5000;

/**
 * Db over embedded Postgres. PGlite has one connection (docs/architecture.md § The embedded
 * database): a statement issued while a transaction is open would join it and be rolled back with
 * it. So every use goes through one promise chain, and a transaction holds the chain until it ends;
 * statements inside a transaction go through its `tx` (calling `db.query` from inside
 * `db.transaction` waits for the transaction, which waits for the callback: a deadlock, reported as
 * a warning after 5 s).
 */
export class PgliteDb implements Db {
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;
  private statistics: PgliteStatistics | undefined;
  private readonly insideTransaction = new AsyncLocalStorage<{ open: boolean }>();

  private constructor(
    private readonly pg: PgliteEngine,
    private readonly logger: Logger | undefined,
  ) {}

  /**
   * dataDir undefined: in memory (tests). The directory is created when missing. `thread: 'worker'`
   * runs PGlite on a worker thread when the compiled worker is there (not under jest, which runs the
   * TypeScript sources), else on this one.
   */
  static async open(
    options: {
      dataDir?: string | undefined;
      logger?: Logger | undefined;
      thread?: 'main' | 'worker';
      /** The compiled worker to run (tests, which run from sources, name the build's). */
      workerScript?: string;
      /**
       * How often to look for tables grown enough to be analyzed (PgliteStatistics); unset: never.
       * Needs the logger.
       */
      analyzeEveryMs?: number;
    } = {},
  ): Promise<PgliteDb> {
    assertDynamicImport();
    const inWorker =
      options.thread === 'worker' && (options.workerScript !== undefined || canRunPgliteInWorker());
    const engine = inWorker
      ? await openWorkerEngine(options.dataDir, options.workerScript)
      : await openInThreadEngine(options.dataDir);
    const db = new PgliteDb(engine, options.logger);
    if (options.analyzeEveryMs !== undefined && options.logger !== undefined) {
      db.statistics = new PgliteStatistics(db, options.logger);
      db.statistics.start(options.analyzeEveryMs);
    }
    return db;
  }

  private serialized<T>(what: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('PgliteDb is closed'));
    const watchdog = this.watchForSelfDeadlock(what);
    const start = (): Promise<T> => {
      if (watchdog !== undefined) clearTimeout(watchdog);
      return fn();
    };
    const run = this.chain.then(start, start);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private watchForSelfDeadlock(what: string): NodeJS.Timeout | undefined {
    const tx = this.insideTransaction.getStore();
    if (tx === undefined || !tx.open) return undefined;
    // Not necessarily a bug (work started inside a transaction without awaiting it runs after it),
    // so this warns instead of failing.
    const timer = setTimeout(() => {
      const message = `PgliteDb: db.${what}() called inside db.transaction() has waited ${DEADLOCK_WARNING_MS} ms: use the tx argument inside a transaction, db.${what}() waits for the transaction to end`;
      if (this.logger !== undefined) this.logger.warn(message);
      else process.emitWarning(message);
    }, DEADLOCK_WARNING_MS);
    timer.unref();
    return timer;
  }

  private async run<R>(sql: string, params: readonly unknown[]): Promise<QueryResult<R>> {
    const result = await this.pg.query<R>(sql, params);
    // affectedRows counts INSERT/UPDATE/DELETE/MERGE rows (with or without RETURNING) and is 0
    // for SELECT; pg's rowCount is the number of rows then.
    const rowCount =
      result.affectedRows !== undefined && result.affectedRows > 0
        ? result.affectedRows
        : result.rows.length;
    return { rows: result.rows, rowCount };
  }

  query<R = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<QueryResult<R>> {
    return this.serialized('query', () => this.run<R>(sql, params));
  }

  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.serialized('transaction', async () => {
      const state = { open: true };
      const live = (): void => {
        // After the transaction, the tx would run outside the chain and interleave with others.
        if (!state.open)
          throw new Error('transaction already finished: use the tx only inside its callback');
      };
      const tx: Transaction = {
        query: async <R = Record<string, unknown>>(
          sql: string,
          params: readonly unknown[] = [],
        ) => {
          live();
          return this.run<R>(sql, params);
        },
        exec: async (sql: string) => {
          live();
          await this.pg.exec(sql);
        },
      };
      try {
        await this.pg.exec('BEGIN');
        const value = await this.insideTransaction.run(state, () => fn(tx));
        await this.pg.exec('COMMIT');
        return value;
      } catch (err) {
        // Leaving the aborted transaction open would poison every later statement.
        await this.pg.exec('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        state.open = false;
      }
    });
  }

  exec(sql: string): Promise<void> {
    return this.serialized('exec', async () => {
      await this.pg.exec(sql);
    });
  }

  /**
   * False when the database does not answer within 2 s (also when a transaction holds it that
   * long).
   */
  async ping(): Promise<boolean> {
    try {
      await withTimeout(this.query('SELECT 1'), PING_TIMEOUT_MS, 'ping');
      return true;
    } catch {
      return false;
    }
  }

  /** Waits for queued work, then closes (and, on disk, flushes); calling it again is harmless. */
  async close(): Promise<void> {
    // Its round in progress ends first; a second close meanwhile finds it taken and goes on.
    const statistics = this.statistics;
    this.statistics = undefined;
    await statistics?.stop();
    if (this.closed) return this.chain.then(() => undefined);
    const done = this.serialized('close', () => this.pg.close());
    this.closed = true;
    await done;
  }
}

/**
 * PGlite loads its WebAssembly with dynamic `import()`. jest's CommonJS sandbox runs that only
 * under `node --experimental-vm-modules` (the root `test` script passes it); without it PGlite
 * dies with an uncaught error in a worker. Say so plainly instead.
 */
function assertDynamicImport(): void {
  if (
    process.env['JEST_WORKER_ID'] !== undefined &&
    typeof (vm as { SyntheticModule?: unknown }).SyntheticModule !== 'function'
  ) {
    throw new Error(
      'PgliteDb under jest needs node --experimental-vm-modules (pnpm test passes it; or NODE_OPTIONS=--experimental-vm-modules npx jest)',
    );
  }
}
