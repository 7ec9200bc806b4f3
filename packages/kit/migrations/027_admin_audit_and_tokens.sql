-- Admin tokens with scopes, and the audit trail of admin changes. ADMIN_TOKEN stays the bootstrap
-- token with every scope; tokens made here are named, hold only the scopes given to them, are
-- stored as a SHA-256 of the token (it is 256 random bits, so no KDF is needed) and are revoked,
-- never deleted, so the audit trail keeps naming them.
CREATE TABLE admin_tokens (
  id          bigserial PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  token_hash  text NOT NULL UNIQUE,
  scopes      text[] NOT NULL,
  created_by  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);

-- One row per admin change (and per refused admin request): who, what, on what, from where, when,
-- and how it ended. The summary is the request with every secret replaced, never a password.
CREATE TABLE admin_audit (
  id       bigserial PRIMARY KEY,
  at       timestamptz NOT NULL DEFAULT now(),
  actor    text NOT NULL,
  action   text NOT NULL,
  target   text NOT NULL,
  summary  jsonb NOT NULL DEFAULT '{}'::jsonb,
  address  text NOT NULL,
  status   integer NOT NULL,
  result   text NOT NULL
);
CREATE INDEX admin_audit_actor ON admin_audit (actor, id);
CREATE INDEX admin_audit_action ON admin_audit (action, id);
