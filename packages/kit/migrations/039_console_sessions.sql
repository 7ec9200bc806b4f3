-- The web console's logins (docs/console.md § Sessions): one row per session, found by the SHA-256
-- of the cookie's random value, which is never stored. A customer's session names its account and
-- the account's credential_version at login, so a password change or a disable ends it; an
-- operator's names the hash of the admin token it logged in with, checked again on every request,
-- so a revoked token (or a rotated ADMIN_TOKEN) ends it.
CREATE TABLE console_sessions (
  id_hash            text PRIMARY KEY,
  kind               text NOT NULL CHECK (kind IN ('customer', 'operator')),
  account_id         uuid REFERENCES accounts (id) ON DELETE CASCADE,
  credential_version integer,
  admin_token_hash   text,
  csrf_token         text NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  seen_at            timestamptz NOT NULL DEFAULT now(),
  -- The session ends at the first of: idle past its timeout (seen_at), or its absolute end.
  expires_at         timestamptz NOT NULL,
  CHECK ((kind = 'customer') = (account_id IS NOT NULL AND credential_version IS NOT NULL)),
  CHECK ((kind = 'operator') = (admin_token_hash IS NOT NULL))
);
CREATE INDEX console_sessions_expires_at ON console_sessions (expires_at);
