-- A batch's recipients are routed at acceptance (docs/routing.md): each entry row holds recipients
-- of one route decision, and its unit_cost is that route's price (or the account's rate) × segments.
ALTER TABLE batch_entries ADD COLUMN route text;
ALTER TABLE batch_entries ADD COLUMN connectors text[];
