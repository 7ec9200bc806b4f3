-- Messages are written `queued` in the statement that accepts (gateway) or expands (scheduler) them,
-- with one row here naming them; the writer deletes the row once the broker confirmed their jobs.
-- A row that outlives that (a crash or a broker failure between commit and confirm) is re-published
-- by the dispatcher's recovery sweep. Before this, each message was inserted `accepted` and updated
-- to `queued` after the confirm: one more write of the whole row and of every index of `messages`
-- per message, where this is one narrow row per statement or chunk.
CREATE TABLE job_outbox (
  id          bigserial PRIMARY KEY,
  message_ids uuid[] NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
