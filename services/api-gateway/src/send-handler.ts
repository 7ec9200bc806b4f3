import {
  SendRequestSchema,
  sendSuccessText,
  type Principal,
  type SendResult,
} from '@smsgw/contracts';
import { parseInput } from '@smsgw/kit';
import type { MtRouter } from '@smsgw/routing';
import { routeOrRefuse } from './message-routing';
import type { OptOutGuard } from './optout-guard';
import type { SenderGuard } from './sender-guard';
import type { SendPipeline } from './send-pipeline/send-pipeline';

export const SEND_PATH = '/secure/send';

/** /secure/send once its caller is authenticated and its body read (express's route and the hot route). */
export type SendHandler = (principal: Principal, body: unknown) => Promise<SendResult>;

export interface SendHandlerDeps {
  sends: SendPipeline;
  senders: SenderGuard;
  optOuts: OptOutGuard;
  router: MtRouter;
}

export function createSendHandler(deps: SendHandlerDeps): SendHandler {
  return async ({ accountId, username }, body) => {
    const request = parseInput(SendRequestSchema, body);
    const from = await deps.senders.senderFor(accountId, request.from);
    await deps.optOuts.check(accountId, request.to);
    const routing = routeOrRefuse(deps.router, {
      to: request.to,
      accountUsername: username,
      from: from ?? request.from ?? null,
      tags: request.tags,
    });
    const { from: _asked, ...rest } = request;
    const accepted = await deps.sends.accept(
      accountId,
      from === undefined ? rest : { ...rest, from },
      routing,
    );
    return { data: sendSuccessText(accepted.id) };
  };
}
