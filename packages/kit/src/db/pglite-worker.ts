import { parentPort, workerData } from 'node:worker_threads';
import { openPglite, prepareParams } from './pglite-engine';
import { PreparedStatements } from './pglite-statements';
import type { EngineRequest, EngineReply } from './pglite-thread';

/**
 * The worker thread of an embedded database (pglite-thread.ts): PGlite runs here, so its
 * WebAssembly does not take the thread that serves HTTP. Requests come one at a time (PgliteDb
 * serializes them); each is answered with its id.
 */
const port = parentPort!;
const ready = openPglite((workerData as { dataDir?: string }).dataDir).then((pg) => ({
  pg,
  statements: new PreparedStatements(pg),
}));

/** What callers of Db read of a Postgres error, as node-postgres gives it. */
const ERROR_FIELDS = ['code', 'detail', 'constraint', 'table', 'column', 'schema', 'severity'];

port.on('message', (request: EngineRequest) => {
  void (async (): Promise<EngineReply> => {
    try {
      const { pg, statements } = await ready;
      if (request.op === 'query') {
        const result = await statements.query(request.sql, prepareParams(request.params));
        return { id: request.id, rows: result.rows, affectedRows: result.affectedRows };
      }
      if (request.op === 'exec') await pg.exec(request.sql);
      else await pg.close();
      return { id: request.id, rows: [] };
    } catch (err) {
      const e = err as Record<string, unknown>;
      const fields = Object.fromEntries(
        ERROR_FIELDS.filter((f) => typeof e[f] === 'string').map((f) => [f, e[f]]),
      );
      return {
        id: request.id,
        error: { message: err instanceof Error ? err.message : String(err), ...fields },
      };
    }
  })().then((reply) => port.postMessage(reply));
});
