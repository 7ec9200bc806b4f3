-- Retention (docs/retention.md): messages, their parts and their callback requests are partitioned
-- by message id, which is time-ordered (UUIDv7: its first 48 bits are the Unix time in ms), so a
-- lookup by id still reads one partition and a period past MESSAGE_RETENTION_DAYS is dropped whole
-- instead of deleted row by row. Each table keeps a DEFAULT partition: the rows written before this
-- migration (random ids) and any row whose period has no partition yet.

-- A UUIDv7 made in Postgres, for the messages a batch expansion makes in one statement.
CREATE FUNCTION smsgw_time_id() RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(
           set_bit(set_bit(
             overlay(uuid_send(gen_random_uuid())
                     PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                     FROM 1 FOR 6),
             52, 1), 53, 1),
           'hex')::uuid
$$;

-- A partition of messages cannot be dropped while a foreign key points at it: a message's parts
-- and callbacks are dropped with it instead, period by period, in the same transaction.
ALTER TABLE message_parts DROP CONSTRAINT message_parts_message_id_fkey;

ALTER TABLE messages RENAME TO messages_default;
ALTER INDEX messages_pkey RENAME TO messages_default_pkey;
ALTER INDEX messages_batch_state RENAME TO messages_default_batch_state;
ALTER INDEX messages_smsc_id RENAME TO messages_default_smsc_id;
ALTER INDEX messages_state_updated RENAME TO messages_default_state_updated;
CREATE TABLE messages (LIKE messages_default INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (id);
ALTER TABLE messages ADD CONSTRAINT messages_pkey PRIMARY KEY (id);
CREATE INDEX messages_batch_state ON messages (batch_id, state) WHERE batch_id IS NOT NULL;
CREATE INDEX messages_smsc_id ON messages (smsc_id) WHERE smsc_id IS NOT NULL;
CREATE INDEX messages_state_updated ON messages (state, updated_at)
  WHERE state IN ('accepted', 'queued', 'submitting');
ALTER TABLE messages ATTACH PARTITION messages_default DEFAULT;

ALTER TABLE message_parts RENAME TO message_parts_default;
ALTER INDEX message_parts_pkey RENAME TO message_parts_default_pkey;
ALTER INDEX message_parts_smsc_id RENAME TO message_parts_default_smsc_id;
CREATE TABLE message_parts (LIKE message_parts_default INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (message_id);
ALTER TABLE message_parts ADD CONSTRAINT message_parts_pkey PRIMARY KEY (message_id, seq);
CREATE INDEX message_parts_smsc_id ON message_parts (smsc_id);
ALTER TABLE message_parts ATTACH PARTITION message_parts_default DEFAULT;

ALTER TABLE callback_attempts RENAME TO callback_attempts_default;
ALTER INDEX callback_attempts_pkey RENAME TO callback_attempts_default_pkey;
ALTER INDEX callback_attempts_due RENAME TO callback_attempts_default_due;
CREATE TABLE callback_attempts (LIKE callback_attempts_default INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (message_id);
ALTER TABLE callback_attempts ADD CONSTRAINT callback_attempts_pkey PRIMARY KEY (message_id, kind);
CREATE INDEX callback_attempts_due ON callback_attempts (next_attempt_at) WHERE state = 'pending';
ALTER TABLE callback_attempts ATTACH PARTITION callback_attempts_default DEFAULT;

-- One row per period: its partition of each of the three tables is named <table>_<suffix>.
CREATE TABLE message_partitions (
  suffix  text PRIMARY KEY,
  from_at timestamptz NOT NULL UNIQUE,
  to_at   timestamptz NOT NULL,
  CHECK (to_at > from_at)
);

-- Inbound messages and batches are far fewer than messages: they are deleted by age in chunks.
CREATE INDEX inbound_messages_received ON inbound_messages (received_at);
CREATE INDEX batches_created ON batches (created_at);
