-- SMPP optional parameters (TLVs) an operator sets per connector (defaults for every submit_sm
-- through it) and per MT route (overrides for the messages it takes), each a JSON list of
-- {"tag": n, "value": "<hex octets>"} checked by the admin API. A time of their own, so a change of
-- TLVs neither restarts a connector's sessions nor reloads the routers (docs/routing.md § TLVs).
ALTER TABLE connectors ADD COLUMN tlvs jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE connectors ADD COLUMN tlvs_updated_at timestamptz;
ALTER TABLE mt_routes ADD COLUMN tlvs jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE mt_routes ADD COLUMN tlvs_updated_at timestamptz;
