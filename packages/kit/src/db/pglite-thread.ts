import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import type { EngineResult, PgliteEngine } from './pglite-engine';

export type EngineRequest =
  | { id: number; op: 'query'; sql: string; params: readonly unknown[] }
  | { id: number; op: 'exec'; sql: string }
  | { id: number; op: 'close' };

/** A request before it is numbered. */
type EngineCall = EngineRequest extends infer T
  ? T extends unknown
    ? Omit<T, 'id'>
    : never
  : never;

export type EngineReply =
  | { id: number; rows: unknown[]; affectedRows?: number | undefined }
  | { id: number; error: { message: string } & Record<string, string> };

/** The compiled worker; absent when running from TypeScript sources (jest), which then stay in-thread. */
const WORKER_SCRIPT = join(__dirname, 'pglite-worker.js');

/**
 * The database thread's young generation, in MB (V8's default is 32 or more): what that thread
 * allocates is short-lived protocol buffers, and a smaller young generation keeps it resident for
 * less (docs/decisions.md § Embedded mode).
 */
export const PGLITE_THREAD_YOUNG_GENERATION_MB = 8;

export function canRunPgliteInWorker(): boolean {
  return existsSync(WORKER_SCRIPT);
}

/**
 * Values cross threads by structured clone: a Buffer arrives as a Uint8Array, and a Date as one of
 * the thread's own realm (under jest, not the test's). Callers of Db get what node-postgres gives:
 * a bytea is a Buffer, a timestamp a Date of their realm.
 */
function restoreValues(rows: unknown[]): void {
  for (const row of rows as Record<string, unknown>[]) {
    for (const key in row) {
      const value = row[key];
      if (value === null || typeof value !== 'object') continue;
      if (ArrayBuffer.isView(value) && !Buffer.isBuffer(value))
        row[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      else if (
        Object.prototype.toString.call(value) === '[object Date]' &&
        !(value instanceof Date)
      )
        row[key] = new Date((value as Date).getTime());
    }
  }
}

/**
 * PGlite on a worker thread (docs/decisions.md § Embedded mode): its WebAssembly was about three
 * quarters of the main thread's time under load. Requests are posted in order and answered in
 * order; PgliteDb keeps them one at a time as before.
 */
export async function openWorkerEngine(
  dataDir: string | undefined,
  script: string = WORKER_SCRIPT,
): Promise<PgliteEngine> {
  if (dataDir !== undefined && !existsSync(join(dataDir, 'PG_VERSION'))) {
    // Creating the database (initdb) leaves PGlite's memory more than twice what opening it takes,
    // and the process would keep it: a short-lived process of its own creates it instead.
    await promisify(execFile)(process.execPath, [
      join(dirname(script), 'pglite-create.js'),
      dataDir,
    ]);
  }
  const worker = new Worker(script, {
    workerData: { dataDir },
    resourceLimits: { maxYoungGenerationSizeMb: PGLITE_THREAD_YOUNG_GENERATION_MB },
  });
  const waiting = new Map<
    number,
    { resolve: (r: EngineReply) => void; reject: (e: Error) => void }
  >();
  let next = 1;
  let failure: Error | undefined;
  const failAll = (err: Error) => {
    failure = err;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  worker.on('message', (reply: EngineReply) => {
    const w = waiting.get(reply.id);
    waiting.delete(reply.id);
    w?.resolve(reply);
  });
  worker.on('error', (err) => failAll(err));
  worker.on('exit', (code) =>
    failAll(new Error(`the embedded database's thread exited (${code})`)),
  );

  const call = (request: EngineCall): Promise<EngineReply> => {
    if (failure) return Promise.reject(failure);
    const id = next++;
    return new Promise<EngineReply>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    }).then((reply) => {
      if ('error' in reply) throw Object.assign(new Error(reply.error.message), reply.error);
      return reply;
    });
  };

  // Opening (and any failure to) shows at the first statement; wait for it here instead.
  await call({ op: 'query', sql: 'SELECT 1', params: [] });
  return {
    async query<R>(sql: string, params: readonly unknown[]): Promise<EngineResult<R>> {
      const reply = (await call({ op: 'query', sql, params })) as {
        rows: R[];
        affectedRows?: number;
      };
      restoreValues(reply.rows);
      return reply;
    },
    async exec(sql: string) {
      await call({ op: 'exec', sql });
    },
    async close() {
      await call({ op: 'close' });
      await worker.terminate();
    },
  };
}
