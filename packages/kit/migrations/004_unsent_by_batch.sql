-- The batch-scheduler's backpressure and completion checks count a batch's messages that are not
-- yet at the SMSC. Through messages_batch they visited every message of the batch (a 100,000
-- batch: 100,000 rows per chunk); this index holds only the few thousand in flight.
CREATE INDEX messages_batch_unsent ON messages (batch_id, state) WHERE batch_id IS NOT NULL AND state IN ('accepted', 'queued', 'submitting');
