const DELIVER_SM_RESP = 0x80000005;
const HEADER = 16;

/**
 * The answer to a deliver_sm, written straight into its layout: what node-smpp's
 * `pdu.response()` writes (header and an empty message_id; the header alone when the status is an
 * error), without building a generic PDU and walking its fields, once per receipt
 * (docs/decisions.md § SMPP). Session.send only asks it for isResponse() and toBuffer().
 */
export class DeliverSmResp {
  readonly command = 'deliver_sm_resp';
  readonly command_id = DELIVER_SM_RESP;

  constructor(
    readonly sequence_number: number,
    readonly command_status = 0,
  ) {}

  isResponse(): boolean {
    return true;
  }

  toBuffer(): Buffer {
    const length = this.command_status === 0 ? HEADER + 1 : HEADER;
    const buffer = Buffer.alloc(length);
    buffer.writeUInt32BE(length, 0);
    buffer.writeUInt32BE(DELIVER_SM_RESP, 4);
    buffer.writeUInt32BE(this.command_status, 8);
    buffer.writeUInt32BE(this.sequence_number, 12);
    return buffer;
  }
}
