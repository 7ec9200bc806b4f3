import * as smpp from 'smpp';

const SUBMIT_SM_RESP = 0x80000004;
const DELIVER_SM = 0x00000005;

interface Filter {
  decode: (this: smpp.PDU, value: unknown, skipUdh?: unknown) => unknown;
}
interface TlvDef {
  id: number;
  tag: string;
  multiple?: boolean;
  type: { read: (buffer: Buffer, offset: number, length: number) => unknown };
  filter?: Filter;
}
interface Defs {
  commands: Record<
    string,
    { params?: Record<string, { filter?: Filter }>; tlvMap?: Record<string, string> }
  >;
  tlvs: Record<string, TlvDef>;
  tlvsById: Record<number, TlvDef>;
}
const defs = smpp as unknown as Defs;

type Fields = smpp.PDU & Record<string, unknown>;

/** A C-octet string at `at` (to its NUL, or to the end, as node-smpp reads it). */
function cstring(body: Buffer, at: number): string {
  const end = body.indexOf(0, at);
  return body.toString('ascii', at, end === -1 ? body.length : end);
}

/** Applies the decode filter node-smpp's deliver_sm definition gives a field, if any. */
function filtered(pdu: Fields, field: string, value: unknown): unknown {
  const filter = defs.commands['deliver_sm']?.params?.[field]?.filter;
  return filter ? filter.decode.call(pdu, value) : value;
}

/**
 * Reads the body of a PDU (everything after command_length) into what node-smpp's own reader
 * makes of it: an object of node-smpp's PDU class with the same fields, filters and TLVs. Only for
 * the two PDUs a dispatcher receives once per message, submit_sm_resp and deliver_sm, and only
 * when complete; undefined for any other, which node-smpp reads. node-smpp's generic reader copies
 * each PDU into a new buffer and walks every field through type and filter objects, adding them
 * to the object by computed names, which cost a visible share of the dispatcher's CPU
 * (docs/decisions.md § SMPP has the figures). Here each kind has a class of its own, so every PDU
 * of a kind has the same shape.
 */
export function readHotPdu(body: Buffer, commandLength: number): smpp.PDU | undefined {
  if (body.length < 12) return undefined;
  const id = body.readUInt32BE(0);
  if (id === SUBMIT_SM_RESP) return readSubmitSmResp(body, commandLength);
  if (id === DELIVER_SM) return readDeliverSm(Buffer.from(body), commandLength);
  return undefined;
}

/** A submit_sm_resp as node-smpp's reader leaves it; a subclass of its PDU, fields in one shape. */
class SubmitSmRespPdu {
  readonly command = 'submit_sm_resp';
  readonly command_id = SUBMIT_SM_RESP;
  message_id?: string;

  constructor(
    readonly command_length: number,
    readonly command_status: number,
    readonly sequence_number: number,
    messageId: string | undefined,
  ) {
    if (messageId !== undefined) this.message_id = messageId;
  }
}

/** A deliver_sm as node-smpp's reader leaves it; a subclass of its PDU, fields in one shape. */
class DeliverSmPdu {
  readonly command = 'deliver_sm';
  readonly command_id = DELIVER_SM;
  // The mandatory fields, as node-smpp names them, in their order.
  declare service_type: string;
  declare source_addr_ton: number;
  declare source_addr_npi: number;
  declare source_addr: string;
  declare dest_addr_ton: number;
  declare dest_addr_npi: number;
  declare destination_addr: string;
  declare esm_class: number;
  declare protocol_id: number;
  declare priority_flag: number;
  declare schedule_delivery_time: unknown;
  declare validity_period: unknown;
  declare registered_delivery: number;
  declare replace_if_present_flag: number;
  declare data_coding: number;
  declare sm_default_msg_id: number;
  declare short_message: unknown;

  constructor(
    readonly command_length: number,
    readonly command_status: number,
    readonly sequence_number: number,
    fields: DeliverSmFields,
  ) {
    Object.assign(this, fields);
  }
}

type DeliverSmFields = Omit<
  DeliverSmPdu,
  'command' | 'command_id' | 'command_length' | 'command_status' | 'sequence_number'
>;

// Their instances are node-smpp PDUs: isResponse(), response() and the rest come from its class.
Object.setPrototypeOf(SubmitSmRespPdu.prototype, smpp.PDU.prototype);
Object.setPrototypeOf(DeliverSmPdu.prototype, smpp.PDU.prototype);

function readSubmitSmResp(body: Buffer, commandLength: number): smpp.PDU | undefined {
  const status = body.readUInt32BE(4);
  const sequence = body.readUInt32BE(8);
  if (body.length === 12)
    return new SubmitSmRespPdu(commandLength, status, sequence, undefined) as unknown as smpp.PDU;
  const messageId = cstring(body, 12);
  // Optional parameters after it are rare in an answer: node-smpp reads those.
  if (12 + messageId.length + 1 < body.length) return undefined;
  return new SubmitSmRespPdu(commandLength, status, sequence, messageId) as unknown as smpp.PDU;
}

