-- Columns and the table that MT routing, several connectors and inbound messages share
-- (docs/routing.md, docs/inbound.md).

-- The route that took the message at acceptance, the connectors it may go through in order (a
-- failover route lists several; NULL means the connector named `default`), the one that took it,
-- and every connector it was offered to, in order.
ALTER TABLE messages ADD COLUMN route text;
ALTER TABLE messages ADD COLUMN connectors text[];
ALTER TABLE messages ADD COLUMN connector text;
ALTER TABLE messages ADD COLUMN connector_trail text[] NOT NULL DEFAULT '{}';

-- An inbound (MO) message, recorded before the SMSC's deliver_sm is answered; a concatenated
-- message is one row once its parts are joined.
CREATE TABLE inbound_messages (
  id             uuid PRIMARY KEY,
  connector      text NOT NULL,
  from_addr      text NOT NULL,
  to_addr        text NOT NULL,
  -- SMPP data_coding as received.
  coding         smallint NOT NULL,
  -- Decoded text; NULL when the coding is not text, then hex_content holds the bytes.
  content        text,
  hex_content    text,
  parts_expected smallint NOT NULL DEFAULT 1,
  parts_received smallint NOT NULL DEFAULT 1,
  incomplete     boolean NOT NULL DEFAULT false,
  -- What recognises the SMSC delivering the same message again (docs/inbound.md § Duplicates).
  dedup_key      text NOT NULL UNIQUE,
  -- received → routed → delivered | failed; unrouted when no MO route takes it.
  state          text NOT NULL DEFAULT 'received',
  account_id     uuid REFERENCES accounts (id),
  mo_route       text,
  keyword        text,
  received_at    timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inbound_messages_account ON inbound_messages (account_id, received_at)
  WHERE account_id IS NOT NULL;
CREATE INDEX inbound_messages_state ON inbound_messages (state, received_at)
  WHERE state IN ('received', 'routed');
