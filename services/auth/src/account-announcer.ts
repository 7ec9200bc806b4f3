import { BROADCASTS, type AccountChangedEvent } from '@smsgw/contracts';
import type { Bus, ForgetsAccounts, Logger } from '@smsgw/kit';

/**
 * Tells every process of the installation that an operator changed an account, so each drops
 * what it remembers of the account's credentials. This process forgets at once, whatever the bus.
 */
export class AccountAnnouncer {
  constructor(
    private readonly local: ForgetsAccounts,
    private readonly bus: Bus | undefined,
    private readonly logger: Logger | undefined,
  ) {}

  async announce(
    accountId: string,
    change: AccountChangedEvent['change'],
    clientId?: string,
  ): Promise<void> {
    this.local.forgetAccount(accountId);
    if (!this.bus) return;
    try {
      await this.bus.broadcast(BROADCASTS.accountChanged, {
        accountId,
        change,
        ...(clientId !== undefined && { clientId }),
        at: new Date().toISOString(),
      });
    } catch (err) {
      // The change is stored; other processes see it when their cached answers expire.
      this.logger?.error(
        { err, accountId, change },
        'could not broadcast an account change; other processes follow when their caches expire',
      );
    }
  }
}
