import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../logger';
import type { Db, QueryOptions, QueryResult, Transaction } from './db';
import { PING_TIMEOUT_MS, withTimeout } from './timeout';

export interface PgDbOptions {
  connectionString: string;
  /** Pool size (default 10). */
  max?: number;
  logger?: Logger;
  /** How long to wait for a connection from the pool or the server (default 10 s). */
  connectionTimeoutMillis?: number;
}

const identity = (value: string): string => value;
// pg-types' TypeId lists scalar types only; 1009 is text[], whose parser keeps elements as strings.
const textArray = (pg.types.getTypeParser as (oid: number) => (value: string) => (string | null)[])(
  1009,
);

/**
 * The JS values both adapters return (PGlite is configured to match, see pglite-db.ts). Pinned per
 * pool, so a global `pg.types.setTypeParser` elsewhere cannot change what our queries return:
 * - int8/bigint (20) and numeric (1700), and their arrays: strings, exact (money and counters
 *   must not pass through floats; `count(*)` is int8, so it is a string too). pg parses numeric[]
 *   as floats by default: overridden to strings.
 * - date (1082) and interval (1186): the Postgres text ('2026-01-02', '1 day 02:00:00'); pg's
 *   defaults (a local-midnight Date, an interval object) differ from PGlite's.
 * - timestamptz/timestamp → Date, json/jsonb → parsed value, bytea → Buffer, int2/int4/float → number,
 *   bool → boolean, uuid/text → string: pg's defaults, PGlite matches.
 */
const PARSERS = new Map<number, (value: string) => unknown>([
  [20, identity],
  [1016, textArray], // int8[]
  [1700, identity],
  [1231, textArray], // numeric[]
  [1082, identity],
  [1182, textArray], // date[]
  [1186, identity],
  [1187, textArray], // interval[]
]);

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    (format === undefined || format === 'text' ? PARSERS.get(oid) : undefined) ??
    (pg.types.getTypeParser(oid, format) as (
      value: string,
    ) => unknown)) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * Parameters as PGlite serializes them: a Date as its ISO instant (pg would write the local
 * time with its offset: the same instant for timestamptz, a different text for text/timestamp).
 */
function prepareParams(params: readonly unknown[]): unknown[] {
  return params.map((value) => (value instanceof Date ? value.toISOString() : value));
}

const statementNames = new Map<string, string>();

/**
 * Named, so each connection parses and plans a statement once and then only binds it (planning
 * was most of a small statement's cost under load). Our SQL is a fixed set of texts, so the
 * per-connection cache stays small.
 */
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) {
    name = `smsgw_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    statementNames.set(sql, name);
  }
  return name;
}

/** `query()` runs exactly one statement on both adapters (PGlite cannot run more): extended protocol. */
function singleStatement(
  sql: string,
  params: readonly unknown[],
  options: QueryOptions = {},
): pg.QueryConfig {
  const config = {
    text: sql,
    values: prepareParams(params),
    queryMode: 'extended',
  } as pg.QueryConfig;
  // An unnamed statement is planned at each call (QueryOptions.planEachCall).
  if (!options.planEachCall) config.name = statementName(sql);
  return config;
}

function toResult<R>(result: pg.QueryResult): QueryResult<R> {
  return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
}

/** Db over a node-postgres pool. */
export class PgDb implements Db {
  private readonly pool: pg.Pool;
  private readonly logger: Logger | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: PgDbOptions) {
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.max ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
      types,
    });
    this.logger = options.logger;
    // An idle client that loses its server emits here; without a listener the process would crash.
    // The pool drops that client and connects a new one when next needed.
    this.pool.on('error', (err) =>
      options.logger?.warn({ err }, 'idle Postgres connection failed'),
    );
  }

  async query<R = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
    options?: QueryOptions,
  ): Promise<QueryResult<R>> {
    return toResult<R>(await this.pool.query(singleStatement(sql, params, options)));
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // A checked-out client has no listener of the pool's: a server that ends its session while the
    // transaction waits (the dispatcher holds one open across a submit) would crash the process.
    // The error fails the transaction's next statement; the client is then destroyed, not reused.
    let lost: Error | undefined;
    const onError = (err: Error): void => {
      lost = err;
      this.logger?.warn({ err }, 'Postgres connection lost during a transaction');
    };
    client.on('error', onError);
    let finished = false;
    const live = (): pg.PoolClient => {
      // The client goes back to the pool afterwards: a leaked tx must not write on someone else's.
      if (finished)
        throw new Error('transaction already finished: use the tx only inside its callback');
      return client;
    };
    const tx: Transaction = {
      async query<R = Record<string, unknown>>(
        sql: string,
        params: readonly unknown[] = [],
        options?: QueryOptions,
      ) {
        return toResult<R>(await live().query(singleStatement(sql, params, options)));
      },
      async exec(sql: string) {
        await live().query(sql);
      },
    };
    let broken = false;
    try {
      await client.query('BEGIN');
      const value = await fn(tx);
      await client.query('COMMIT');
      return value;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw err;
    } finally {
      finished = true;
      client.off('error', onError);
      // A client whose ROLLBACK failed, or whose session was lost, is destroyed rather than reused.
      client.release(broken || lost !== undefined);
    }
  }

  /** Several statements, no parameters (simple protocol). */
  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  async ping(): Promise<boolean> {
    try {
      await withTimeout(this.pool.query('SELECT 1'), PING_TIMEOUT_MS, 'ping');
      return true;
    } catch {
      return false;
    }
  }

  /** Waits for checked-out clients to be released; calling it again is harmless. */
  close(): Promise<void> {
    this.closing ??= this.pool.end();
    return this.closing;
  }
}
