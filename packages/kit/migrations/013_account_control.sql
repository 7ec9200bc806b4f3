-- Account control: an operator can disable an account, set its password and rotate an
-- application's secret.
-- * accounts.disabled_at: set while the account is disabled (refused at once, its batches held).
-- * accounts.credential_version: raised by every disable and password change. Access tokens carry
--   the version they were issued under, so a token from before the change stops working.
-- * accounts.credentials_changed_at: when the password was last set by an operator (for audits).
-- * applications.secret_version and secret_changed_at: the same for one application's secret.
ALTER TABLE accounts ADD COLUMN disabled_at timestamptz;
ALTER TABLE accounts ADD COLUMN credential_version integer NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN credentials_changed_at timestamptz;
ALTER TABLE applications ADD COLUMN secret_version integer NOT NULL DEFAULT 0;
ALTER TABLE applications ADD COLUMN secret_changed_at timestamptz;
