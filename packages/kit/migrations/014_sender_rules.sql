-- Sender rules: the senders (`from`) an account may use, as exact values or globs, and what
-- happens to one that is not on its list. An account with no sender_policies row has no list:
-- the operator's UNLISTED_SENDERS setting decides for it. New tables, so `accounts` is untouched.
CREATE TABLE sender_policies (
  account_id uuid PRIMARY KEY REFERENCES accounts (id),
  policy     text NOT NULL CHECK (policy IN ('refuse', 'replace')),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE account_senders (
  account_id uuid NOT NULL REFERENCES sender_policies (account_id) ON DELETE CASCADE,
  pattern    text NOT NULL,
  PRIMARY KEY (account_id, pattern)
);
