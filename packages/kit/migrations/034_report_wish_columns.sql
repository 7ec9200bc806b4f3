-- The report wish (contracts' decideReportWish): decided once at acceptance and stored as columns
-- of the message, which the store's report events and the notifier trust (docs/architecture.md §
-- The path of a single send, step 11). report_mask holds the events wished as Kannel's dlr-mask
-- bits (1 delivered, 2 another final state, 8 taken by the SMSC, 16 refused), 0 for none;
-- report_url and report_method where and how (null for smpp); report_style how the client takes
-- them (rest, jasmin, kannel, smpp). A batch's entries carry the wish of their messages until the
-- expansion writes them.
ALTER TABLE messages ADD COLUMN report_mask smallint NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN report_url text;
ALTER TABLE messages ADD COLUMN report_method text;
ALTER TABLE messages ADD COLUMN report_style text;
ALTER TABLE batch_entries ADD COLUMN report_mask smallint NOT NULL DEFAULT 0;
ALTER TABLE batch_entries ADD COLUMN report_url text;
ALTER TABLE batch_entries ADD COLUMN report_method text;
ALTER TABLE batch_entries ADD COLUMN report_style text;

-- The wish of the rows already there, from the params it was kept in (docs/decisions.md § Callbacks):
-- only messages that can still report (not final) and entries a batch may still expand; a final
-- message never reports again. The rules are decideReportWish's, as the params held them: a
-- message accepted before the method was decided has none, and its reports were sent with GET.
CREATE FUNCTION smsgw_034_mask(params jsonb) RETURNS smallint LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN params->>'smpp_receipt' = 'yes' THEN 3
    WHEN params->>'dlr' IS DISTINCT FROM 'yes' OR params->>'dlr_url' IS NULL THEN 0
    WHEN params->>'dlr_style' = 'kannel' THEN GREATEST(COALESCE((params->>'dlr_mask')::int, 0), 0) & 27
    ELSE CASE COALESCE(params->>'dlr_level', '1') WHEN '1' THEN 24 WHEN '2' THEN 3 WHEN '3' THEN 27 ELSE 0 END
  END::smallint
$$;

UPDATE messages
   SET report_mask = smsgw_034_mask(params),
       report_url = params->>'dlr_url',
       report_method = CASE WHEN params->>'dlr_style' = 'kannel' THEN 'GET' ELSE COALESCE(params->>'dlr_method', 'GET') END,
       report_style = COALESCE(params->>'dlr_style', 'rest')
 WHERE state IN ('accepted', 'queued', 'submitting', 'submitted') AND smsgw_034_mask(params) <> 0
   AND params->>'smpp_receipt' IS DISTINCT FROM 'yes';
UPDATE messages SET report_mask = 3, report_style = 'smpp'
 WHERE state IN ('accepted', 'queued', 'submitting', 'submitted') AND params->>'smpp_receipt' = 'yes';

UPDATE batch_entries e
   SET report_mask = smsgw_034_mask(e.params),
       report_url = e.params->>'dlr_url',
       report_method = COALESCE(e.params->>'dlr_method', 'GET'),
       report_style = 'rest'
  FROM batches b
 WHERE b.id = e.batch_id AND b.state IN ('scheduled', 'running') AND smsgw_034_mask(e.params) <> 0;

DROP FUNCTION smsgw_034_mask(jsonb);
