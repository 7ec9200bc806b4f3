import { parse, protocol, type PGlite } from '@electric-sql/pglite';
import type { EngineResult } from './pglite-engine';

type BackendMessage = Parameters<typeof parse.parseResults>[0][number];

/** Statements kept prepared; the least recently used beyond this are closed. */
const MAX_STATEMENTS = 256;

interface Statement {
  name: string;
  /** The parameters' type ids, as Postgres inferred them: they pick each value's serializer. */
  paramTypes: number[];
}

const { serialize } = protocol;

/** Postgres refuses a prepared statement whose result columns a schema change altered. */
function isStalePlan(err: unknown): boolean {
  return (
    (err as { code?: unknown }).code === '0A000' &&
    String((err as Error).message).includes('cached plan must not change result type')
  );
}

/**
 * Runs statements on PGlite as named prepared statements: each SQL text is parsed and described
 * once, then every call is one bind-describe-execute-sync exchange. PGlite's own `query` parses,
 * describes and plans the text again at every call, in six exchanges; this halved a statement's
 * time on the database thread (docs/decisions.md § Embedded mode). Results are parsed by PGlite's
 * own parsers, so rows are the same as `query` gives.
 */
export class PreparedStatements {
  /** In order of last use, oldest first. */
  private readonly byText = new Map<string, Statement>();
  private next = 1;

  constructor(private readonly pg: PGlite) {}

  query<R>(sql: string, params: readonly unknown[]): Promise<EngineResult<R>> {
    return this.pg.runExclusive(async () => {
      try {
        return await this.run<R>(await this.statement(sql), params);
      } catch (err) {
        if (!isStalePlan(err)) throw err;
        await this.forget(sql);
        return this.run<R>(await this.statement(sql), params);
      }
    });
  }

  private async statement(sql: string): Promise<Statement> {
    const known = this.byText.get(sql);
    if (known) {
      this.byText.delete(sql);
      this.byText.set(sql, known);
      return known;
    }
    const name = `smsgw_${this.next++}`;
    const messages = await this.exchange([
      serialize.parse({ name, text: sql }),
      serialize.describe({ type: 'S', name }),
      serialize.sync(),
    ]);
    const description = messages.find((m) => m.name === 'parameterDescription') as
      { dataTypeIDs: number[] } | undefined;
    const statement = { name, paramTypes: description?.dataTypeIDs ?? [] };
    this.byText.set(sql, statement);
    if (this.byText.size > MAX_STATEMENTS) {
      const oldest = this.byText.keys().next().value as string;
      await this.forget(oldest);
    }
    return statement;
  }

  private async forget(sql: string): Promise<void> {
    const statement = this.byText.get(sql);
    if (!statement) return;
    this.byText.delete(sql);
    await this.exchange([serialize.close({ type: 'S', name: statement.name }), serialize.sync()]);
  }

  private async run<R>(statement: Statement, params: readonly unknown[]): Promise<EngineResult<R>> {
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = this.pg.serializers[statement.paramTypes[i]];
      if (serializer) return serializer(value);
      // A type without a serializer (text, for one) takes the value's text, as PGlite's query does.
      if (typeof value === 'string') return value;
      if (typeof value === 'object') return JSON.stringify(value);
      return (value as number | boolean | bigint).toString();
    });
    const messages = await this.exchange([
      serialize.bind({ statement: statement.name, values }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    const [result] = parse.parseResults(messages, this.pg.parsers);
    return { rows: result.rows as R[], affectedRows: result.affectedRows };
  }

  /**
   * One exchange; a Postgres error is thrown once the whole exchange, sync included, is done. The
   * data directory is a directory of this machine or memory, whose PGlite file systems write
   * through: there is nothing to sync after a statement.
   */
  private exchange(parts: Uint8Array[]): Promise<BackendMessage[]> {
    return this.pg.execProtocolStream(Buffer.concat(parts), { syncToFs: false });
  }
}
