-- A connector's password, sealed with CONNECTOR_SECRET_KEY (AES-256-GCM), out of its URL: the URL
-- column then holds no password. NULL: a row written before, whose URL still holds it in clear;
-- dispatchers seal such rows when they start (docs/security.md § Connectors).
ALTER TABLE connectors ADD COLUMN password_sealed text;
