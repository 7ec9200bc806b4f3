/**
 * Kannel's `meta-data` parameter, turned into `custom_tlvs`. Kannel's user guide: the value is
 * `?smpp?key1=value1&key2=value2`, keys and values URL-encoded, further `?<smsc-type>?` groups
 * after it; "only the parameters defined on the configuration file are honored", each by an
 * `smpp-tlv` group (`name`, `tag`, `type` one of `octetstring`, `nulterminated`, `integer`,
 * `length`). Here the definitions are the operator's too (KANNEL_SMPP_TLVS); a key with none, or a
 * value longer than its definition allows, is a client error (400) rather than dropped unseen.
 */

/** One `smpp-tlv` group of Kannel's configuration. */
export interface SmppTlvDefinition {
  name: string;
  tag: number;
  type: 'octetstring' | 'nulterminated' | 'integer';
  /** Most octets of the value (integers: exactly these octets, 1, 2 or 4). */
  length: number;
}

/** What custom_tlvs takes: `[tag, length, type, value]`, length left for the schema to compute. */
export type MetaDataTlv = [number, null, string, string];

/** A `meta-data` value that cannot be used; the message says why. */
export class MetaDataError extends Error {
  override name = 'MetaDataError';
}

const INTEGER_TYPES: Record<number, string> = { 1: 'Int1', 2: 'Int2', 4: 'Int4' };

/**
 * KANNEL_SMPP_TLVS: `name:tag:type:length` separated by commas, e.g.
 * `PE_ID:0x1400:octetstring:30,TEMPLATE_ID:0x1401:octetstring:30`.
 */
export function parseSmppTlvDefinitions(text: string): SmppTlvDefinition[] {
  const definitions: SmppTlvDefinition[] = [];
  for (const entry of text.split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    const [name, tag, type, length, extra] = entry.split(':');
    const tagValue = /^0x[0-9a-f]{1,4}$/i.test(tag ?? '')
      ? parseInt(tag.slice(2), 16)
      : /^\d{1,5}$/.test(tag ?? '')
        ? Number(tag)
        : NaN;
    const lengthValue = /^\d{1,3}$/.test(length ?? '') ? Number(length) : NaN;
    if (
      !name ||
      !/^[A-Za-z0-9_.-]{1,64}$/.test(name) ||
      extra !== undefined ||
      !(tagValue >= 1 && tagValue <= 0xffff) ||
      (type !== 'octetstring' && type !== 'nulterminated' && type !== 'integer') ||
      !(lengthValue >= 1 && lengthValue <= 255) ||
      (type === 'integer' && INTEGER_TYPES[lengthValue] === undefined)
    )
      throw new MetaDataError(
        `KANNEL_SMPP_TLVS: "${entry}" is not name:tag:type:length (type octetstring, nulterminated or integer; an integer's length 1, 2 or 4)`,
      );
    definitions.push({ name, tag: tagValue, type, length: lengthValue });
  }
  return definitions;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    throw new MetaDataError('meta-data is not URL-encoded');
  }
}

/** The key/value pairs of each `?<smsc-type>?` group of a `meta-data` value. */
export function parseMetaData(text: string): Map<string, Map<string, string>> {
  const groups = new Map<string, Map<string, string>>();
  if (text === '') return groups;
  const pieces = text.split('?');
  // "?smpp?a=b?x?c=d" splits into "", "smpp", "a=b", "x", "c=d".
  if (pieces[0] !== '' || pieces.length % 2 === 0)
    throw new MetaDataError('meta-data is ?<smsc-type>?<key>=<value>&…');
  for (let i = 1; i < pieces.length; i += 2) {
    const pairs = new Map<string, string>();
    for (const pair of pieces[i + 1].split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new MetaDataError(`meta-data pair "${pair}" is not key=value`);
      pairs.set(decode(pair.slice(0, eq)), decode(pair.slice(eq + 1)));
    }
    groups.set(decode(pieces[i]), pairs);
  }
  return groups;
}

/**
 * The `custom_tlvs` of a `meta-data` value: its `smpp` group's keys, each by its definition.
 * Groups for other SMSC types are for other links and are left out, as Kannel leaves them.
 */
export function metaDataTlvs(
  text: string,
  definitions: readonly SmppTlvDefinition[],
): MetaDataTlv[] {
  const smpp = parseMetaData(text).get('smpp');
  if (smpp === undefined) return [];
  const byName = new Map(definitions.map((d) => [d.name, d]));
  const tlvs: MetaDataTlv[] = [];
  for (const [key, value] of smpp) {
    const definition = byName.get(key);
    if (definition === undefined)
      throw new MetaDataError(`meta-data key ${key} is not a TLV this gateway defines`);
    if (definition.type === 'integer') {
      tlvs.push([definition.tag, null, INTEGER_TYPES[definition.length], value]);
      continue;
    }
    const octets = Buffer.byteLength(value, 'utf8') + (definition.type === 'nulterminated' ? 1 : 0);
    if (octets > definition.length)
      throw new MetaDataError(
        `meta-data ${key} is ${octets} octets; its TLV takes at most ${definition.length}`,
      );
    tlvs.push([
      definition.tag,
      null,
      definition.type === 'nulterminated' ? 'COctetString' : 'OctetString',
      value,
    ]);
  }
  return tlvs;
}
