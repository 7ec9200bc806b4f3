-- SMPP access of an account (docs/smpp-server.md): the account's username is its system_id, and
-- it binds with a password of its own (SMPP 3.4 allows at most 8 characters, too short to be the
-- HTTP password), stored as a scrypt hash like the HTTP one. An account without a row cannot bind.
-- The limits hold across every smpp-server replica: sessions at once, the addresses it may bind
-- from (empty: any), and messages per second over all of its sessions (NULL: no limit).
CREATE TABLE smpp_access (
  account_id        uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  password_hash     text NOT NULL,
  max_sessions      integer NOT NULL DEFAULT 4 CHECK (max_sessions BETWEEN 1 AND 1000),
  throughput        integer CHECK (throughput IS NULL OR throughput BETWEEN 1 AND 100000),
  allowed_addresses text[] NOT NULL DEFAULT ARRAY[]::text[],
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- Receipts (and inbound messages) for an account's SMPP sessions, kept until one of its receiver
-- or transceiver sessions, on any replica, answers the deliver_sm with ESME_ROK. `pdu` holds what
-- the deliver_sm is made from; a replica that sends one leases the row until `next_attempt_at`,
-- so a deliver_sm left unanswered is sent again after it. Rows older than the operator's expiry
-- (SMPP_RECEIPT_EXPIRY_HOURS) are dropped.
CREATE TABLE smpp_deliveries (
  id              bigserial PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  kind            text NOT NULL CHECK (kind IN ('receipt', 'inbound')),
  source_id       uuid NOT NULL,
  pdu             jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (kind, source_id)
);
CREATE INDEX smpp_deliveries_due ON smpp_deliveries (account_id, next_attempt_at);

-- The sessions bound to every smpp-server replica, for the admin API: each replica writes its own
-- on bind, refreshes them (window in use, rate, seen_at) every few seconds and deletes them on
-- close. An operator closes one by setting close_requested, which its replica reads at its next
-- refresh. Rows of a replica that died stop being refreshed and are left out, then deleted.
CREATE TABLE smpp_sessions (
  id                 uuid PRIMARY KEY,
  account_id         uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  bind_type          text NOT NULL CHECK (bind_type IN ('transmitter', 'receiver', 'transceiver')),
  address            text NOT NULL,
  since              timestamptz NOT NULL,
  replica            text NOT NULL,
  window_in_use      integer NOT NULL DEFAULT 0,
  submits_per_second integer NOT NULL DEFAULT 0,
  seen_at            timestamptz NOT NULL DEFAULT now(),
  close_requested    boolean NOT NULL DEFAULT false
);
CREATE INDEX smpp_sessions_account ON smpp_sessions (account_id);

-- An MO route can deliver to the account's SMPP sessions, beside its webhook and its inbox.
ALTER TABLE mo_routes ADD COLUMN smpp boolean NOT NULL DEFAULT false;
