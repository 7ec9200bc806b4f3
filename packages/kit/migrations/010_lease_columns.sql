-- Columns for the clocks that `updated_at` and `created_at` used to stand in for.
-- * messages.submit_started_at: when the message was last claimed for submission. A message still
--   `submitting` long after it belongs to a dispatcher that stopped mid-submit (the stale-submit
--   clock of the dispatcher and of the recovery sweep).
-- * messages.swept_at: when the recovery sweep last re-published the message's job; the sweep takes
--   a row again only once this is older than its grace, so two sweepers do not publish it together.
--   `updated_at` now changes only with the row's content.
-- * outcome_outbox.lease_until: a notifier that took the row up from the sweep holds it until then;
--   `created_at` stays when the event was written.
-- The columns are not indexed: the sweeps find their rows through the indexes they used before
-- (messages_state_updated, outcome_outbox_created) and check the lease on the rows found.
ALTER TABLE messages ADD COLUMN submit_started_at timestamptz;
ALTER TABLE messages ADD COLUMN swept_at timestamptz;
ALTER TABLE outcome_outbox ADD COLUMN lease_until timestamptz;
