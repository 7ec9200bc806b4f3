-- Every state change of a message writes a new entry into every index of `messages` (the state is
-- indexed, so no update is HOT), and a message changes state three or four times: each index costs
-- Postgres about as much per message as the row itself. So `messages` keeps only the indexes a
-- query uses:
-- * messages_account_created served no query (a message is read by its id, then its account is
--   checked); an operator who wants to list an account's messages can add it back.
-- * messages_batch (every message of a batch: its status) and messages_batch_unsent (the in-flight
--   ones: the scheduler's backpressure and completion) become one index on (batch_id, state), which
--   serves both: the in-flight ones of a batch are a range of it.
DROP INDEX messages_account_created;
DROP INDEX messages_batch;
DROP INDEX messages_batch_unsent;
CREATE INDEX messages_batch_state ON messages (batch_id, state) WHERE batch_id IS NOT NULL;
