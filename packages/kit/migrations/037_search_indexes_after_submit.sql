-- The search's two indexes (036) hold a message only once it has left the unsent states. Its
-- submit (or its end before one) is an update that cannot be HOT, since it sets `smsc_id` and
-- `unsent`, so it writes an entry into every index whose predicate the new row meets: indexed
-- from the insert on, each message wrote two entries into each of them, and now it writes one.
-- A search reads the unsent messages off messages_unsent (docs/operators.md § Search).
DROP INDEX messages_account_id;
DROP INDEX messages_to_id;
CREATE INDEX messages_account_id ON messages (account_id, id) WHERE NOT unsent;
CREATE INDEX messages_to_id ON messages (to_addr text_pattern_ops, id) WHERE NOT unsent;
