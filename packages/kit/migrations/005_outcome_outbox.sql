-- Outcome events (message.result, message.dlr) are written in the same statement as the state change
-- they report, so a callback or delivery report cannot be lost between that commit and the publish
-- (promise 4). The event on the bus only carries the same payload sooner; the callback-notifier
-- deletes a row once it has made the callback rows of it, and takes up rows whose event never came.
CREATE TABLE outcome_outbox (
  message_id uuid NOT NULL,
  topic      text NOT NULL,
  payload    jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (message_id, topic)
);
CREATE INDEX outcome_outbox_created ON outcome_outbox (created_at);

-- Someone waits for the SMSC's answer of this message: its batch has a callback or errback URL, or
-- it asked for a delivery report of level 1 or 3.
CREATE FUNCTION smsgw_wants_result(params jsonb, batch uuid) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT (params->>'dlr' = 'yes' AND params->>'dlr_url' IS NOT NULL AND COALESCE(params->>'dlr_level', '1') IN ('1', '3'))
      OR EXISTS (SELECT 1 FROM batches b WHERE b.id = batch AND (b.callback_url IS NOT NULL OR b.errback_url IS NOT NULL))
$$;
