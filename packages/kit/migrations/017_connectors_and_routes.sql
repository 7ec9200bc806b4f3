-- Connectors (named links to SMSCs) and ordered MT routes (docs/routing.md).

CREATE TABLE connectors (
  name          text PRIMARY KEY,
  -- smpp://, smpps://, http:// or https:// with every parameter SMSC_URL takes; holds the password,
  -- which the admin API never returns.
  url           text NOT NULL,
  -- SMPP sessions the connector may have open at once across the whole cluster.
  binds         integer NOT NULL DEFAULT 1 CHECK (binds >= 1),
  bind_mode     text NOT NULL DEFAULT 'transceiver' CHECK (bind_mode IN ('transceiver', 'transmitter_receiver')),
  -- What the operator asked for: `stopped` unbinds it and holds (or fails over) its traffic.
  desired_state text NOT NULL DEFAULT 'started' CHECK (desired_state IN ('started', 'stopped')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE mt_routes (
  name       text PRIMARY KEY,
  -- The first route (lowest position) whose filters all match a message takes it.
  position   integer NOT NULL UNIQUE,
  kind       text NOT NULL CHECK (kind IN ('static', 'weighted', 'failover')),
  -- [{"connector": "...", "weight": n}] in order.
  targets    jsonb NOT NULL,
  -- Destination prefixes or pattern, accounts, senders, tags, time window; {} is the default route.
  filters    jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- SMPP command_status names (ESME_RINVDSTADR) that pass a message to the next connector.
  reroute_on text[] NOT NULL DEFAULT '{}',
  -- Price per message part for the route's destinations; NULL keeps the account's rate.
  price      numeric(20, 6) CHECK (price IS NULL OR price >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
