-- What each message costs us (docs/billing.md § Costs and margins): a connector's supplier prices
-- are a price list like those we sell by, named per connector (env or table alike, so by name);
-- the dispatcher records the cost and its version when the SMSC accepts the message, so a
-- failover costs what the connector that took it charges.
CREATE TABLE connector_costs (
  connector     text PRIMARY KEY,
  price_list_id bigint NOT NULL REFERENCES price_lists (id),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE messages ADD COLUMN supplier_cost numeric(20, 6);
ALTER TABLE messages ADD COLUMN cost_version bigint;

ALTER TABLE cdrs ADD COLUMN price_version bigint;
ALTER TABLE cdrs ADD COLUMN supplier_cost numeric(20, 6);
ALTER TABLE cdrs ADD COLUMN cost_version bigint;

ALTER TABLE message_stats ADD COLUMN supplier_cost numeric(20, 6) NOT NULL DEFAULT 0;
ALTER TABLE message_stats_accounts ADD COLUMN supplier_cost numeric(20, 6) NOT NULL DEFAULT 0;
ALTER TABLE message_stats_daily ADD COLUMN supplier_cost numeric(20, 6) NOT NULL DEFAULT 0;
