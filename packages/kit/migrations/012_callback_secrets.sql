-- Outgoing callbacks are signed with a secret of their account (HMAC-SHA256). Every account has
-- one: new accounts get it at creation (the default), existing ones here, each its own (a volatile
-- default is evaluated per row). 64 hex digits from two random UUIDs: gen_random_uuid draws from
-- the strong random source on Postgres and PGlite alike, where pgcrypto may not be installed.
-- While a rotation's grace period lasts, the previous secret signs too, so receivers can switch.
ALTER TABLE accounts
  ADD COLUMN callback_secret text NOT NULL
    DEFAULT replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
ALTER TABLE accounts ADD COLUMN callback_secret_previous text;
ALTER TABLE accounts ADD COLUMN callback_secret_previous_until timestamptz;
