import * as smpp from 'smpp';
import { SubmitSmPdu, type SubmitSmFields } from '../src/submit-sm-pdu';
import { useRawShortMessages } from '../src/smpp-raw';
import { optionalParameters } from '../src/pdu-tlvs';

useRawShortMessages();

/** A fixed sequence of pseudo-random numbers, so a failure names a case that can be run again. */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const ADDRESS_CHARS = '0123456789+ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz -_.éüß';

function anyFields(next: () => number): SubmitSmFields {
  const int = (max: number) => Math.floor(next() * (max + 1));
  const text = (maxLength: number) =>
    Array.from({ length: int(maxLength) }, () => ADDRESS_CHARS[int(ADDRESS_CHARS.length - 1)]).join(
      '',
    );
  const time = () =>
    next() < 0.5
      ? undefined
      : next() < 0.5
        ? `${String(int(99)).padStart(2, '0')}0101120000000R`
        : '261123163000004+';
  return {
    sourceTon: int(6),
    sourceNpi: int(18),
    sourceAddr: text(20),
    destTon: int(6),
    destNpi: int(18),
    destinationAddr: text(20),
    esmClass: next() < 0.5 ? 0 : 0x40,
    priorityFlag: int(3),
    scheduleDeliveryTime: time(),
    validityPeriod: time(),
    registeredDelivery: int(1),
    dataCoding: [0, 1, 3, 4, 8, 0xf0][int(5)],
    shortMessage: Buffer.from(Array.from({ length: int(254) }, () => int(255))),
  };
}

/** The same submit_sm through node-smpp's own encoder. */
function librarySubmitSm(f: SubmitSmFields, sequence: number): Buffer {
  const pdu = new smpp.PDU('submit_sm', {
    sequence_number: sequence,
    source_addr_ton: f.sourceTon,
    source_addr_npi: f.sourceNpi,
    source_addr: f.sourceAddr,
    dest_addr_ton: f.destTon,
    dest_addr_npi: f.destNpi,
    destination_addr: f.destinationAddr,
    esm_class: f.esmClass,
    priority_flag: f.priorityFlag,
    registered_delivery: f.registeredDelivery,
    data_coding: f.dataCoding,
    short_message: f.shortMessage,
    ...(f.scheduleDeliveryTime !== undefined && { schedule_delivery_time: f.scheduleDeliveryTime }),
    ...(f.validityPeriod !== undefined && { validity_period: f.validityPeriod }),
  }) as smpp.PDU & { toBuffer(): Buffer };
  return pdu.toBuffer();
}

describe('SubmitSmPdu', () => {
  it("writes the bytes node-smpp's encoder writes for the same fields (2,000 generated cases)", () => {
    const next = numbers(20261123);
    for (let i = 0; i < 2_000; i++) {
      const fields = anyFields(next);
      const sequence = 1 + Math.floor(next() * 0x7ffffffe);
      const pdu = new SubmitSmPdu(fields);
      pdu.sequence_number = sequence;
      const ours = pdu.toBuffer();
      const theirs = librarySubmitSm(fields, sequence);
      if (!ours.equals(theirs))
        throw new Error(
          `case ${i} differs: ${JSON.stringify({ ...fields, shortMessage: fields.shortMessage.toString('hex') })}\nours   ${ours.toString('hex')}\ntheirs ${theirs.toString('hex')}`,
        );
    }
  });

  it('is read back by an SMPP decoder as the fields it was given', () => {
    const shortMessage = Buffer.from([0x05, 0x00, 0x03, 0x2a, 0x02, 0x01, 0x48, 0x69, 0x00, 0x40]);
    const pdu = new SubmitSmPdu({
      sourceTon: 5,
      sourceNpi: 0,
      sourceAddr: 'Acme',
      destTon: 1,
      destNpi: 1,
      destinationAddr: '41790000001',
      esmClass: 0x40,
      priorityFlag: 2,
      validityPeriod: '000001000000000R',
      registeredDelivery: 1,
      dataCoding: 8,
      shortMessage,
    });
    pdu.sequence_number = 77;
    const decoded = smpp.PDU.fromBuffer(pdu.toBuffer()) as smpp.PDU;
    expect(decoded).toMatchObject({
      command: 'submit_sm',
      command_status: 0,
      sequence_number: 77,
      service_type: '',
      source_addr_ton: 5,
      source_addr: 'Acme',
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      destination_addr: '41790000001',
      esm_class: 0x40,
      priority_flag: 2,
      schedule_delivery_time: '',
      registered_delivery: 1,
      data_coding: 8,
    });
    expect(decoded['short_message']).toEqual(shortMessage);
    expect(pdu.isResponse()).toBe(false);
  });

  it("writes optional parameters after short_message as node-smpp's encoder does, and reads them back", () => {
    const fields: SubmitSmFields = {
      sourceTon: 5,
      sourceNpi: 0,
      sourceAddr: 'Acme',
      destTon: 1,
      destNpi: 1,
      destinationAddr: '919800000001',
      esmClass: 0,
      priorityFlag: 0,
      registeredDelivery: 1,
      dataCoding: 0x10,
      shortMessage: Buffer.from('Hi'),
    };
    // user_message_reference (0x0204, 2 octets), which node-smpp knows by name, and two vendor
    // tags it does not know (India's DLT entity and template ids).
    const tlvs = [
      { tag: 0x0204, value: Buffer.from([0x01, 0x02]) },
      { tag: 0x1400, value: Buffer.from('1201159100000000001') },
      { tag: 0x1401, value: Buffer.from('1207161900000000002') },
    ];
    const ours = new SubmitSmPdu({ ...fields, tlvs });
    ours.sequence_number = 9;
    const withoutVendorTags = new SubmitSmPdu({ ...fields, tlvs: tlvs.slice(0, 1) });
    withoutVendorTags.sequence_number = 9;
    const library = new smpp.PDU('submit_sm', {
      sequence_number: 9,
      source_addr_ton: 5,
      source_addr: 'Acme',
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      destination_addr: '919800000001',
      registered_delivery: 1,
      data_coding: 0x10,
      short_message: Buffer.from('Hi'),
      user_message_reference: 0x0102,
    }) as smpp.PDU & { toBuffer(): Buffer };
    expect(withoutVendorTags.toBuffer().toString('hex')).toBe(library.toBuffer().toString('hex'));
    const decoded = smpp.PDU.fromBuffer(ours.toBuffer()) as smpp.PDU;
    expect(decoded['data_coding']).toBe(0x10);
    expect(decoded['short_message']).toEqual(Buffer.from('Hi'));
    expect(optionalParameters(decoded)).toEqual(tlvs);
  });
});
