-- Each part of a message has its own SMSC id and its own receipt (docs/architecture.md § Receipts
-- and message ids); the message's state is the aggregate of its parts.
CREATE TABLE message_parts (
  message_id uuid NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  seq        smallint NOT NULL,
  smsc_id    text NOT NULL,
  state      text NOT NULL DEFAULT 'submitted',
  stat       text,
  err        text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (message_id, seq)
);
CREATE INDEX message_parts_smsc_id ON message_parts (smsc_id);
