-- Inbound messages are trusted only as far as the connector they came through (docs/inbound.md).

-- An HTTP upstream authenticates as its connector: the SHA-256 (hex) of the secret it presents.
-- NULL: the connector's HTTP inbound endpoint refuses every request.
ALTER TABLE connectors ADD COLUMN inbound_secret_hash text;

-- An MO route takes messages of its own connector only, unless it says any connector may bring
-- them. Routes written before this took messages of any connector; they are pinned to `default`
-- (the connector SMSC_URL defines), so an HTTP upstream or another SMSC reaches none of them.
UPDATE mo_routes SET connector = 'default' WHERE connector IS NULL;
ALTER TABLE mo_routes ADD COLUMN any_connector boolean NOT NULL DEFAULT false;
ALTER TABLE mo_routes ADD CONSTRAINT mo_routes_connector_or_any
  CHECK ((connector IS NULL) = any_connector);

-- An account's own opt-out and opt-in words (NULL: the gateway's OPTOUT_KEYWORDS and
-- OPTIN_KEYWORDS; an empty list: none), and whether its traffic is transactional (one-time
-- passwords, alerts): then its opt-out list does not hold its sends. No row: the defaults.
CREATE TABLE optout_settings (
  account_id    uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  optout_words  text[],
  optin_words   text[],
  transactional boolean NOT NULL DEFAULT false,
  updated_at    timestamptz NOT NULL DEFAULT now()
);
