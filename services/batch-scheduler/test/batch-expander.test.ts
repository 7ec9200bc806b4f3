import { randomUUID } from 'node:crypto';
import { BatchStore, type PlannedEntry } from '@smsgw/api-gateway';
import { type Db } from '@smsgw/kit';
import { insertTestAccount, openMigratedPglite } from '@smsgw/kit/testing';
import { BatchExpander } from '../src/batch-expander';

let db: Db;
let accountId: string;

beforeAll(async () => {
  db = await openMigratedPglite();
  accountId = await insertTestAccount(db);
});
afterAll(() => db.close());

const entry = (content: string, recipients: number, prefix: string): PlannedEntry => ({
  from: null,
  content,
  hexContent: null,
  coding: 0,
  segments: 1,
  params: {},
  recipients: Array.from(
    { length: recipients },
    (_, i) => `${prefix}${String(i).padStart(6, '0')}`,
  ),
});

async function acceptBatch(entries: PlannedEntry[]): Promise<string> {
  const batchId = randomUUID();
  const recipients = entries.reduce((n, e) => n + e.recipients.length, 0);
  const outcome = await new BatchStore(db).accept(batchId, accountId, {
    entries,
    recipients,
    segments: recipients,
    scheduledAt: null,
    callbackUrl: null,
    errbackUrl: null,
  });
  expect(outcome.ok).toBe(true);
  return batchId;
}

/** Expands every chunk, as the scheduler does, and answers the messages in the order they were made. */
async function expandAll(expander: BatchExpander): Promise<{ to: string; content: string }[][]> {
  const chunks: { to: string; content: string }[][] = [];
  for (let i = 0; i < 100; i++) {
    const chunk = await expander.expandChunk();
    if (!chunk) break;
    const { rows } = await db.query<{ id: string; to_addr: string; content: string }>(
      'SELECT id, to_addr, content FROM messages WHERE id = ANY($1::uuid[])',
      [chunk.messages.map((m) => m.id)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    chunks.push(
      chunk.messages.map((m) => ({
        to: byId.get(m.id)!.to_addr,
        content: byId.get(m.id)!.content,
      })),
    );
    await expander.clearOutbox(chunk.outboxId);
  }
  return chunks;
}

describe('BatchExpander over recipient lists stored in rows of at most 1,000', () => {
  it('expands every recipient once, in order, whatever the chunk and row boundaries', async () => {
    const entries = [
      entry('first', 2_500, 'a'),
      entry('second', 1, 'b'),
      entry('third', 1_200, 'c'),
      entry('fourth', 3, 'd'),
    ];
    const batchId = await acceptBatch(entries);
    const { rows } = await db.query<{ seq: number; size: number }>(
      'SELECT seq, size FROM batch_entries WHERE batch_id = $1 ORDER BY seq',
      [batchId],
    );
    expect(rows.map((r) => r.size)).toEqual([1000, 1000, 500, 1, 1000, 200, 3]);

    const chunks = await expandAll(
      new BatchExpander(db, { chunkSize: 700, maxUnsentPerBatch: 1_000_000 }),
    );

    const expected = entries.flatMap((e) =>
      e.recipients.map((to) => ({ to, content: e.content! })),
    );
    expect(chunks.flat()).toEqual(expected);
    expect(chunks.map((c) => c.length)).toEqual([700, 700, 700, 700, 700, 204]);
    const batch = await db.query<{ expanded: number; total: number }>(
      'SELECT expanded, total FROM batches WHERE id = $1',
      [batchId],
    );
    expect(batch.rows[0]).toEqual({ expanded: 3_704, total: 3_704 });
  });

  it('reads rows written before their size was stored', async () => {
    const entries = [entry('one', 5, 'e'), entry('two', 4, 'f')];
    const batchId = await acceptBatch(entries);
    await db.query('UPDATE batch_entries SET size = NULL WHERE batch_id = $1', [batchId]);

    const chunks = await expandAll(
      new BatchExpander(db, { chunkSize: 3, maxUnsentPerBatch: 1_000_000 }),
    );

    expect(chunks.flat().map((m) => m.to)).toEqual(entries.flatMap((e) => e.recipients));
    expect(chunks.map((c) => c.length)).toEqual([3, 3, 3]);
  });

  it('writes the messages queued, named by an outbox row until their jobs are confirmed', async () => {
    const batchId = await acceptBatch([entry('solo', 4, 'g')]);
    const expander = new BatchExpander(db, { chunkSize: 10, maxUnsentPerBatch: 1_000_000 });
    const chunk = (await expander.expandChunk())!;

    const outbox = await db.query<{ message_ids: string[] }>(
      'SELECT message_ids FROM job_outbox WHERE id = $1',
      [chunk.outboxId],
    );
    expect([...outbox.rows[0].message_ids].sort()).toEqual(chunk.messages.map((m) => m.id).sort());
    const states = await db.query<{ state: string }>(
      'SELECT DISTINCT state FROM messages WHERE batch_id = $1',
      [batchId],
    );
    expect(states.rows).toEqual([{ state: 'queued' }]);
    await expander.clearOutbox(chunk.outboxId);
    expect(
      (await db.query('SELECT 1 FROM job_outbox WHERE id = $1', [chunk.outboxId])).rowCount,
    ).toBe(0);
  });
});
