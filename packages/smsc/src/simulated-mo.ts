import { encodeText } from './encoding';

/** A mobile-originated message the simulator delivers to a bound client, as a handset's reply. */
export interface OriginateRequest {
  from: string;
  to: string;
  /** Text, encoded in `dataCoding` (default GSM 03.38); or `hex` bytes as they are. */
  text?: string;
  hex?: string;
  dataCoding?: number;
  /**
   * Cut into parts of this many body bytes (default: one part), concatenated by a UDH with an 8-bit
   * or 16-bit reference, or by the SAR TLVs.
   */
  partBytes?: number;
  concatenation?: 'udh8' | 'udh16' | 'sar';
  /** The reference the parts share (default: the next one). */
  ref?: number;
  /** Part numbers (from 1) in the order they are sent; default 1, 2, 3… */
  order?: number[];
  /** Part numbers never sent (to test a message that stays incomplete). */
  withhold?: number[];
  /** Each PDU is sent this many times (2: the SMSC delivering it again after a lost answer). */
  times?: number;
}

/** The fields of one deliver_sm the simulator sends. */
export interface MoPdu {
  source_addr: string;
  destination_addr: string;
  esm_class: number;
  data_coding: number;
  short_message: Buffer;
  sar_msg_ref_num?: number;
  sar_total_segments?: number;
  sar_segment_seqnum?: number;
}

/** The deliver_sm PDUs of a request, in the order they go out. */
export function moPdus(request: OriginateRequest, nextRef: number): MoPdu[] {
  const dataCoding = request.dataCoding ?? 0;
  const bytes =
    request.hex !== undefined
      ? Buffer.from(request.hex, 'hex')
      : encodeText(request.text ?? '', dataCoding);
  const size = request.partBytes ?? bytes.length;
  const bodies: Buffer[] = [];
  for (let at = 0; at < bytes.length || bodies.length === 0; at += Math.max(1, size))
    bodies.push(bytes.subarray(at, at + Math.max(1, size)));
  const total = bodies.length;
  const ref = request.ref ?? nextRef;
  const pdus = bodies.map((body, i): MoPdu => {
    const base = {
      source_addr: request.from,
      destination_addr: request.to,
      data_coding: dataCoding,
    };
    if (total === 1) return { ...base, esm_class: 0, short_message: body };
    const seq = i + 1;
    switch (request.concatenation ?? 'udh8') {
      case 'sar':
        return {
          ...base,
          esm_class: 0,
          short_message: body,
          sar_msg_ref_num: ref & 0xffff,
          sar_total_segments: total,
          sar_segment_seqnum: seq,
        };
      case 'udh16':
        return {
          ...base,
          esm_class: 0x40,
          short_message: Buffer.concat([
            Buffer.from([6, 0x08, 4, (ref >> 8) & 0xff, ref & 0xff, total, seq]),
            body,
          ]),
        };
      default:
        return {
          ...base,
          esm_class: 0x40,
          short_message: Buffer.concat([Buffer.from([5, 0x00, 3, ref & 0xff, total, seq]), body]),
        };
    }
  });
  const order = request.order ?? pdus.map((_, i) => i + 1);
  const withheld = new Set(request.withhold ?? []);
  return order
    .filter((seq) => !withheld.has(seq) && pdus[seq - 1] !== undefined)
    .flatMap((seq) => Array.from({ length: request.times ?? 1 }, () => pdus[seq - 1]));
}

/**
 * One mobile-originated PDU exactly as a test gives it: any command an SMSC delivers messages with
 * and any field values (node-smpp's names), to try what a careless or hostile SMSC may send.
 */
export interface RawMoPdu {
  command: 'deliver_sm' | 'data_sm';
  fields: Record<string, string | number | Buffer>;
}
