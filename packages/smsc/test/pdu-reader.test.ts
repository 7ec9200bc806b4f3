import * as smpp from 'smpp';
import { DeliverSmResp } from '../src/deliver-sm-resp';
import { PassThrough } from 'node:stream';
import { installHotPduReader, readHotPdu } from '../src/pdu-reader';
import { useRawShortMessages } from '../src/smpp-raw';

useRawShortMessages();

/** What node-smpp's own reader makes of the bytes, and what ours makes of them, side by side. */
function bothReadings(fields: smpp.PduFields, command: string): [smpp.PDU, smpp.PDU | undefined] {
  const bytes = new smpp.PDU(command, fields) as unknown as { toBuffer(): Buffer };
  const buffer = bytes.toBuffer();
  const theirs = smpp.PDU.fromBuffer(buffer);
  if (!theirs) throw new Error('node-smpp could not read its own PDU');
  return [theirs, readHotPdu(buffer.subarray(4), buffer.length)];
}

function pduBytes(command: string, fields: smpp.PduFields): Buffer {
  return (new smpp.PDU(command, fields) as unknown as { toBuffer(): Buffer }).toBuffer();
}

/** A deliver_sm whose command_length ends it inside its mandatory fields. */
function cutDeliverSm(): Buffer {
  const full = pduBytes('deliver_sm', {
    sequence_number: 5,
    source_addr: '4179',
    short_message: 'hi',
  });
  const cut = Buffer.from(full.subarray(0, 16 + 1 + 2 + 5 + 2));
  cut.writeUInt32BE(cut.length, 0);
  return cut;
}

interface StreamReading {
  commandLength(stream: PassThrough): number;
  fromStream(stream: PassThrough, length: number): smpp.PDU | false;
}

const RECEIPT =
  'id:2684354617 sub:001 dlvrd:001 submit date:2611261013 done date:2611261014 stat:DELIVRD err:000 text:Your code is 12';

describe('readHotPdu', () => {
  const deliverSms: [string, smpp.PduFields][] = [
    [
      'a receipt with receipted_message_id and message_state',
      {
        sequence_number: 7,
        source_addr: '41790000001',
        destination_addr: 'Bank',
        esm_class: 4,
        short_message: Buffer.from(RECEIPT, 'latin1'),
        receipted_message_id: '2684354617',
        message_state: 2,
      },
    ],
    [
      'a receipt in its text only',
      { sequence_number: 0x7fffffff, esm_class: 4, short_message: Buffer.from(RECEIPT, 'latin1') },
    ],
    [
      'a mobile-originated part with UDH, sar TLVs and times',
      {
        sequence_number: 3,
        source_addr_ton: 1,
        source_addr_npi: 1,
        source_addr: '41791234567',
        dest_addr_ton: 5,
        destination_addr: '9000',
        esm_class: 0x40,
        protocol_id: 1,
        priority_flag: 2,
        schedule_delivery_time: '261126101300004+',
        validity_period: '261127101300004+',
        registered_delivery: 1,
        data_coding: 8,
        short_message: Buffer.from([5, 0, 3, 9, 2, 1, 0, 0x48, 0, 0x69]),
        sar_msg_ref_num: 9,
        sar_total_segments: 2,
        sar_segment_seqnum: 1,
      },
    ],
    [
      'a long message in message_payload, with bytes above 0x7f',
      {
        sequence_number: 11,
        source_addr: 'Ünïcode',
        destination_addr: '1234',
        short_message: Buffer.alloc(0),
        message_payload: Buffer.from(Array.from({ length: 400 }, (_, i) => i % 256)),
      },
    ],
  ];

  it.each(deliverSms)('reads %s as node-smpp does', (_name, fields) => {
    const [theirs, ours] = bothReadings(fields, 'deliver_sm');
    expect(ours).toBeDefined();
    expect(ours).toBeInstanceOf(smpp.PDU);
    expect({ ...ours }).toEqual({ ...theirs });
    expect(ours?.isResponse()).toBe(false);
  });

  it('reads an optional parameter node-smpp does not know, by its number', () => {
    const known = new smpp.PDU('deliver_sm', {
      sequence_number: 1,
      short_message: 'x',
    }) as unknown as {
      toBuffer(): Buffer;
    };
    const base = known.toBuffer();
    const tlv = Buffer.from([0x14, 0x01, 0x00, 0x02, 0xab, 0xcd]);
    const buffer = Buffer.concat([base, tlv]);
    buffer.writeUInt32BE(buffer.length, 0);
    const theirs = smpp.PDU.fromBuffer(buffer);
    const ours = readHotPdu(buffer.subarray(4), buffer.length);
    expect({ ...ours }).toEqual({ ...theirs });
    expect((ours as unknown as Record<number, Buffer>)[0x1401]).toEqual(Buffer.from([0xab, 0xcd]));
  });

  it('leaves a deliver_sm cut short to node-smpp', () => {
    expect(readHotPdu(cutDeliverSm().subarray(4), cutDeliverSm().length)).toBeUndefined();
  });

  it.each([
    ['with its message id', { sequence_number: 9, message_id: '0a1b2c3d-ff' }],
    ['refused, without a body', { sequence_number: 10, command_status: 0x58 }],
  ])('reads a submit_sm_resp %s as node-smpp does', (_name, fields) => {
    const [theirs, ours] = bothReadings(fields, 'submit_sm_resp');
    expect({ ...ours }).toEqual({ ...theirs });
    expect(ours?.isResponse()).toBe(true);
  });

  it('leaves every other PDU to node-smpp', () => {
    const buffer = (
      new smpp.PDU('submit_sm', { sequence_number: 1, short_message: 'x' }) as unknown as {
        toBuffer(): Buffer;
      }
    ).toBuffer();
    expect(readHotPdu(buffer.subarray(4), buffer.length)).toBeUndefined();
  });
});

describe('installHotPduReader', () => {
  it('takes every PDU off a stream as node-smpp reads it, the hot ones read by us', () => {
    installHotPduReader();
    const pdus = [
      pduBytes('deliver_sm', {
        sequence_number: 1,
        esm_class: 4,
        short_message: Buffer.from(RECEIPT, 'latin1'),
        receipted_message_id: '2684354617',
      }),
      cutDeliverSm(),
      pduBytes('submit_sm_resp', { sequence_number: 2, message_id: 'abc' }),
      pduBytes('enquire_link', { sequence_number: 3 }),
    ];
    const stream = new PassThrough();
    stream.write(Buffer.concat(pdus));
    const read = pdus.map(() => {
      const length = (smpp.PDU as unknown as StreamReading).commandLength(stream);
      return (smpp.PDU as unknown as StreamReading).fromStream(stream, length);
    });
    expect(read.map((pdu) => ({ ...pdu }))).toEqual(
      pdus.map((bytes) => ({ ...smpp.PDU.fromBuffer(bytes) })),
    );
  });
});

describe('DeliverSmResp', () => {
  it.each([0, 0x64])('writes the bytes node-smpp writes for status %i', (status) => {
    const pdu = smpp.PDU.fromBuffer(
      (
        new smpp.PDU('deliver_sm', { sequence_number: 77, short_message: 'x' }) as unknown as {
          toBuffer(): Buffer;
        }
      ).toBuffer(),
    );
    if (!pdu) throw new Error('unreadable');
    const theirs = (
      (status === 0 ? pdu.response() : pdu.response({ command_status: status })) as unknown as {
        toBuffer(): Buffer;
      }
    ).toBuffer();
    expect(new DeliverSmResp(77, status).toBuffer()).toEqual(theirs);
  });
});
