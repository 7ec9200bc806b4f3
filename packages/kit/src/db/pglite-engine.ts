import { mkdirSync } from 'node:fs';
// PGlite ships a CommonJS build (package.json exports "require": dist/index.cjs), so a plain
// import works from our CommonJS output; no dynamic-import workaround is needed.
import { PGlite, types } from '@electric-sql/pglite';
import { PreparedStatements } from './pglite-statements';

/**
 * Values come back as node-postgres returns them from PgDb (see the list in pg-db.ts), so SQL and
 * callers are the same on both. PGlite's own defaults differ for: int8 (number, or bigint past
 * 2^53; `count(*)` is int8), bytea (Uint8Array) and date (a UTC-midnight Date). numeric and
 * interval are already the Postgres text. Array types use these element parsers too.
 */
const parsers = {
  [types.INT8]: (value: string) => value,
  [types.NUMERIC]: (value: string) => value,
  [types.DATE]: (value: string) => value,
  [types.BYTEA]: (value: string) => Buffer.from(value.slice(2), 'hex'), // '\x0102…'
};

/**
 * Parameters as node-postgres serializes them: a plain object becomes JSON (PGlite would write
 * '[object Object]' into a text parameter; for json/jsonb both give the same).
 */
export function prepareParams(params: readonly unknown[]): unknown[] {
  return params.map((value) => {
    if (value === null || typeof value !== 'object') return value;
    const proto = Object.getPrototypeOf(value) as unknown;
    return proto === Object.prototype || proto === null ? JSON.stringify(value) : value;
  });
}

export interface EngineResult<R> {
  rows: R[];
  /** INSERT/UPDATE/DELETE/MERGE rows, with or without RETURNING; undefined or 0 for SELECT. */
  affectedRows?: number | undefined;
}

/** Where PGlite's statements run: on this thread, or on a worker thread (pglite-thread.ts). */
export interface PgliteEngine {
  query<R>(sql: string, params: readonly unknown[]): Promise<EngineResult<R>>;
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Postgres's buffer pool inside PGlite's WebAssembly memory, which never shrinks. PGlite's 128 MB
 * made most of the embedded process's resident memory; pages it misses are read back from the
 * operating system's cache (docs/decisions.md § Embedded mode).
 */
export const EMBEDDED_SHARED_BUFFERS = '32MB';

/**
 * ANALYZE samples 300 rows per unit of the statistics target: 30,000 at Postgres's default of 100,
 * 3,000 at 10. Embedded mode analyzes its tables as they grow (pglite-statistics.ts), and what a
 * sample takes of PGlite's WebAssembly memory stays taken. Its statements find rows by id, and a
 * column such as a message's state has fewer values than ten entries hold (docs/decisions.md §
 * Embedded mode).
 */
export const EMBEDDED_STATISTICS_TARGET = 10;

const startParams = [
  ...(PGlite as unknown as { defaultStartParams: string[] }).defaultStartParams,
  '-c',
  `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`,
  '-c',
  `default_statistics_target=${EMBEDDED_STATISTICS_TARGET}`,
  // Statements are prepared once (pglite-statements.ts) but planned at each call: PGlite runs no
  // autovacuum, so a generic plan made while a table was nearly empty would never be replaced.
  '-c',
  'plan_cache_mode=force_custom_plan',
];

/** dataDir undefined: in memory. The directory is created when missing. */
export async function openPglite(dataDir: string | undefined): Promise<PGlite> {
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });
  return PGlite.create(dataDir, { parsers, startParams });
}

/** PGlite on the calling thread. */
export async function openInThreadEngine(dataDir: string | undefined): Promise<PgliteEngine> {
  const pg = await openPglite(dataDir);
  const statements = new PreparedStatements(pg);
  return {
    query: (sql, params) => statements.query(sql, prepareParams(params)),
    exec: async (sql) => {
      await pg.exec(sql);
    },
    close: () => pg.close(),
  };
}
