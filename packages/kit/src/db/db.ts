export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface QueryOptions {
  /**
   * Plan the statement for each call's parameters and the table as it is now, instead of reusing
   * the connection's prepared plan. For statements that find rows by id in a table that grows fast:
   * a plan prepared while the table was nearly empty scans it whole, and Postgres keeps that plan
   * until the next ANALYZE (up to a minute away), by when the table may hold many thousands of
   * rows.
   */
  planEachCall?: boolean;
}

export interface Queryable {
  query<R = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<R>>;
}

/**
 * One interface in front of node-postgres and PGlite (docs/architecture.md § The embedded database:
 * PGlite is not a drop-in for pg). Both run the same plain-Postgres SQL.
 */
/** Inside a transaction: statements, and multi-statement SQL for migrations. */
export interface Transaction extends Queryable {
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  /** Runs fn in one transaction; rolls back and rethrows when fn throws. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /** Several statements at once, no parameters (migrations). */
  exec(sql: string): Promise<void>;
  /** True while the database answers (for /readyz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
