import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import { cdrColumns, cdrQuerySchema, type CdrPer, type CdrRecord } from '@smsgw/contracts';
import { asyncRoute, parseInput, type Db, type Logger } from '@smsgw/kit';
import { readCdrs } from '@smsgw/store';
import { accountIdByName } from './account-by-name';
import type { AdminAudit } from './admin-audit';
import { requireScope } from './admin-scopes';
import { cdrRecords } from './cdr-records';
import { cdrWriter } from './cdr-writer';

const CONTENT_TYPES = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson' } as const;

async function* records(
  db: Db,
  range: { since: Date; until: Date; accountId?: string | undefined },
  per: CdrPer,
): AsyncGenerator<CdrRecord> {
  for await (const row of readCdrs(db, { ...range, parts: per === 'part' }))
    for (const record of cdrRecords(row, per)) yield record;
}

/** The rows of an iterator whose first step is already taken. */
async function* resumed<T>(first: IteratorResult<T>, rest: AsyncIterator<T>): AsyncGenerator<T> {
  try {
    for (let step = first; step.done !== true; step = await rest.next()) yield step.value;
  } finally {
    await rest.return?.();
  }
}

/**
 * Under the admin router: the CDR export (docs/operators.md § CDRs), streamed as it is read, a
 * chunk of rows per statement. The pipeline writes no faster than the client reads (it waits for
 * 'drain') and, when the client goes away, ends the reading. An export is on the audit trail, as
 * the read of a secret is: it copies the numbers and billing of a whole period out of the gateway.
 */
export function createCdrRoutes(
  db: Db,
  audit: AdminAudit,
  maxDays: number,
  logger?: Logger,
): Router {
  const router = Router();
  router.get(
    '/cdrs',
    requireScope('messages:read'),
    asyncRoute(async (req, res) => {
      const q = parseInput(cdrQuerySchema(maxDays), req.query);
      const accountId = await accountIdByName(db, q.account);
      const since = new Date(q.since);
      const until = new Date(q.until);
      const columns = cdrColumns(q.per);
      // The first chunk is read before the answer starts, so a database that fails answers a 500.
      const rows = records(db, { since, until, accountId }, q.per);
      const source = Readable.from(resumed(await rows.next(), rows));
      await audit.recordRead(req, res, { query: q });
      const name = `cdrs-${since.toISOString().slice(0, 10)}-${until.toISOString().slice(0, 10)}`;
      res.status(200).set({
        'Content-Type': CONTENT_TYPES[q.format],
        'Content-Disposition': `attachment; filename="${name}.${q.format}"`,
        'Cache-Control': 'no-store',
      });
      const writer = cdrWriter(q.format, columns);
      try {
        await pipeline(source, writer, res);
      } catch (err) {
        // Headers are out: the pipeline has ended the response short, which the client sees as a
        // broken transfer, not as a complete export.
        if (
          req.socket.destroyed &&
          (err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE'
        )
          logger?.info({ query: q }, 'CDR export ended by the client');
        else logger?.error({ err, query: q }, 'CDR export failed while streaming');
      }
    }),
  );
  return router;
}
