-- A message changes state four times (queued, submitting, submitted, then its receipt's state).
-- Postgres can write a change as a HOT update (the new row version on the same page, no new index
-- entries) only when no indexed column changes value, and a column used in an index's predicate
-- counts as indexed. The state was in two indexes, so every change wrote an entry into every index
-- of `messages`. Those indexes now use `unsent` instead, which changes only when the message
-- reaches the SMSC or ends before it (submitted, failed, cancelled): the claim (queued to
-- submitting) and the receipt (submitted to delivered) leave every indexed column as it was.
-- A HOT update also needs room on the row's page: each partition of `messages` leaves half of
-- every page free when rows are inserted (message-partitions.ts MESSAGES_FILLFACTOR for the
-- partitions added later). Adding a stored generated column rewrites each partition once.
DO $$
DECLARE part regclass;
BEGIN
  FOR part IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'messages'::regclass LOOP
    EXECUTE format('ALTER TABLE %s SET (fillfactor = 50)', part);
  END LOOP;
END $$;
ALTER TABLE messages ADD COLUMN unsent boolean NOT NULL
  GENERATED ALWAYS AS (state IN ('accepted', 'queued', 'submitting')) STORED;

DROP INDEX messages_state_updated;
DROP INDEX messages_batch_state;
-- The sweepers, the waiting-age gauge and a connector's held messages read the unsent ones; a
-- batch's status reads all its messages, and its backpressure and completion its unsent ones.
CREATE INDEX messages_unsent ON messages (id) WHERE unsent;
CREATE INDEX messages_batch ON messages (batch_id, unsent) WHERE batch_id IS NOT NULL;
