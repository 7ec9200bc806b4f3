-- The reply of a Kannel sms-service route, tied to the inbound message it answers: the row is
-- written before the reply is accepted, with the reply's message id chosen then, so a delivery of
-- the same inbound message that runs again (after a crash) accepts that id or finds it accepted,
-- and the messages primary key makes a second reply, and a second charge, impossible. The rows
-- also bound the replies: to one number per route a minute (mo_route, to_addr), and none to an
-- inbound message that is one of these replies come back (from_addr, to_addr, content). They go
-- with their inbound message when retention removes it.
CREATE TABLE sms_service_replies (
  inbound_id uuid PRIMARY KEY REFERENCES inbound_messages (id) ON DELETE CASCADE,
  message_id uuid NOT NULL UNIQUE,
  mo_route   text NOT NULL,
  -- The reply's sender (the number the subscriber wrote to) and receiver (the subscriber).
  from_addr  text NOT NULL,
  to_addr    text NOT NULL,
  content    text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sms_service_replies_route_to ON sms_service_replies (mo_route, to_addr, created_at);
CREATE INDEX sms_service_replies_pair ON sms_service_replies (from_addr, to_addr, created_at);
