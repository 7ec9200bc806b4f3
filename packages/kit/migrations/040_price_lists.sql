-- Selling by destination (docs/billing.md): price lists of prefixes, each in versions that take
-- effect at a time of their own, so a new list is loaded ahead of its start and the one before it
-- stays for the messages of its period; customer groups carrying a list; an account's group, and
-- a list of its own that overrides its group's.
CREATE TABLE price_lists (
  id         bigserial PRIMARY KEY,
  name       text NOT NULL UNIQUE,
  currency   text NOT NULL DEFAULT 'EUR' CHECK (currency ~ '^[A-Z]{3}$'),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A version is written whole, in one transaction, before anything reads it: rows are never
-- changed afterwards, so a message priced under a version is priced under exactly that one.
CREATE TABLE price_list_versions (
  id             bigserial PRIMARY KEY,
  list_id        bigint NOT NULL REFERENCES price_lists (id) ON DELETE CASCADE,
  effective_from timestamptz NOT NULL,
  row_count      integer NOT NULL,
  created_by     text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (list_id, effective_from)
);

-- prefix '*' is the default row: the price of a destination no other prefix matches. No foreign
-- key: its check per row made a 100,000-row version take 12.3 s to write in embedded mode instead
-- of 1.4 s; a version's rows are written and deleted with it, by price-lists.ts alone.
CREATE TABLE price_list_rows (
  version_id  bigint NOT NULL,
  prefix      text NOT NULL CHECK (prefix = '*' OR prefix ~ '^[0-9]{1,15}$'),
  price       numeric(20, 6) NOT NULL CHECK (price >= 0),
  description text,
  PRIMARY KEY (version_id, prefix)
);

CREATE TABLE customer_groups (
  id            bigserial PRIMARY KEY,
  name          text NOT NULL UNIQUE,
  price_list_id bigint REFERENCES price_lists (id),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE accounts ADD COLUMN group_id bigint REFERENCES customer_groups (id);
ALTER TABLE accounts ADD COLUMN price_list_id bigint REFERENCES price_lists (id);
CREATE INDEX accounts_group ON accounts (group_id) WHERE group_id IS NOT NULL;
-- Postpaid: the balance may go below zero down to minus the credit limit (0: prepaid, as before).
ALTER TABLE accounts ADD COLUMN credit_limit numeric(20, 6) NOT NULL DEFAULT 0 CHECK (credit_limit >= 0);
ALTER TABLE accounts DROP CONSTRAINT accounts_balance_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_balance_check CHECK (balance IS NULL OR balance >= -credit_limit);
CREATE INDEX accounts_price_list ON accounts (price_list_id) WHERE price_list_id IS NOT NULL;

-- Bumped by every change that can change a price (a version written, a group's list, an account's
-- group or list), so each process reloads its price book only when something changed.
CREATE TABLE pricing_changes (
  id         boolean PRIMARY KEY DEFAULT true CHECK (id),
  version    bigint NOT NULL DEFAULT 0,
  changed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO pricing_changes DEFAULT VALUES;
