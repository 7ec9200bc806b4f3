import { messageClassOf, type CustomTlv } from '@smsgw/contracts';
import {
  splitMessage,
  withMessageClass,
  type OptionalParameter,
  type SubmitRequest,
} from '@smsgw/smsc';
import type { ClaimedMessage } from './message-claims';
import type { SubmitTlvLayers } from './submit-tlvs';

/** Message parameters the gateway stored in `params` that reach the SMSC. */
interface StoredParams {
  priority?: number;
  validity_period?: number;
  sdt?: string;
  custom_tlvs?: CustomTlv[];
  flash?: boolean;
  message_class?: number;
  /** The client's own UDH (hex), sent in front of the one part's content. */
  udh?: string;
}

const NO_LAYERS: SubmitTlvLayers = { connector: [], route: [] };

/**
 * The optional parameters of a message's submit_sm: the connector's defaults, then the message's
 * own, then its route's overrides, a later one replacing an earlier one of the same tag in its
 * place. Each was checked when it was given (acceptance or the admin API).
 */
export function submitTlvs(
  own: readonly CustomTlv[] | undefined,
  layers: SubmitTlvLayers,
): OptionalParameter[] {
  const byTag = new Map<number, string>();
  for (const list of [layers.connector, own ?? [], layers.route])
    for (const tlv of list) byTag.set(tlv.tag, tlv.value);
  return [...byTag].map(([tag, value]) => ({ tag, value: Buffer.from(value, 'hex') }));
}

/**
 * Builds the submit_sm parts from the stored message. The coding was fixed at acceptance; the
 * part count cannot exceed what was charged because the same encoder counted it. A message class
 * changes data_coding only, not the octets, so parts and price are those of the same message
 * without it.
 */
export function buildSubmitRequest(
  message: ClaimedMessage,
  layers: SubmitTlvLayers = NO_LAYERS,
): SubmitRequest {
  const params = message.params as StoredParams;
  const encoded = splitMessage(
    {
      content: message.content,
      hexContent: message.hex_content,
      coding: message.coding,
      udh: params.udh,
    },
    // The same concatenation reference on every attempt, so parts sent again join the parts the
    // SMSC took before.
    { maxParts: message.segments, ref: parseInt(message.id.slice(-2), 16) },
  );
  let dataCoding = encoded.dataCoding;
  const messageClass = messageClassOf(params);
  if (messageClass !== undefined) {
    const withClass = withMessageClass(dataCoding, messageClass);
    // Acceptance refuses a class with a coding that has no form for it: this is a stored row
    // from elsewhere, and sending it without its class would be silent.
    if (withClass === undefined)
      throw new Error(`data coding ${dataCoding} has no form with message class ${messageClass}`);
    dataCoding = withClass;
  }
  const tlvs = submitTlvs(params.custom_tlvs, layers);
  return {
    to: message.to_addr,
    from: message.from_addr,
    dataCoding,
    parts: encoded.parts,
    // A single part may carry a UDH too: the client's own.
    ...(encoded.esmClass !== 0 && { concatenated: true }),
    // Always asked for, so the message's state follows the handset (docs/decisions.md).
    registeredDelivery: true,
    ...(params.priority !== undefined && { priority: params.priority }),
    ...(params.validity_period !== undefined && { validityMinutes: params.validity_period }),
    ...(params.sdt !== undefined && { scheduleDeliveryTime: params.sdt }),
    ...(tlvs.length > 0 && { tlvs }),
  };
}
