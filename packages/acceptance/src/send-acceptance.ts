import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  CustomTlv,
  MessageEntry,
  MessageStatus,
  Principal,
  SendRequest,
  UnlistedSenderMode,
} from '@smsgw/contracts';
import type { Bus, Db, Logger, ShutdownStep } from '@smsgw/kit';
import type { RouteDecision } from '@smsgw/routing';
import { acceptanceDefaults } from './defaults';
import { MessageStore } from './message-store';
import { OptOutGuard } from './optout-guard';
import { SenderGuard } from './sender-guard';
import { createAcceptanceRouter } from './message-routing';
import { createSendAcceptor } from './send-acceptor';
import { SendPipeline, type AcceptedMessage } from './send-pipeline/send-pipeline';
import { SubmitJobPublisher } from './send-pipeline/submit-job-publisher';

export interface SendAcceptanceOptions {
  db: Db;
  bus: Bus;
  logger: Logger;
  maxParts: number;
  unlistedSenders: UnlistedSenderMode;
  /** Called once per message charged and recorded. */
  onAccepted?: () => void;
}

/** What an entry point outside HTTP adds to a message beside its /secure/send body. */
export interface EntryPointOptions {
  /** The entry point, kept on the message. */
  entry: MessageEntry;
  /** The message's handset receipt is kept for the account's SMPP sessions (registered_delivery). */
  smppReceipt?: boolean;
  /**
   * TLVs sent on to the SMSC as they came, after the body's own: the SAR parameters of a part of
   * a customer's long message, which /secure/send's schema keeps for the gateway alone.
   */
  tlvs?: readonly CustomTlv[];
  /**
   * The message's id, chosen by the entry point before it asked: accepting the same id again
   * records and charges nothing (the messages primary key refuses it), so an entry point that may
   * ask twice for one message (an sms-service reply after a crash) sends it once.
   */
  id?: string;
}

export interface SendAcceptance {
  /**
   * /secure/send's acceptance: validation, sender rules, opt-out, route and price, credit,
   * durability; with what the entry point adds (EntryPointOptions).
   */
  accept(principal: Principal, body: unknown, options: EntryPointOptions): Promise<AcceptedMessage>;
  /** A message's status as its owner sees it (undefined: unknown or someone else's). */
  status(accountId: string, id: string): Promise<MessageStatus['data'] | undefined>;
  /** Before the bus and database close: unconfirmed jobs, the job outbox, the routes reload. */
  stopSteps: ShutdownStep[];
}

/** What the entry point adds to a message's stored params beside what the body says. */
const entryParams = new AsyncLocalStorage<EntryPointOptions>();

/**
 * The send pipeline with the entry point's own params added to each message it records: the body
 * is validated by /secure/send's schema, which knows nothing of SMPP, and the acceptance itself
 * stays the one both entry points run.
 */
class EntryPointPipeline extends SendPipeline {
  override accept(
    accountId: string,
    request: SendRequest,
    routing: RouteDecision,
    origin: { entry: MessageEntry; id?: string | undefined },
  ): Promise<AcceptedMessage> {
    const extra = entryParams.getStore();
    if (!extra) return super.accept(accountId, request, routing, origin);
    const tlvs = [...(request.custom_tlvs ?? []), ...(extra.tlvs ?? [])];
    return super.accept(
      accountId,
      {
        ...request,
        ...(extra.smppReceipt && { smpp_receipt: 'yes' }),
        ...(tlvs.length > 0 && { custom_tlvs: tlvs }),
      },
      routing,
      origin,
    );
  }
}

/**
 * The acceptance of single messages for an entry point outside the HTTP gateway (the SMPP
 * server): the same guards and the same send pipeline as /secure/send, built on the process's own
 * database and bus.
 */
export function createSendAcceptance(options: SendAcceptanceOptions): SendAcceptance {
  const store = new MessageStore(options.db);
  const sends = new EntryPointPipeline(
    store,
    new SubmitJobPublisher(options.bus, {
      lingerMs: acceptanceDefaults.sendPipeline.submitLingerMs,
    }),
    options.logger,
    {
      maxParts: options.maxParts,
      ...(options.onAccepted && { onAccepted: options.onAccepted }),
    },
  );
  const { router, stop: stopRouting } = createAcceptanceRouter(options.db, options.logger);
  const acceptor = createSendAcceptor({
    sends,
    senders: new SenderGuard(options.db, options.unlistedSenders),
    optOuts: new OptOutGuard(options.db),
    router,
  });
  return {
    accept: (principal, body, extra) => {
      const origin = { entry: extra.entry, id: extra.id };
      return extra.smppReceipt || (extra.tlvs?.length ?? 0) > 0
        ? entryParams.run(extra, () => acceptor(principal, body, origin))
        : acceptor(principal, body, origin);
    },
    status: (accountId, id) => store.status(accountId, id),
    stopSteps: [...sends.stopSteps, { name: 'MT routes and price lists reload', run: stopRouting }],
  };
}
