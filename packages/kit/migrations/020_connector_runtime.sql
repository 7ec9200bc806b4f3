-- What each dispatcher reports of its sessions of each connector, every few seconds; the admin API
-- shows the rows reported recently (docs/routing.md § Connectors).
CREATE TABLE connector_status (
  connector     text NOT NULL,
  -- The dispatcher that holds the session(s): host and process id.
  holder        text NOT NULL,
  bound         integer NOT NULL DEFAULT 0,
  window_in_use integer NOT NULL DEFAULT 0,
  waiting       integer NOT NULL DEFAULT 0,
  -- Submits per second over the last reporting interval.
  rate          real NOT NULL DEFAULT 0,
  last_error    text,
  last_error_at timestamptz,
  up_since      timestamptz,
  down_since    timestamptz,
  reported_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connector, holder)
);
