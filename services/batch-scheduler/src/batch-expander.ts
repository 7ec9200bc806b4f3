import type { Db } from '@smsgw/kit';
import {
  advanceBatchCursor,
  completeFinishedBatches,
  deleteJobOutboxRow,
  expandBatchChunk,
  takeDueBatch,
} from '@smsgw/store';

export interface ExpandedChunk {
  batchId: string;
  accountId: string;
  messages: { id: string; segments: number; connector: string }[];
  /** The job_outbox row naming the chunk's messages, deleted once their jobs are confirmed (none for an empty chunk). */
  outboxId: string | undefined;
  /** true when this chunk holds the batch's last recipients. */
  last: boolean;
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
      const batch = await takeDueBatch(tx, this.options.maxUnsentPerBatch);
      if (!batch) return undefined;
      const taken = await expandBatchChunk(tx, batch, this.options.chunkSize);
      let nextEntry = batch.next_entry;
      let nextOffset = batch.next_offset;
      for (const entry of taken) {
        const start = entry.seq === batch.next_entry ? batch.next_offset : 0;
        if (start + entry.taken >= entry.size) {
          nextEntry = entry.seq + 1;
          nextOffset = 0;
        } else {
          nextEntry = entry.seq;
          nextOffset = start + entry.taken;
        }
      }
      const ids = taken[0]?.ids ?? [];
      const segments = taken[0]?.segments ?? [];
      const connectors = taken[0]?.connectors ?? [];
      const messages = ids.map((id, i) => ({
        id,
        segments: segments[i],
        connector: connectors[i],
      }));
      const expanded = batch.expanded + messages.length;
      await advanceBatchCursor(tx, batch.id, { nextEntry, nextOffset, expanded });
      return {
        batchId: batch.id,
        accountId: batch.account_id,
        messages,
        outboxId: taken[0]?.outbox_id ?? undefined,
        last: expanded >= batch.total,
      };
    });
  }

  /** After the broker confirmed the chunk's jobs; until then the dispatcher's sweep would re-publish them. */
  async clearOutbox(outboxId: string | undefined): Promise<void> {
    if (outboxId === undefined) return;
    await deleteJobOutboxRow(this.db, outboxId);
  }

  /** Batches fully expanded whose every message reached an outcome. */
  async completeFinished(): Promise<string[]> {
    return completeFinishedBatches(this.db);
  }
}
