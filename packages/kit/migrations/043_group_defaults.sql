-- A customer group's defaults for its accounts (docs/billing.md § Customer groups): the throughput
-- cap an account without one of its own takes, and the sender rules of an account without a list
-- of its own.
ALTER TABLE customer_groups ADD COLUMN throughput double precision NOT NULL DEFAULT 0 CHECK (throughput >= 0);
ALTER TABLE customer_groups ADD COLUMN sender_policy text CHECK (sender_policy IN ('refuse', 'replace'));
ALTER TABLE customer_groups ADD COLUMN senders text[] NOT NULL DEFAULT '{}';
