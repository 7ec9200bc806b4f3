import type { SenderRules, SenderRulesView } from '@smsgw/contracts';
import type { Db } from '@smsgw/kit';
import {
  deleteSenderRules,
  findAccountByUsername,
  findSenderRules,
  lockAccountByUsername,
  replaceSenderRules,
} from '@smsgw/store';
import type { AuditHook } from './admin-audit';

/** The admin side of sender rules: read, replace and remove an account's list. */
export class SenderRulesStore {
  constructor(private readonly db: Db) {}

  /** undefined when there is no such account. */
  async view(username: string): Promise<SenderRulesView | undefined> {
    const account = await findAccountByUsername(this.db, username);
    if (!account) return undefined;
    const rules = await findSenderRules(this.db, account.id);
    if (!rules) return undefined;
    return {
      username: account.username,
      configured: rules.policy !== null,
      senders: rules.patterns,
      policy: rules.policy,
      default_from: rules.default_from,
      from_group: rules.from_group,
    };
  }

  /** undefined when there is no such account. */
  async replace(
    username: string,
    rules: SenderRules,
    audit?: AuditHook,
  ): Promise<SenderRulesView | undefined> {
    const done = await this.db.transaction(async (tx) => {
      const account = await lockAccountByUsername(tx, username);
      if (!account) return false;
      await replaceSenderRules(tx, account.id, rules.policy, [...new Set(rules.senders)]);
      await audit?.(tx);
      return true;
    });
    return done ? this.view(username) : undefined;
  }

  /** undefined when there is no such account. */
  async remove(username: string, audit?: AuditHook): Promise<SenderRulesView | undefined> {
    const done = await this.db.transaction(async (tx) => {
      const account = await lockAccountByUsername(tx, username);
      if (!account) return false;
      await deleteSenderRules(tx, account.id);
      await audit?.(tx);
      return true;
    });
    return done ? this.view(username) : undefined;
  }
}
