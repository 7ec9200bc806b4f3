-- Inbound (MO) routes to accounts, the accounts' opt-out lists, and webhook calls of inbound
-- messages in callback_attempts (docs/inbound.md).

CREATE TABLE mo_routes (
  name           text PRIMARY KEY,
  -- The first route (lowest position) whose filters all match an inbound message takes it.
  position       integer NOT NULL UNIQUE,
  -- The number the message was sent to: exact when to_exact, else a prefix; NULL matches any.
  to_number      text,
  to_exact       boolean NOT NULL DEFAULT false,
  -- The message's first word, upper-cased; NULL matches any.
  keyword        text,
  -- The connector it came through; NULL matches any.
  connector      text,
  account_id     uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  -- NULL: into the account's inbox only (GET /secure/inbound).
  webhook_url    text,
  -- json: a JSON body; jasmin: form fields named as Jasmin's HTTP API sends MO messages.
  webhook_format text NOT NULL DEFAULT 'json' CHECK (webhook_format IN ('json', 'jasmin')),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE optouts (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  -- Digits, international format without '+', as messages.to_addr holds numbers.
  number     text NOT NULL,
  source     text NOT NULL CHECK (source IN ('keyword', 'account', 'admin')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, number)
);

-- Recipients of a batch left out at acceptance because they opted out (not charged, not sent).
ALTER TABLE batches ADD COLUMN opted_out integer NOT NULL DEFAULT 0;

ALTER TABLE callback_attempts DROP CONSTRAINT callback_attempts_kind_check;
ALTER TABLE callback_attempts ADD CONSTRAINT callback_attempts_kind_check
  CHECK (kind IN ('callback', 'errback', 'dlr1', 'dlr2', 'mo'));
-- How the parameters travel: form (a query string or form body, as `method` says), json (a POST
-- with a JSON body), jasmin (a form POST whose receiver must answer `ACK/Jasmin`).
ALTER TABLE callback_attempts ADD COLUMN format text NOT NULL DEFAULT 'form'
  CHECK (format IN ('form', 'json', 'jasmin'));
