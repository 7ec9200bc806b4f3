import * as smpp from 'smpp';
import type { PDU } from 'smpp';
import type { OptionalParameter } from './smsc-connector';

/**
 * The optional parameters of a PDU node-smpp decoded, by tag. node-smpp keeps a tag it does not
 * know (the vendor range, India's DLT ids among them) as the value's octets under the tag's
 * number, and decodes the ones it knows into values under their names: those are written back
 * with node-smpp's own codec, which gives the octets it read.
 */
export function optionalParameters(pdu: PDU): OptionalParameter[] {
  const found: OptionalParameter[] = [];
  for (const [key, value] of Object.entries(pdu)) {
    if (/^\d+$/.test(key) && Buffer.isBuffer(value)) {
      found.push({ tag: Number(key), value: Buffer.from(value) });
      continue;
    }
    const known = smpp.tlvs[key];
    if (known === undefined || value === undefined) continue;
    for (const one of known.multiple ? (value as unknown[]) : [value]) {
      const octets = Buffer.alloc(known.type.size(one));
      known.type.write(one, octets, 0);
      found.push({ tag: known.id, value: octets });
    }
  }
  return found.sort((a, b) => a.tag - b.tag);
}