/**
 * `body` is a copy: the buffers of a deliver_sm outlive the read, and a slice would hold the
 * socket's whole chunk.
 */
function readDeliverSm(body: Buffer, commandLength: number): smpp.PDU | undefined {
  let at = 12;
  const text = (): string => {
    const value = cstring(body, at);
    at += value.length + 1;
    return value;
  };
  const int = (): number => body[at++] ?? 0;
  const fields: DeliverSmFields = {
    service_type: text(),
    source_addr_ton: int(),
    source_addr_npi: int(),
    source_addr: text(),
    dest_addr_ton: int(),
    dest_addr_npi: int(),
    destination_addr: text(),
    esm_class: int(),
    protocol_id: int(),
    priority_flag: int(),
    schedule_delivery_time: text(),
    validity_period: text(),
    registered_delivery: int(),
    replace_if_present_flag: int(),
    data_coding: int(),
    sm_default_msg_id: int(),
    short_message: undefined,
  };
  // The last mandatory field must start inside the PDU; a shorter one is node-smpp's to read.
  if (at >= body.length) return undefined;
  const shortMessage = body.subarray(at + 1, at + 1 + (body[at] ?? 0));
  at += shortMessage.length + 1;
  fields.short_message = shortMessage;
  const pdu = new DeliverSmPdu(
    commandLength,
    body.readUInt32BE(4),
    body.readUInt32BE(8),
    fields,
  ) as unknown as Fields;
  pdu['schedule_delivery_time'] = filtered(
    pdu,
    'schedule_delivery_time',
    fields.schedule_delivery_time,
  );
  pdu['validity_period'] = filtered(pdu, 'validity_period', fields.validity_period);
  pdu['short_message'] = filtered(pdu, 'short_message', shortMessage);
  readTlvs(pdu, body, at, 'deliver_sm');
  return pdu;
}

/** Optional parameters, read and filtered as node-smpp's PDU.fromBuffer and _filter do. */
function readTlvs(pdu: Fields, body: Buffer, from: number, command: string): void {
  const tlvMap = defs.commands[command]?.tlvMap ?? {};
  const tags: string[] = [];
  let offset = from;
  while (offset + 4 <= body.length) {
    const id = body.readUInt16BE(offset);
    const length = body.readUInt16BE(offset + 2);
    offset += 4;
    const tlv = defs.tlvsById[id];
    if (!tlv) {
      pdu[id] = body.subarray(offset, offset + length);
      offset += length;
      continue;
    }
    const tag = tlvMap[tlv.tag] ?? tlv.tag;
    const value = tlv.type.read(body, offset, length);
    if (tlv.multiple) {
      if (!pdu[tag]) pdu[tag] = [];
      (pdu[tag] as unknown[]).push(value);
    } else pdu[tag] = value;
    if (!tags.includes(tag)) tags.push(tag);
    offset += length;
  }
  for (const tag of tags) {
    const filter = defs.tlvs[tag]?.filter;
    if (!filter) continue;
    if (defs.tlvs[tag]?.multiple) {
      const values = pdu[tag] as unknown[];
      values.forEach((value, i) => (values[i] = filter.decode.call(pdu, value, true)));
    } else if (tag === 'message_payload') {
      const shortMessage = pdu['short_message'] as { message?: { length?: number } } | undefined;
      const skipUdh = shortMessage && shortMessage.message && shortMessage.message.length;
      pdu[tag] = filter.decode.call(pdu, pdu[tag], skipUdh);
    } else pdu[tag] = filter.decode.call(pdu, pdu[tag], true);
  }
}

let installed = false;

/**
 * Takes PDUs off a session's socket as node-smpp's PDU.fromStream does, reading submit_sm_resp
 * and deliver_sm itself and handing the others to node-smpp. For the whole process, once.
 */
export function installHotPduReader(): void {
  if (installed) return;
  installed = true;
  const pduClass = smpp.PDU as unknown as {
    fromStream: (stream: NodeJS.ReadableStream, commandLength: number) => smpp.PDU | false;
  };
  const PduFromBuffer = smpp.PDU as unknown as new (buffer: Buffer) => smpp.PDU;
  pduClass.fromStream = (stream, commandLength) => {
    const body = stream.read(commandLength - 4) as Buffer | null;
    if (!body) return false;
    const hot = readHotPdu(body, commandLength);
    if (hot) return hot;
    const head = Buffer.alloc(4);
    head.writeUInt32BE(commandLength, 0);
    return new PduFromBuffer(Buffer.concat([head, body]));
  };
}
