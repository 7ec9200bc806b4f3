import { HttpError, type Queryable } from '@smsgw/kit';
import { findAccountByUsername } from '@smsgw/store';

/**
 * The id of the account an admin query names (`account=`); undefined when it names none, and a
 * 404 for a name no account has, so a misspelt name is not taken for an empty answer.
 */
export async function accountIdByName(
  db: Queryable,
  username: string | undefined,
): Promise<string | undefined> {
  if (username === undefined) return undefined;
  const account = await findAccountByUsername(db, username);
  if (!account) throw HttpError.notFound(`No account ${username}`);
  return account.id;
}
