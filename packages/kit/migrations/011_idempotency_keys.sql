-- Idempotency-Key on /secure/send and /secure/sendbatch: one row per account and key. The primary
-- key decides which of two requests with the same key runs (on Postgres and PGlite alike); the
-- other waits for this row's answer. `status` and `response` stay NULL while the first request is
-- in progress. `fingerprint` is a hash of the route and the body, so the same key with another
-- request is told apart. Rows past `expires_at` are free again and deleted by a periodic sweep.
CREATE TABLE idempotency_keys (
  account_id   uuid NOT NULL,
  key          text NOT NULL,
  fingerprint  text NOT NULL,
  status       smallint,
  content_type text,
  response     text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
