import { BROADCASTS } from '@smsgw/contracts';
import type { Bus, Consumer } from './bus/bus';
import type { Logger } from './logger';

/** What a process remembers of accounts' credentials. */
export interface ForgetsAccounts {
  forgetAccount(accountId: string): void;
  /** Everything, when changes may have been missed. */
  forgetAll(): void;
}

/** Makes every change an operator makes to an account drop what this process remembers of it. */
export function followAccountChanges(
  bus: Bus,
  caches: ForgetsAccounts[],
  logger?: Logger,
): Promise<Consumer> {
  return bus.subscribe(BROADCASTS.accountChanged, {
    onMessage(event) {
      for (const cache of caches) cache.forgetAccount(event.accountId);
      logger?.info(
        { accountId: event.accountId, change: event.change },
        'account changed: its cached credentials are dropped',
      );
    },
    onGap() {
      for (const cache of caches) cache.forgetAll();
      logger?.warn('account changes may have been missed: every cached credential is dropped');
    },
  });
}
