-- A batch that stops moving is reported (docs/reliability.md § A stalled batch). batches.progressed_at
-- is when it last moved: a chunk of it was expanded, or one of its messages left the unsent states
-- (reached the SMSC or ended before it). The expansion sets it with the cursor; the
-- batch-scheduler's stall watch compares each open batch's expanded recipients and unsent
-- messages with what it saw last (watched_expanded, watched_unsent) and sets it when either
-- differs: a message leaving the unsent states lowers the count, and only an expansion raises it.
-- A batch never seen moving counts from when it became due.
ALTER TABLE batches ADD COLUMN progressed_at timestamptz;
ALTER TABLE batches ADD COLUMN watched_expanded integer;
ALTER TABLE batches ADD COLUMN watched_unsent integer;
