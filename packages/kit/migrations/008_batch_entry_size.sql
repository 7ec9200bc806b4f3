-- How many recipients a batch_entries row holds, so the scheduler can find the rows of its next
-- chunk without reading their recipient arrays (reading one decompresses all of it). Rows written
-- before this have none; the scheduler counts their array then.
ALTER TABLE batch_entries ADD COLUMN size integer;
