-- messages.unanswered_submits: submit_sm of this message written and never answered (a timeout, a
-- lost session) that were sent again because the connector's on_no_answer is `resend`. The SMSC may
-- have taken any of them, so a message with one is never refunded when it is given up.
ALTER TABLE messages ADD COLUMN unanswered_submits smallint NOT NULL DEFAULT 0;
