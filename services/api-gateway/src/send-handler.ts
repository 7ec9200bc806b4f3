import { sendSuccessText, type Principal, type SendResult } from '@smsgw/contracts';
import type { SendAcceptor } from '@smsgw/acceptance';

export const SEND_PATH = '/secure/send';

/** /secure/send once its caller is authenticated and its body read (express's route and the hot route). */
export type SendHandler = (principal: Principal, body: unknown) => Promise<SendResult>;

export function createSendHandler(accept: SendAcceptor): SendHandler {
  return async (principal, body) => ({
    data: sendSuccessText((await accept(principal, body, { entry: 'rest' })).id),
  });
}
