-- Accounts, applications, the credit ledger and messages (docs/architecture.md § States).
-- Plain Postgres SQL only: the same file runs on Postgres and on PGlite.

CREATE TABLE accounts (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  username      text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  -- NULL means unlimited ("ND" on the wire).
  balance       numeric(20, 6) CHECK (balance IS NULL OR balance >= 0),
  sms_count     bigint CHECK (sms_count IS NULL OR sms_count >= 0),
  rate          numeric(20, 6) NOT NULL DEFAULT 1 CHECK (rate >= 0),
  default_from  text,
  throughput    double precision NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE applications (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  client_id   text NOT NULL UNIQUE,
  secret_hash text NOT NULL,
  name        text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
CREATE INDEX applications_account ON applications (account_id);

CREATE TABLE messages (
  id           uuid PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts (id),
  batch_id     uuid,
  state        text NOT NULL,
  to_addr      text NOT NULL,
  from_addr    text,
  content      text,
  hex_content  text,
  coding       smallint NOT NULL,
  segments     integer NOT NULL,
  cost         numeric(20, 6) NOT NULL,
  params       jsonb NOT NULL DEFAULT '{}'::jsonb,
  smsc_id      text,
  attempts     integer NOT NULL DEFAULT 0,
  error        text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  submitted_at timestamptz,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_account_created ON messages (account_id, created_at);
CREATE INDEX messages_state_updated ON messages (state, updated_at)
  WHERE state IN ('accepted', 'queued', 'submitting');
CREATE INDEX messages_smsc_id ON messages (smsc_id) WHERE smsc_id IS NOT NULL;
CREATE INDEX messages_batch ON messages (batch_id) WHERE batch_id IS NOT NULL;

-- Every change of balance or quota is explained by one row here, written in the same transaction.
CREATE TABLE credit_ledger (
  id          bigserial PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES accounts (id),
  amount      numeric(20, 6) NOT NULL,
  sms_count   bigint NOT NULL DEFAULT 0,
  reason      text NOT NULL CHECK (reason IN ('debit', 'refund', 'credit')),
  message_id  uuid,
  batch_id    uuid,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credit_ledger_account ON credit_ledger (account_id, created_at);
-- A message is refunded at most once, whoever tries twice.
CREATE UNIQUE INDEX credit_ledger_refund_once ON credit_ledger (message_id) WHERE reason = 'refund' AND message_id IS NOT NULL;
