import {
  SendRequestSchema,
  type InterfaceReport,
  type MessageEntry,
  type Principal,
} from '@smsgw/contracts';
import { parseInput } from '@smsgw/kit';
import type { MtRouter } from '@smsgw/routing';
import { routeOrRefuse } from './message-routing';
import type { OptOutGuard } from './optout-guard';
import type { SenderGuard } from './sender-guard';
import type { AcceptedMessage, SendPipeline } from './send-pipeline/send-pipeline';
import { callbackUrlCheck, type CallbackUrlCheck } from './callback-url-check';

/**
 * One message of an authenticated caller through the message guards of the edge (edge-guards.ts):
 * sender rules, opt-out, routing, then credit in the acceptance itself. Every entry point that
 * sends single messages (REST, the hot path, Jasmin's /send, Kannel's sendsms) goes through it.
 */
export type SendAcceptor = (
  principal: Principal,
  body: unknown,
  origin: SendOrigin,
) => Promise<AcceptedMessage>;

/** Where a message comes from, and what its entry point adds to it. */
export interface SendOrigin {
  /** Kept on the message, for its story and its CDR. */
  entry: MessageEntry;
  /** How the entry point's clients take reports, stored with a report wish (Jasmin's, Kannel's). */
  report?: InterfaceReport | undefined;
  /**
   * The message's id, chosen by the caller so that asking again after a failure accepts it once:
   * the messages primary key refuses the id a second time.
   */
  id?: string | undefined;
}

export interface SendAcceptorDeps {
  sends: SendPipeline;
  senders: SenderGuard;
  optOuts: OptOutGuard;
  router: MtRouter;
  /** CALLBACK_ALLOWED_HOSTS's check; without it, every private callback host is refused. */
  callbackUrls?: CallbackUrlCheck;
}

export function createSendAcceptor(deps: SendAcceptorDeps): SendAcceptor {
  const callbackUrls = deps.callbackUrls ?? callbackUrlCheck([]);
  return async ({ accountId, username }, body, { entry, report, id }) => {
    const request = parseInput(SendRequestSchema, body);
    if (request.dlr_url !== undefined) await callbackUrls.check('dlr_url', request.dlr_url);
    const from = await deps.senders.senderFor(accountId, request.from);
    await deps.optOuts.check(accountId, request.to);
    const routing = routeOrRefuse(deps.router, {
      to: request.to,
      accountUsername: username,
      accountId,
      from: from ?? request.from ?? null,
      tags: request.tags,
    });
    const { from: _asked, ...asked } = request;
    // The interface's way of reporting goes with the wish only: no wish, nothing to report.
    const rest = report !== undefined && asked.dlr === 'yes' ? Object.assign(asked, report) : asked;
    return deps.sends.accept(accountId, from === undefined ? rest : { ...rest, from }, routing, {
      entry,
      id,
    });
  };
}
