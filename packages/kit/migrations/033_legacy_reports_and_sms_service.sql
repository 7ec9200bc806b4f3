-- Reports and inbound calls in the forms Jasmin's and Kannel's clients expect
-- (docs/compatibility.md): jasmin-dlr is a delivery report by the message's dlr-method whose
-- receiver must answer `ACK/Jasmin`; kannel is a GET of a URL whose placeholders were filled in
-- (a Kannel dlr-url), sent as it is; kannel-service is the GET of an MO route's sms-service URL,
-- whose answer is sent back to the subscriber.
ALTER TABLE callback_attempts DROP CONSTRAINT callback_attempts_format_check;
-- The default partition kept its own copy of the check from before the table was partitioned.
ALTER TABLE callback_attempts_default DROP CONSTRAINT IF EXISTS callback_attempts_format_check;
ALTER TABLE callback_attempts ADD CONSTRAINT callback_attempts_format_check
  CHECK (format IN ('form', 'json', 'jasmin', 'jasmin-dlr', 'kannel', 'kannel-service'));

-- kannel: the route's webhook_url is a Kannel sms-service URL template, called with GET; its
-- answer is sent back to the subscriber unless kannel_reply is false.
ALTER TABLE mo_routes DROP CONSTRAINT mo_routes_webhook_format_check;
ALTER TABLE mo_routes ADD CONSTRAINT mo_routes_webhook_format_check
  CHECK (webhook_format IN ('json', 'jasmin', 'kannel'));
ALTER TABLE mo_routes ADD COLUMN kannel_reply boolean NOT NULL DEFAULT true;
