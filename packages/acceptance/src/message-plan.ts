import { EncodingError, planMessage as planEncoding, type MessagePlan } from '@smsgw/smsc';
import { HttpError } from '@smsgw/kit';
import type { MessageParams } from '@smsgw/contracts';

/**
 * Coding and segment count decide the price, so they are fixed here, at acceptance, with the
 * same encoder the dispatcher sends with: what is charged is what is sent.
 */
export function planMessage(
  message: Pick<MessageParams, 'content' | 'hex_content' | 'coding' | 'udh'>,
  maxParts: number,
): MessagePlan {
  try {
    return planEncoding(
      {
        content: message.content,
        hexContent: message.hex_content,
        coding: message.coding,
        udh: message.udh,
      },
      maxParts,
    );
  } catch (err) {
    if (err instanceof EncodingError) {
      throw HttpError.invalid(
        /^udh /.test(err.message)
          ? 'udh'
          : message.hex_content !== undefined
            ? 'hex_content'
            : 'content',
        err.message,
      );
    }
    throw err;
  }
}
