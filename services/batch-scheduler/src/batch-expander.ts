import { randomUUID } from 'node:crypto';
import type { Db } from '@smsgw/kit';

export interface ExpandedChunk {
  batchId: string;
  accountId: string;
  messages: { id: string; segments: number }[];
  /** The job_outbox row naming the chunk's messages, deleted once their jobs are confirmed. */
  outboxId: string;
  /** true when this chunk holds the batch's last recipients. */
  last: boolean;
}

interface DueBatch {
  id: string;
  account_id: string;
  next_entry: number;
  next_offset: number;
  total: number;
  expanded: number;
}

interface EntrySlice {
  seq: number;
  from_addr: string | null;
  content: string | null;
  hex_content: string | null;
  coding: number;
  segments: number;
  unit_cost: string;
  params: Record<string, unknown>;
  size: number;
  slice: string[];
}

/**
 * Batch `b`'s messages in these states, one equality per state: the index on (batch_id, state)
 * then reads only those entries. With `state IN (…)` the plan Postgres caches (prepared, made when
 * the table was still empty) scans every message of the batch and filters on the state.
 */
function inState(form: 'count' | 'exists', states: string[]): string {
  const one = (state: string) =>
    form === 'count'
      ? `(SELECT count(*) FROM messages m WHERE m.batch_id = b.id AND m.state = '${state}')`
      : `EXISTS (SELECT 1 FROM messages m WHERE m.batch_id = b.id AND m.state = '${state}')`;
  return states.map(one).join(form === 'count' ? ' + ' : ' OR ');
}

/**
 * Turns due batches into messages, one chunk per transaction: the messages and the cursor commit
 * together, so a crash resumes at the cursor with nothing lost or made twice. SKIP LOCKED lets
 * several schedulers share the work.
 */
export class BatchExpander {
  constructor(
    private readonly db: Db,
    private readonly options: { chunkSize: number; maxUnsentPerBatch: number },
  ) {}

  /** Expands one chunk of one due batch; undefined when nothing is due (or all due batches are saturated). */
  async expandChunk(): Promise<ExpandedChunk | undefined> {
    return this.db.transaction(async (tx) => {
      // Backpressure: a batch whose earlier messages are still waiting for the dispatcher is passed over.
      const { rows } = await tx.query<DueBatch>(
        `SELECT b.id, b.account_id, b.next_entry, b.next_offset, b.total, b.expanded
           FROM batches b
          WHERE b.state IN ('scheduled', 'running') AND b.expanded < b.total
            AND (b.scheduled_at IS NULL OR b.scheduled_at <= now())
            AND ${inState('count', ['queued', 'accepted'])} < $1
          ORDER BY COALESCE(b.scheduled_at, b.created_at)
          LIMIT 1
          FOR UPDATE OF b SKIP LOCKED`,
        [this.options.maxUnsentPerBatch],
      );
      const batch = rows[0];
      if (!batch) return undefined;
      const chunk = this.options.chunkSize;
      const entries = await tx.query<EntrySlice>(
        // Only the rows the chunk reaches into (`upto`: recipients from the cursor's row on, through
        // this row), each sliced to what the chunk can still take.
        `SELECT seq, from_addr, content, hex_content, coding, segments, unit_cost::text AS unit_cost, params, size,
                recipients[(CASE WHEN seq = $2 THEN $3 ELSE 0 END) + 1 :
                           (CASE WHEN seq = $2 THEN $3 ELSE 0 END) + LEAST($4, $3 + $4 - (upto - size))] AS slice
           FROM (SELECT seq, from_addr, content, hex_content, coding, segments, unit_cost, params, recipients, size,
                        sum(size) OVER (ORDER BY seq) AS upto
                   FROM (SELECT e.seq, e.from_addr, e.content, e.hex_content, e.coding, e.segments, e.unit_cost, e.params, e.recipients,
                                COALESCE(e.size, cardinality(e.recipients)) AS size
                           FROM batch_entries e
                          WHERE e.batch_id = $1 AND e.seq >= $2
                          ORDER BY e.seq
                          LIMIT $4) rows_from_cursor) counted
          WHERE upto - size < $3 + $4
          ORDER BY seq`,
        [batch.id, batch.next_entry, batch.next_offset, chunk],
      );
      const messages: Record<string, unknown>[] = [];
      let nextEntry = batch.next_entry;
      let nextOffset = batch.next_offset;
      for (const entry of entries.rows) {
        const room = chunk - messages.length;
        if (room <= 0) break;
        const take = entry.slice.slice(0, room);
        for (const to of take) {
          messages.push({
            id: randomUUID(),
            to_addr: to,
            from_addr: entry.from_addr,
            content: entry.content,
            hex_content: entry.hex_content,
            coding: entry.coding,
            segments: entry.segments,
            cost: entry.unit_cost,
            params: entry.params,
          });
        }
        const start = entry.seq === batch.next_entry ? batch.next_offset : 0;
        if (start + take.length >= entry.size) {
          nextEntry = entry.seq + 1;
          nextOffset = 0;
        } else {
          nextEntry = entry.seq;
          nextOffset = start + take.length;
        }
      }
      await tx.query(
        `INSERT INTO messages (id, account_id, batch_id, state, to_addr, from_addr, content, hex_content, coding, segments, cost, params)
         SELECT m.id, $1, $2, 'queued', m.to_addr, m.from_addr, m.content, m.hex_content, m.coding, m.segments, m.cost, m.params
           FROM jsonb_to_recordset($3::jsonb) AS m(id uuid, to_addr text, from_addr text, content text, hex_content text,
                                                   coding smallint, segments int, cost numeric, params jsonb)`,
        [batch.account_id, batch.id, JSON.stringify(messages)],
      );
      const outbox = await tx.query<{ id: string }>(`INSERT INTO job_outbox (message_ids) VALUES ($1::uuid[]) RETURNING id::text AS id`, [
        messages.map((m) => m.id),
      ]);
      const expanded = batch.expanded + messages.length;
      await tx.query(
        `UPDATE batches SET state = 'running', next_entry = $2, next_offset = $3, expanded = $4, updated_at = now() WHERE id = $1`,
        [batch.id, nextEntry, nextOffset, expanded],
      );
      return {
        batchId: batch.id,
        accountId: batch.account_id,
        messages: messages.map((m) => ({ id: m.id as string, segments: m.segments as number })),
        outboxId: outbox.rows[0]!.id,
        last: expanded >= batch.total,
      };
    });
  }

  /** After the broker confirmed the chunk's jobs; until then the dispatcher's sweep would re-publish them. */
  async clearOutbox(outboxId: string): Promise<void> {
    await this.db.query(`DELETE FROM job_outbox WHERE id = $1`, [outboxId]);
  }

  /** Batches fully expanded whose every message reached an outcome. */
  async completeFinished(): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `UPDATE batches b SET state = 'completed', completed_at = now(), updated_at = now()
        WHERE b.state = 'running' AND b.expanded >= b.total
          AND NOT (${inState('exists', ['queued', 'submitting', 'accepted'])})
        RETURNING b.id`,
    );
    return rows.map((r) => r.id);
  }
}
