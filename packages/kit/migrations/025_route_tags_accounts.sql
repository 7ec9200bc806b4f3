-- Customers choose their messages' tags, so a route chosen by tags now names the accounts that may
-- use it or says that any may (docs/routing.md). Routes stored before keep working as they did, and
-- the admin API shows them as open to every account until an operator restricts them.
UPDATE mt_routes
   SET filters = filters || '{"any_account": true}'::jsonb
 WHERE filters ? 'tags' AND NOT filters ? 'accounts';
