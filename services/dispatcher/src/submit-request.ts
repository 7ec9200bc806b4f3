import { splitMessage, type SubmitRequest } from '@smsgw/smsc';
import type { ClaimedMessage } from './message-claims';

/** Message parameters the gateway stored in `params` that reach the SMSC. */
interface StoredParams {
  priority?: number;
  validity_period?: number;
  sdt?: string;
}

/**
 * Builds the submit_sm parts from the stored message. The coding was fixed at acceptance; the
 * part count cannot exceed what was charged because the same encoder counted it.
 */
export function buildSubmitRequest(message: ClaimedMessage): SubmitRequest {
  const params = message.params as StoredParams;
  const encoded = splitMessage(
    { content: message.content, hexContent: message.hex_content, coding: message.coding },
    // The same concatenation reference on every attempt, so parts sent again join the parts the
    // SMSC took before.
    { maxParts: message.segments, ref: parseInt(message.id.slice(-2), 16) },
  );
  return {
    to: message.to_addr,
    from: message.from_addr,
    dataCoding: encoded.dataCoding,
    parts: encoded.parts,
    // Always asked for, so the message's state follows the handset (docs/decisions.md).
    registeredDelivery: true,
    ...(params.priority !== undefined && { priority: params.priority }),
    ...(params.validity_period !== undefined && { validityMinutes: params.validity_period }),
    ...(params.sdt !== undefined && { scheduleDeliveryTime: params.sdt }),
  };
}
