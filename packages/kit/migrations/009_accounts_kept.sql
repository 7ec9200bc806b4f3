-- The foreign keys from `messages` and `credit_ledger` to `accounts` checked every inserted row
-- with a query of its own: on a group of 50 accepted messages (message and ledger row each) they
-- were a third of the acceptance statement (docs/decisions.md § Measurements behind the code), and
-- a share of each batch chunk's insert. Every statement that writes these rows takes the account from a row
-- that exists: acceptance joins the locked account row, a batch's chunk takes it from its batch
-- (whose own key to `accounts` stays), a refund from the message. What the keys still guarded was
-- the deletion of an account, which nothing does, and which must never happen: its messages and its
-- ledger explain its money (docs/architecture.md § States). So an account is kept for ever:
-- deleting one, changing its id, or truncating the table is refused here, on both Postgres and
-- PGlite.
ALTER TABLE messages DROP CONSTRAINT messages_account_id_fkey;
ALTER TABLE credit_ledger DROP CONSTRAINT credit_ledger_account_id_fkey;

CREATE FUNCTION smsgw_keep_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'accounts are never deleted or renumbered: their messages and ledger explain their money'
    USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TRIGGER accounts_kept BEFORE DELETE OR UPDATE OF id ON accounts
  FOR EACH ROW EXECUTE FUNCTION smsgw_keep_accounts();
CREATE TRIGGER accounts_kept_whole BEFORE TRUNCATE ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION smsgw_keep_accounts();
