-- Batches (docs/architecture.md § States): accepted whole, held durably until due, expanded into
-- messages in chunks with a cursor, so a restarted scheduler continues where it stopped.
CREATE TABLE batches (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id),
  state         text NOT NULL CHECK (state IN ('scheduled', 'running', 'completed', 'cancelled')),
  callback_url  text,
  errback_url   text,
  scheduled_at  timestamptz,
  total         integer NOT NULL,
  cost          numeric(20, 6) NOT NULL,
  segments      bigint NOT NULL,
  -- Expansion cursor: the next entry, and the next recipient within it.
  next_entry    integer NOT NULL DEFAULT 0,
  next_offset   integer NOT NULL DEFAULT 0,
  expanded      integer NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  completed_at  timestamptz
);
CREATE INDEX batches_account ON batches (account_id, created_at);
CREATE INDEX batches_open ON batches (scheduled_at) WHERE state IN ('scheduled', 'running');

-- One row per message of the request, with globals merged in; recipients stay a list until
-- expanded.
CREATE TABLE batch_entries (
  batch_id    uuid NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
  seq         integer NOT NULL,
  from_addr   text,
  content     text,
  hex_content text,
  coding      smallint NOT NULL,
  segments    integer NOT NULL,
  -- Price of one recipient of this entry.
  unit_cost   numeric(20, 6) NOT NULL,
  params      jsonb NOT NULL DEFAULT '{}'::jsonb,
  recipients  text[] NOT NULL,
  PRIMARY KEY (batch_id, seq)
);

-- Every request to a customer URL: one row per message and kind, so each is made once and retried.
CREATE TABLE callback_attempts (
  message_id   uuid NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('callback', 'errback', 'dlr1', 'dlr2')),
  url          text NOT NULL,
  method       text NOT NULL DEFAULT 'GET',
  query        jsonb NOT NULL,
  state        text NOT NULL CHECK (state IN ('pending', 'done', 'given_up')),
  attempts     integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_outcome text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (message_id, kind)
);
CREATE INDEX callback_attempts_due ON callback_attempts (next_attempt_at) WHERE state = 'pending';

-- What became of the customer callbacks of a message, when they were given up.
ALTER TABLE messages ADD COLUMN callback_error text;
