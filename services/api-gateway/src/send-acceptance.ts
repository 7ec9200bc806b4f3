import type { MessageStatus, UnlistedSenderMode } from '@smsgw/contracts';
import type { Bus, Db, Logger, ShutdownStep } from '@smsgw/kit';
import { MtRouter } from '@smsgw/routing';
import { gatewayDefaults } from './defaults';
import { MessageStore } from './message-store';
import { OptOutGuard } from './optout-guard';
import { SenderGuard } from './sender-guard';
import { createSendAcceptor, type SendAcceptor } from './send-handler';
import { SendPipeline } from './send-pipeline/send-pipeline';

export interface SendAcceptanceOptions {
  db: Db;
  bus: Bus;
  logger: Logger;
  maxParts: number;
  unlistedSenders: UnlistedSenderMode;
  /** Called once per message charged and recorded. */
  onAccepted?: () => void;
}

export interface SendAcceptance {
  /** /secure/send's acceptance: validation, sender rules, opt-out, route and price, credit, durability. */
  accept: SendAcceptor;
  /** A message's status as its owner sees it (undefined: unknown or someone else's). */
  status(accountId: string, id: string): Promise<MessageStatus['data'] | undefined>;
  /** Before the bus and database close: unconfirmed jobs, the job outbox, the routes reload. */
  stopSteps: ShutdownStep[];
}

/**
 * The acceptance of single messages for an entry point outside the HTTP gateway (the SMPP
 * server): the same guards and the same send pipeline as /secure/send, built on the process's own
 * database and bus.
 */
export function createSendAcceptance(options: SendAcceptanceOptions): SendAcceptance {
  const store = new MessageStore(options.db);
  const sends = SendPipeline.onBus(store, options.bus, options.logger, {
    maxParts: options.maxParts,
    ...(options.onAccepted && { onAccepted: options.onAccepted }),
  });
  const router = new MtRouter(options.db, options.logger, {
    refreshMs: gatewayDefaults.routesRefreshMs,
  });
  router.start();
  const accept = createSendAcceptor({
    sends,
    senders: new SenderGuard(options.db, options.unlistedSenders),
    optOuts: new OptOutGuard(options.db),
    router,
  });
  return {
    accept,
    status: (accountId, id) => store.status(accountId, id),
    stopSteps: [...sends.stopSteps, { name: 'MT routes reload', run: () => router.stop() }],
  };
}
