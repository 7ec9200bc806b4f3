-- Parts of concatenated inbound messages, kept as they arrive (so a crash loses none) until every
-- part is there, or until they have waited INBOUND_PART_TIMEOUT_MS and are delivered incomplete.
CREATE TABLE inbound_parts (
  connector   text NOT NULL,
  from_addr   text NOT NULL,
  to_addr     text NOT NULL,
  ref         integer NOT NULL,
  total       smallint NOT NULL,
  seq         smallint NOT NULL,
  coding      smallint NOT NULL,
  body        bytea NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connector, from_addr, to_addr, ref, total, seq)
);
CREATE INDEX inbound_parts_received ON inbound_parts (received_at);
