-- The counts of message_stats by hour, account and state alone, added to by the statements that
-- add to message_stats: what a query that names neither a connector, a route nor a country reads,
-- a third of the rows (docs/operators.md § Statistics). Filled from message_stats here.
CREATE TABLE message_stats_accounts (
  hour       timestamptz NOT NULL,
  account_id uuid NOT NULL,
  state      text NOT NULL,
  messages   bigint NOT NULL,
  parts      bigint NOT NULL,
  charged    numeric(20, 6) NOT NULL,
  refunded   numeric(20, 6) NOT NULL,
  PRIMARY KEY (hour, account_id, state)
);
CREATE INDEX message_stats_accounts_account ON message_stats_accounts (account_id, hour);

INSERT INTO message_stats_accounts (hour, account_id, state, messages, parts, charged, refunded)
SELECT hour, account_id, state, sum(messages), sum(parts), sum(charged), sum(refunded)
  FROM message_stats
 GROUP BY 1, 2, 3;
