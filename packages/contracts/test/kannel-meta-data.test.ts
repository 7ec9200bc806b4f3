import { CustomTlvsSchema } from '../src/tlvs';
import {
  MetaDataError,
  metaDataTlvs,
  parseMetaData,
  parseSmppTlvDefinitions,
} from '../src/kannel-meta-data';

/**
 * Kannel's user guide gives the form: `?smpp?my-data=Hello+World`, sent on sendsms as
 * `meta-data=%3Fsmpp%3Fmy-data%3DHello%2BWorld` ("Only the parameters defined on the configuration
 * file are honored", each by an smpp-tlv group with name, tag, type and length).
 */
const definitions = parseSmppTlvDefinitions(
  'my-data:0x1600:octetstring:20, PE_ID:0x1400:nulterminated:30,count:5121:integer:2',
);

describe("Kannel's meta-data", () => {
  it('reads the definitions as name:tag:type:length', () => {
    expect(definitions).toEqual([
      { name: 'my-data', tag: 0x1600, type: 'octetstring', length: 20 },
      { name: 'PE_ID', tag: 0x1400, type: 'nulterminated', length: 30 },
      { name: 'count', tag: 5121, type: 'integer', length: 2 },
    ]);
    for (const bad of [
      'x',
      'a:0x1400:octetstring',
      'a:0x10000:octetstring:2',
      'a:1:float:2',
      'a:1:integer:3',
    ])
      expect(() => parseSmppTlvDefinitions(bad)).toThrow(MetaDataError);
  });

  it("takes the user guide's example and the groups of other SMSC types", () => {
    const sent = decodeURIComponent('%3Fsmpp%3Fmy-data%3DHello%2BWorld');
    expect(parseMetaData(sent)).toEqual(new Map([['smpp', new Map([['my-data', 'Hello World']])]]));
    const tlvs = metaDataTlvs(`${sent}&PE_ID=1201&count=7?emi?x=y`, definitions);
    expect(tlvs).toEqual([
      [0x1600, null, 'OctetString', 'Hello World'],
      [0x1400, null, 'COctetString', '1201'],
      [5121, null, 'Int2', '7'],
    ]);
    // Through the custom_tlvs schema, as a Kannel request is accepted.
    expect(CustomTlvsSchema.parse(tlvs)).toEqual([
      { tag: 0x1600, value: Buffer.from('Hello World').toString('hex') },
      { tag: 0x1400, value: `${Buffer.from('1201').toString('hex')}00` },
      { tag: 5121, value: '0007' },
    ]);
    expect(metaDataTlvs('?emi?x=y', definitions)).toEqual([]);
  });

  it('refuses keys nothing defines, values longer than defined, and malformed text', () => {
    expect(() => metaDataTlvs('?smpp?other=1', definitions)).toThrow(/not a TLV/);
    expect(() => metaDataTlvs(`?smpp?my-data=${'x'.repeat(21)}`, definitions)).toThrow(
      /at most 20/,
    );
    expect(() => metaDataTlvs(`?smpp?PE_ID=${'1'.repeat(30)}`, definitions)).toThrow(/at most 30/);
    expect(() => metaDataTlvs('smpp?a=b', definitions)).toThrow(MetaDataError);
    expect(() => metaDataTlvs('?smpp?novalue', definitions)).toThrow(MetaDataError);
    expect(() => metaDataTlvs('?smpp?my-data=%E0%A4%A', definitions)).toThrow(MetaDataError);
    // An integer that does not fit is left to the schema, which refuses it.
    expect(CustomTlvsSchema.safeParse(metaDataTlvs('?smpp?count=70000', definitions)).success).toBe(
      false,
    );
  });
});
