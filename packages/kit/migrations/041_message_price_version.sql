-- The price list version that priced a message (docs/billing.md § Which price applies), decided at
-- acceptance with its price; NULL when the route's price or the account's rate did. A batch's
-- entries keep it for the messages their expansion makes.
ALTER TABLE messages ADD COLUMN price_version bigint;
ALTER TABLE batch_entries ADD COLUMN price_version bigint;
