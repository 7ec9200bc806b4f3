import type { OptionalParameter } from './smsc-connector';

/**
 * The fields of a submit_sm (SMPP 3.4, 4.4.1): the mandatory ones, and the optional parameters a
 * client, a route or a connector asked for.
 */
export interface SubmitSmFields {
  sourceTon: number;
  sourceNpi: number;
  sourceAddr: string;
  destTon: number;
  destNpi: number;
  destinationAddr: string;
  esmClass: number;
  priorityFlag: number;
  /** Absolute or relative SMPP time (16 characters), or none. */
  scheduleDeliveryTime?: string | undefined;
  validityPeriod?: string | undefined;
  registeredDelivery: number;
  dataCoding: number;
  shortMessage: Buffer;
  /** Written after short_message as tag, length and value (SMPP 3.4, 5.3). */
  tlvs?: readonly OptionalParameter[] | undefined;
}

const SUBMIT_SM = 0x00000004;
const HEADER = 16;

/**
 * A submit_sm written straight into its fixed layout. node-smpp's encoder is generic: it walks the
 * PDU's fields by name, through a filter and a type object each, which cost the dispatcher a
 * visible share of its CPU in large batches, where a message is one submit_sm (docs/decisions.md
 * § Measurements behind the code has the figures). Its Session.send only asks an outgoing PDU for sequence_number, isResponse() and
 * toBuffer(), so sequence numbers, response callbacks and everything received stay node-smpp's.
 * The bytes are node-smpp's own for the same fields (test/submit-sm-pdu.test.ts compares them):
 * C-octet strings as latin1, as node-smpp's 'ascii' writes them.
 */
export class SubmitSmPdu {
  readonly command = 'submit_sm';
  readonly command_id = SUBMIT_SM;
  readonly command_status = 0;
  sequence_number = 0;

  constructor(private readonly fields: SubmitSmFields) {}

  isResponse(): boolean {
    return false;
  }

  toBuffer(): Buffer {
    const f = this.fields;
    const schedule = f.scheduleDeliveryTime ?? '';
    const validity = f.validityPeriod ?? '';
    let optional = 0;
    for (const tlv of f.tlvs ?? []) optional += 4 + tlv.value.length;
    // service_type (empty), then the fields in order; every C-octet string adds its NUL.
    const length =
      HEADER +
      1 +
      2 +
      f.sourceAddr.length +
      1 +
      2 +
      f.destinationAddr.length +
      1 +
      3 +
      schedule.length +
      1 +
      validity.length +
      1 +
      5 +
      f.shortMessage.length +
      optional;
    const b = Buffer.allocUnsafe(length);
    b.writeUInt32BE(length, 0);
    b.writeUInt32BE(SUBMIT_SM, 4);
    b.writeUInt32BE(0, 8);
    b.writeUInt32BE(this.sequence_number, 12);
    let o = HEADER;
    b[o++] = 0;
    b[o++] = f.sourceTon;
    b[o++] = f.sourceNpi;
    o = cstring(b, o, f.sourceAddr);
    b[o++] = f.destTon;
    b[o++] = f.destNpi;
    o = cstring(b, o, f.destinationAddr);
    b[o++] = f.esmClass;
    b[o++] = 0; // protocol_id
    b[o++] = f.priorityFlag;
    o = cstring(b, o, schedule);
    o = cstring(b, o, validity);
    b[o++] = f.registeredDelivery;
    b[o++] = 0; // replace_if_present_flag
    b[o++] = f.dataCoding;
    b[o++] = 0; // sm_default_msg_id
    b[o++] = f.shortMessage.length;
    o += f.shortMessage.copy(b, o);
    for (const tlv of f.tlvs ?? []) {
      b.writeUInt16BE(tlv.tag, o);
      b.writeUInt16BE(tlv.value.length, o + 2);
      o += 4 + tlv.value.copy(b, o + 4);
    }
    return b;
  }
}

function cstring(b: Buffer, at: number, value: string): number {
  const end = at + b.write(value, at, 'latin1');
  b[end] = 0;
  return end + 1;
}
